// gathered_row: a gathered block table (a table producer) gives each live
// request the entries of the row it reads, column for column, for every
// column its engine counts (the description's count): a consumer reading
// the gathered row reads the request's own blocks, never a stale row's, a
// neighbour's, or the null block where the persistent row names a real one.
#include "invariants/invariants.h"
#include "family/request_plan.h"

namespace slotguard {

void CheckGatheredRow(const GroupRun& run, FindingSink* sink) {
  const int64_t width = run.ops_per_request;  // the elements of a request: its row of the table
  for (const OutputRun& out : run.outputs)
    for (size_t e = 0; e < out.kernel->size(); ++e) {
      const int64_t t = static_cast<int64_t>(e);
      if (!HasFact(out, t, kFactLiveIndex) || (*out.kernel)[e] == (*out.reference)[e]) continue;
      const int32_t r = (*run.request_of_token)[e];
      const int32_t row = FamilyModel(run.group->family).RowOf(run.batch(), r);
      sink->Add(TokenFinding(run, out, kInvariantGatheredRow, t,
                             "column " + std::to_string(t % width) + " of request " + std::to_string(r) +
                                 "'s gathered row must be entry " + std::to_string((*out.reference)[e]) +
                                 " of table row " + std::to_string(row)));
    }
}

}  // namespace slotguard
