// op_null_dst: no block operation writes a null id: a copy, a load or a
// zeroing into block 0 changes what every masked read of the null block
// sees. A dummy's operation may write a sink (null page "sink").
#include "invariants/block_ops.h"
#include "invariants/invariants.h"
#include "family/request_plan.h"

namespace slotguard {

void CheckOpNullDst(const GroupRun& run, FindingSink* sink) {
  if (run.outputs.empty() || !OpsWrite(*run.group)) return;
  const GroupModel model(*run.group);
  const OutputRun& out = run.outputs.back();
  ForEachDoneOp(run, [&](int64_t e, const BlockOp& op) {
    if (!model.IsNullIndex(op.dst)) return;
    if (HasFact(out, e, kFactNoState) && model.null_page() == NullPage::kSink) return;  // the sink
    sink->Add(TokenFinding(run, out, kInvariantOpNullDst, e, "the operation writes the null block " + std::to_string(op.dst)));
  });
}

}  // namespace slotguard
