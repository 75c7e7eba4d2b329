// The backend of --kernel-cmd: the groups a provider process implements
// run there (many scenarios per message, one process per concurrent
// runner, docs/provider-protocol.md); everything else runs on slotguard's
// host kernels, and the provider's answers go through the host backend as
// if it had run them, so the order of the groups, the common mappings, the
// writers and the read-past-row marks are the host backend's own.
#ifndef SLOTGUARD_BACKEND_PROVIDER_BACKEND_H_
#define SLOTGUARD_BACKEND_PROVIDER_BACKEND_H_

#include <memory>
#include <string>

#include "backend/backend.h"
#include "plugin/provider_process.h"

namespace slotguard {

/// Starts the provider once (the handshake); nullptr with a one-line *err
/// when it fails (bad input: exit 2).
std::unique_ptr<Backend> MakeProviderBackend(const ProviderCommand& command, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_PROVIDER_BACKEND_H_
