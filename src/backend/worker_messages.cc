#include "backend/worker_messages.h"

namespace slotguard {

void PutWorkerRequest(WorkerOp op, const WriterOptions& writers, int threads,
                      const std::vector<const Scenario*>& scenarios, WireBuffer* out,
                      const std::vector<GraphStep>& steps) {
  out->PutU8(static_cast<uint8_t>(op));
  out->PutU32(static_cast<uint32_t>(writers.head_bytes));
  out->PutU64(static_cast<uint64_t>(writers.max_cache_bytes));
  out->PutU32(static_cast<uint32_t>(threads));
  out->PutU32(static_cast<uint32_t>(scenarios.size()));
  for (const Scenario* s : scenarios) PutScenario(*s, out);
  if (op != WorkerOp::kRunReplays) return;
  out->PutU32(static_cast<uint32_t>(steps.size()));
  for (const GraphStep& step : steps) {
    out->PutU8(static_cast<uint8_t>(step.kind));
    out->PutU32(step.batch);
  }
}

bool GetWorkerRequest(WireBuffer* in, WorkerRequest* request, std::string* err) {
  uint8_t op;
  uint32_t head_bytes, count;
  uint64_t max_cache_bytes;
  if (!in->GetU8(&op) || !in->GetU32(&head_bytes) || !in->GetU64(&max_cache_bytes) ||
      !in->GetU32(&request->threads) || !in->GetU32(&count)) {
    *err = "malformed request";
    return false;
  }
  request->scenarios.assign(count, Scenario());
  for (Scenario& s : request->scenarios)
    if (!GetScenario(in, &s)) {
      *err = "malformed scenario in a request";
      return false;
    }
  request->writers.head_bytes = static_cast<int32_t>(head_bytes);
  request->writers.max_cache_bytes = static_cast<int64_t>(max_cache_bytes);
  request->op = static_cast<WorkerOp>(op);
  request->steps.clear();
  switch (request->op) {
    case WorkerOp::kRun:
    case WorkerOp::kRunMany:
      return true;
    case WorkerOp::kRunReplays: {
      uint32_t steps;
      if (!in->GetU32(&steps) || steps > (1u << 16)) {
        *err = "malformed graph steps in a request";
        return false;
      }
      for (uint32_t k = 0; k < steps; ++k) {
        uint8_t kind;
        GraphStep step;
        if (!in->GetU8(&kind) || kind < 1 || kind > 4 || !in->GetU32(&step.batch)) {
          *err = "malformed graph steps in a request";
          return false;
        }
        step.kind = static_cast<GraphStep::Kind>(kind);
        request->steps.push_back(step);
      }
      return true;
    }
  }
  *err = "unknown request " + std::to_string(int{op});
  return false;
}

void PutWorkerResponse(WorkerStatus status, const std::string& message,
                       const std::vector<std::vector<GroupOutputs>>* results, WireBuffer* out) {
  out->PutU8(static_cast<uint8_t>(status));
  out->PutString(message);
  if (!results) return;
  out->PutU32(static_cast<uint32_t>(results->size()));
  for (const auto& groups : *results) PutGroupOutputs(groups, out);
}

bool GetWorkerResponse(WireBuffer* in, WorkerStatus* status, std::string* message,
                       std::vector<std::vector<GroupOutputs>>* results) {
  uint8_t code;
  if (!in->GetU8(&code) || !in->GetString(message)) return false;
  *status = static_cast<WorkerStatus>(code);
  if (*status != WorkerStatus::kOk) return true;
  uint32_t count;
  if (!in->GetU32(&count) || count > (1u << 24)) return false;
  results->assign(count, {});
  for (auto& groups : *results)
    if (!GetGroupOutputs(in, &groups)) return false;
  return true;
}

}  // namespace slotguard
