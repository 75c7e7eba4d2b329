// Both ends of the worker pipe (fault isolation, isolated_backend.h): the
// requests slotguard sends and the worker reads, the responses the worker
// sends and slotguard reads, and the file descriptors they travel on. The
// byte layout is worker_protocol.h's; this is the one place that writes
// and reads it for each message.
#ifndef SLOTGUARD_BACKEND_WORKER_MESSAGES_H_
#define SLOTGUARD_BACKEND_WORKER_MESSAGES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/worker_protocol.h"
#include "util/child_process.h"

namespace slotguard {

/// The worker reads requests on fd 3 and answers on fd 4: the isolated
/// backend puts its pipe ends there when it starts a worker.
constexpr int kWorkerRequestFd = kChildRequestFd;
constexpr int kWorkerResponseFd = kChildReplyFd;

struct WorkerRequest {
  WorkerOp op = WorkerOp::kRun;
  WriterOptions writers;
  uint32_t threads = 1;  // RunMany's packing threads
  std::vector<Scenario> scenarios;
  std::vector<GraphStep> steps;  // kRunReplays: the graph sequence's steps over `scenarios`
};

/// `steps`: kRunReplays's (GraphSequence::steps over `scenarios`), else empty.
void PutWorkerRequest(WorkerOp op, const WriterOptions& writers, int threads,
                      const std::vector<const Scenario*>& scenarios, WireBuffer* out,
                      const std::vector<GraphStep>& steps = {});
/// False with *err: "malformed request", "malformed scenario in a request"
/// or "unknown request N".
bool GetWorkerRequest(WireBuffer* in, WorkerRequest* request, std::string* err);

/// results: with kOk, one entry per scenario of the request; else nullptr.
void PutWorkerResponse(WorkerStatus status, const std::string& message,
                       const std::vector<std::vector<GroupOutputs>>* results, WireBuffer* out);
/// The status and its message, and with kOk the results. False when the
/// response is malformed.
bool GetWorkerResponse(WireBuffer* in, WorkerStatus* status, std::string* message,
                       std::vector<std::vector<GroupOutputs>>* results);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_WORKER_MESSAGES_H_
