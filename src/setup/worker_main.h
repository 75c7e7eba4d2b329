// The worker process of fault isolation (`slotguard __worker`, hidden): the
// far end of backend/isolated_backend.h, with its own backend and the
// implementation the flags name.
#ifndef SLOTGUARD_SETUP_WORKER_MAIN_H_
#define SLOTGUARD_SETUP_WORKER_MAIN_H_

#include <ostream>

#include "backend/backend.h"
#include "plugin/open_provider.h"  // ProviderSource

namespace slotguard {

/// Reads requests (worker_messages.h) on kWorkerRequestFd and answers on
/// kWorkerResponseFd, running them on its own backend of `kind` (with
/// `provider`, when given). Returns true when slotguard closes the pipe or
/// after a kernel fault (the process's CUDA context is lost: slotguard
/// starts another worker); false after printing a malformed request to err.
bool ServeWorker(BackendKind kind, const ProviderSource& provider, std::ostream& err);

}  // namespace slotguard

#endif  // SLOTGUARD_SETUP_WORKER_MAIN_H_
