// op_foreign_dst: a block operation writes only blocks its own request
// holds in its own row: a copy into a block another request holds (a stale
// row, a neighbour's column) overwrites that request's state.
#include "invariants/block_ops.h"
#include "invariants/invariants.h"
#include "family/request_plan.h"

namespace slotguard {

void CheckOpForeignDst(const GroupRun& run, FindingSink* sink) {
  if (KindOf(*run.group) != FamilyKind::kBlockOp || run.outputs.empty() || !OpsWrite(*run.group)) return;
  const FamilyDesc& d = DescOf(run.group->family);
  const OutputRun& out = run.outputs.back();
  for (size_t e = 0; e < out.kernel->size(); ++e) {
    const int64_t t = static_cast<int64_t>(e);
    const BlockOp op = OpAt(run, t);
    if (!op.done() || op.dst < 0 || IsNullIndex(d, d.request, run.group->params, op.dst)) continue;
    const int32_t r = (*run.request_of_token)[e];
    if (!RowHolds(run, r, op.dst))
      sink->Add(TokenFinding(run, out, kInvariantOpForeignDst, t,
                             "the operation writes block " + std::to_string(op.dst) +
                                 ", which the request's own row does not hold"));
  }
}

}  // namespace slotguard
