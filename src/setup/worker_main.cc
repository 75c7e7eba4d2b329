#include "setup/worker_main.h"

#include <algorithm>
#include <new>

#include "backend/gpu_device.h"
#include "backend/worker_messages.h"
#include "plugin/open_provider.h"
#include "util/error_line.h"
#include "util/running_group.h"

namespace slotguard {
namespace {

bool Answer(WorkerStatus status, const std::string& message, const std::vector<std::vector<GroupOutputs>>* results) {
  WireBuffer response;
  PutWorkerResponse(status, message, results, &response);
  return WriteFrame(kWorkerResponseFd, response);
}

enum class Served { kNext, kDone, kMalformed };

/// One request and its answer. `backend` is null when it could not be made
/// (`why` says why: every request gets that as an environment error).
Served ServeRequest(Backend* backend, const std::string& why, std::ostream& err) {
  WireBuffer frame;
  bool timed_out;
  if (!ReadFrame(kWorkerRequestFd, -1, &frame, &timed_out)) return Served::kDone;  // slotguard is done
  if (!backend) {
    Answer(WorkerStatus::kEnvironmentError, "worker: " + why, nullptr);
    return Served::kNext;
  }
  WorkerRequest request;
  std::string problem;
  if (!GetWorkerRequest(&frame, &request, &problem)) {
    err << ErrorLine("worker: " + problem);
    return Served::kMalformed;
  }
  backend->set_writers(request.writers);
  std::vector<std::vector<GroupOutputs>> results;
  bool ok = true;
  switch (request.op) {
    case WorkerOp::kRun:
      results.resize(1);
      ok = !request.scenarios.empty() && backend->Run(request.scenarios[0], &results[0], &problem);
      break;
    case WorkerOp::kRunReplays: {
      GraphSequence sequence;
      sequence.batches = std::move(request.scenarios);
      sequence.steps = std::move(request.steps);
      ok = backend->RunReplays(sequence, &results, &problem);
      break;
    }
    case WorkerOp::kRunMany: {
      std::vector<const Scenario*> pointers;
      for (const Scenario& s : request.scenarios) pointers.push_back(&s);
      ok = backend->RunMany(pointers, &results, &problem, static_cast<int>(std::max<uint32_t>(1, request.threads)));
      break;
    }
  }
  if (ok) return Answer(WorkerStatus::kOk, "", &results) ? Served::kNext : Served::kDone;
  // A sticky CUDA error (illegal address, kernel trap) leaves this
  // process's context unusable: report a fault and let slotguard start
  // another worker. Anything else is an environment error.
  std::string broken;
  if (GpuContextBroken(&broken)) {
    Answer(WorkerStatus::kFault,
           "a kernel faulted: " + broken + " (the worker's CUDA context is lost; first seen at " + problem + ")",
           nullptr);
    return Served::kDone;
  }
  Answer(WorkerStatus::kEnvironmentError, problem, nullptr);
  return Served::kNext;
}

}  // namespace

bool ServeWorker(BackendKind kind, const ProviderSource& provider_source, std::ostream& err) {
  ShareRunningGroup(kChildSharedFd);
  std::string why;
  std::unique_ptr<Backend> backend = MakeBackend(kind, &why);
  if (backend && !provider_source.empty()) {
    std::shared_ptr<MappingProvider> provider = OpenProvider(provider_source, &why);
    if (!provider) backend.reset();
    else backend->set_provider(provider);
  }
  for (;;) {
    try {
      switch (ServeRequest(backend.get(), why, err)) {
        case Served::kNext:
          continue;
        case Served::kDone:
          return true;
        case Served::kMalformed:
          return false;
      }
    } catch (const std::bad_alloc&) {
      // Reading the request or running it: not the kernel's fault, an
      // environment error that slotguard reports (exit 3). The memory is
      // freed by now, and slotguard may send the next request here.
      Answer(WorkerStatus::kEnvironmentError, OutOfMemoryText("worker"), nullptr);
    }
  }
}

}  // namespace slotguard
