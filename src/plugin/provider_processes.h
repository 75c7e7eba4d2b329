// The implementation behind --kernel-cmd: provider processes
// (plugin/provider_process.h) in a process pool with a warm spare
// (util/process_pool.h), speaking docs/provider-protocol.md. The host
// executor hands it a wave's steps of many scenarios at once; it sends them
// as messages of up to 256 scenarios, one per process side by side, and the
// answers go straight into the plan's output buffers.
//
// What a failure costs:
//   - an error reply (a Python exception, a device fault the package caught
//     in its call): that scenario's no_fault, naming the group and the
//     message; the process keeps serving;
//   - a skip reply: that scenario is skipped;
//   - a record the provider could not run after an earlier call broke its
//     device context (status 3): sent again, elsewhere;
//   - a process that died or hung: a warm spare takes its place and the
//     lost message is sent again with a synchronization after each call:
//     without the record that was running when it died (its progress page
//     says which), which gets the no_fault; when it cannot say, the message
//     is bisected (a hang: each scenario alone), down to the scenario that
//     kills it. A death that never recurs is one warning line.
//
// A campaign's stop (set_stop) is asked before each message: once it is,
// what is not yet sent, first sends and sends again alike, is left not run
// (the campaign neither checks nor counts it).
#ifndef SLOTGUARD_PLUGIN_PROVIDER_PROCESSES_H_
#define SLOTGUARD_PLUGIN_PROVIDER_PROCESSES_H_

#include <memory>
#include <string>

#include "plan/mapping_provider.h"
#include "plugin/provider_process.h"

namespace slotguard {

/// Starts the first process (the handshake); nullptr with a one-line *err
/// when it fails (bad input: exit 2).
std::unique_ptr<MappingProvider> OpenProviderProcesses(const ProviderCommand& command, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_PLUGIN_PROVIDER_PROCESSES_H_
