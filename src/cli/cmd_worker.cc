// `slotguard __worker` (hidden): the far end of fault isolation
// (backend/isolated_backend.h). Reads requests on fd 3, answers on fd 4,
// runs them on its own backend, and exits after a kernel fault (its CUDA
// context is lost) or when slotguard closes the pipe.
#include <unistd.h>

#include <algorithm>

#include "backend/gpu_device.h"
#include "backend/worker_protocol.h"
#include "cli/commands.h"

namespace slotguard {
namespace {

constexpr int kRequestFd = 3;
constexpr int kResponseFd = 4;

bool Answer(WorkerStatus status, const std::string& message, const std::vector<std::vector<GroupOutputs>>* results) {
  WireBuffer response;
  response.PutU8(static_cast<uint8_t>(status));
  response.PutString(message);
  if (results) {
    response.PutU32(static_cast<uint32_t>(results->size()));
    for (const auto& groups : *results) PutGroupOutputs(groups, &response);
  }
  return WriteFrame(kResponseFd, response);
}

}  // namespace

int RunWorker(const WorkerOptions& options, std::ostream& err) {
  std::string why;
  std::unique_ptr<Backend> backend = MakeBackend(options.backend, &why);
  if (backend && !options.provider.empty()) {
    std::shared_ptr<MappingProvider> provider = OpenProvider(options.provider, &why);
    if (!provider) backend.reset();
    else backend->set_provider(provider);
  }
  for (;;) {
    WireBuffer request;
    bool timed_out;
    if (!ReadFrame(kRequestFd, -1, &request, &timed_out)) return kExitHolds;  // slotguard is done
    if (!backend) {
      Answer(WorkerStatus::kEnvironmentError, "worker: " + why, nullptr);
      continue;
    }
    uint8_t op;
    uint32_t head_bytes, threads, count;
    uint64_t max_cache_bytes;
    if (!request.GetU8(&op) || !request.GetU32(&head_bytes) || !request.GetU64(&max_cache_bytes) ||
        !request.GetU32(&threads) || !request.GetU32(&count)) {
      err << "slotguard __worker: malformed request\n";
      return kExitBadInput;
    }
    std::vector<Scenario> scenarios(count);
    std::string problem;
    for (Scenario& s : scenarios)
      if (!GetScenario(&request, &s)) {
        err << "slotguard __worker: malformed scenario in a request\n";
        return kExitBadInput;
      }
    WriterOptions writers;
    writers.head_bytes = static_cast<int32_t>(head_bytes);
    writers.max_cache_bytes = static_cast<int64_t>(max_cache_bytes);
    backend->set_writers(writers);
    std::vector<std::vector<GroupOutputs>> results;
    bool ok = true;
    switch (static_cast<WorkerOp>(op)) {
      case WorkerOp::kRun:
        results.resize(1);
        ok = !scenarios.empty() && backend->Run(scenarios[0], &results[0], &problem);
        break;
      case WorkerOp::kRunReplays:
        ok = backend->RunReplays(scenarios, &results, &problem);
        break;
      case WorkerOp::kRunMany: {
        std::vector<const Scenario*> pointers;
        for (const Scenario& s : scenarios) pointers.push_back(&s);
        ok = backend->RunMany(pointers, &results, &problem, static_cast<int>(std::max<uint32_t>(1, threads)));
        break;
      }
      default:
        err << "slotguard __worker: unknown request " << int{op} << "\n";
        return kExitBadInput;
    }
    if (ok) {
      if (!Answer(WorkerStatus::kOk, "", &results)) return kExitHolds;
      continue;
    }
    // A sticky CUDA error (illegal address, kernel trap) leaves this
    // process's context unusable: report a fault and let slotguard start
    // another worker. Anything else is an environment error.
    std::string broken;
    if (GpuContextBroken(&broken)) {
      Answer(WorkerStatus::kFault,
             "a kernel faulted: " + broken + " (the worker's CUDA context is lost; first seen at " + problem + ")",
             nullptr);
      return kExitHolds;
    }
    Answer(WorkerStatus::kEnvironmentError, problem, nullptr);
  }
}

}  // namespace slotguard
