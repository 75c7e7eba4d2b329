// pad_marker: a row that owns no state (a dummy, a CUDA-graph padded row, a
// request without a row) holds exactly what the description gives it: the
// producer's marker for a state index, no operation (-1 in every output)
// for a block operation; and so does a live request the description gives
// none (a column outside its row, an operation its selects drop).
#include "invariants/invariants.h"
#include "family/request_plan.h"

namespace slotguard {

void CheckPadMarker(const GroupRun& run, FindingSink* sink) {
  const KindModel& kind = KindModelOf(*run.group);
  for (const OutputRun& out : run.outputs)
    for (size_t e = 0; e < out.kernel->size(); ++e) {
      if (!HasFact(out, static_cast<int64_t>(e), kFactMarker) || (*out.kernel)[e] == (*out.reference)[e]) continue;
      const bool owns_none = HasFact(out, static_cast<int64_t>(e), kFactNoState);
      sink->Add(TokenFinding(
          run, out, kInvariantPadMarker, static_cast<int64_t>(e),
          kind.MarkerText(owns_none, (*out.reference)[e])));
    }
}

}  // namespace slotguard
