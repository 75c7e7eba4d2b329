// The pipe protocol between slotguard and its worker process (fault
// isolation: isolated_backend.h). One request, one response, in order:
//   request:  u8 op, u32 head_bytes, u64 max_cache_bytes, u32 threads, u32 count,
//             count x scenario (PutScenario: binary, field by field);
//             kRunReplays then u32 steps, each: u8 GraphStep::Kind, u32 batch
//   response: u8 status, string message, then when status is kOk:
//             u32 results, each: u32 groups, each group's GroupOutputs
// Both ends are the same binary on the same machine: native byte order.
// The frames are util/wire.h's, as the provider protocol's are.
#ifndef SLOTGUARD_BACKEND_WORKER_PROTOCOL_H_
#define SLOTGUARD_BACKEND_WORKER_PROTOCOL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "util/wire.h"

namespace slotguard {

enum class WorkerOp : uint8_t { kRun = 1, kRunReplays = 2, kRunMany = 3 };

enum class WorkerStatus : uint8_t {
  kOk = 0,
  kEnvironmentError = 1,  // the backend failed (not the kernel): message says why
  kFault = 2,             // the kernel faulted; the worker exits after answering
};

/// What the kernels need of a scenario (not its expectation), field by
/// field: the worker trusts slotguard to have loaded and checked it.
void PutScenario(const Scenario& scenario, WireBuffer* out);
bool GetScenario(WireBuffer* in, Scenario* scenario);

void PutGroupOutputs(const std::vector<GroupOutputs>& groups, WireBuffer* out);
bool GetGroupOutputs(WireBuffer* in, std::vector<GroupOutputs>* groups);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_WORKER_PROTOCOL_H_
