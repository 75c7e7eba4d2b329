// unique_state: no two live requests share a state index: each request's
// recurrent state is its own, and two rows on one index overwrite each
// other.
#include <map>

#include "invariants/invariants.h"
#include "family/request_plan.h"

namespace slotguard {

void CheckUniqueState(const GroupRun& run, FindingSink* sink) {
  if (run.outputs.empty()) return;
  const OutputRun& out = run.outputs[0];
  std::map<int64_t, int32_t> holder;  // index -> the first live request holding it
  for (size_t e = 0; e < out.kernel->size(); ++e) {
    const int64_t t = static_cast<int64_t>(e);
    if (!HasFact(out, t, kFactLiveIndex)) continue;
    const int64_t index = (*out.kernel)[e];
    const int32_t r = (*run.request_of_token)[e];
    auto [it, fresh] = holder.emplace(index, r);
    if (!fresh && it->second != r)
      sink->Add(TokenFinding(run, out, kInvariantUniqueState, t,
                             "request " + std::to_string(it->second) + " holds state index " + std::to_string(index) +
                                 " too"));
  }
}

}  // namespace slotguard
