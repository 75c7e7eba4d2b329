// op_foreign_dst: a block operation writes only blocks its own request
// holds in its own row: a copy into a block another request holds (a stale
// row, a neighbour's column) overwrites that request's state.
#include "invariants/block_ops.h"
#include "invariants/invariants.h"
#include "family/request_plan.h"

namespace slotguard {

void CheckOpForeignDst(const GroupRun& run, FindingSink* sink) {
  if (run.outputs.empty() || !OpsWrite(*run.group)) return;
  const GroupModel model(*run.group);
  const OutputRun& out = run.outputs.back();
  ForEachDoneOp(run, [&](int64_t e, const BlockOp& op) {
    if (op.dst < 0 || model.IsNullIndex(op.dst)) return;
    if (!RowHolds(run, (*run.request_of_token)[e], op.dst))
      sink->Add(TokenFinding(run, out, kInvariantOpForeignDst, e,
                             "the operation writes block " + std::to_string(op.dst) +
                                 ", which the request's own row does not hold"));
  });
}

}  // namespace slotguard
