// live_state: a live request's state index (one the description gives
// through a real entry) is a real id of the request's own row: never the
// producer's marker, never a null id, never negative. A live request
// holding the null id is skipped by every consumer, so its state is never
// read or written (kvcached #398: a live request was handed block 0).
#include "invariants/invariants.h"
#include "family/request_plan.h"

namespace slotguard {

void CheckLiveState(const GroupRun& run, FindingSink* sink) {
  if (run.outputs.empty()) return;
  const GroupModel model(*run.group);
  const int64_t marker = model.Marker();
  const OutputRun& out = run.outputs[0];
  for (size_t e = 0; e < out.kernel->size(); ++e) {
    const int64_t t = static_cast<int64_t>(e);
    if (!HasFact(out, t, kFactLiveIndex)) continue;
    const int64_t index = (*out.kernel)[e];
    const int32_t r = (*run.request_of_token)[e];
    std::string why;
    if (index == marker) {
      why = "a live request holds the producer's marker " + std::to_string(marker);
    } else if (model.IsNullIndex(index)) {
      why = "a live request holds the null id " + std::to_string(index);
    } else if (index < 0) {
      why = "a live request holds a negative index";
    } else if (!RowHolds(run, r, index)) {
      why = "id " + std::to_string(index) + " is not in the request's own row";
    }
    if (!why.empty()) sink->Add(TokenFinding(run, out, kInvariantLiveState, t, why));
  }
}

}  // namespace slotguard
