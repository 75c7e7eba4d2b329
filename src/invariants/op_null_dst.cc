// op_null_dst: no block operation writes a null id: a copy, a load or a
// zeroing into block 0 changes what every masked read of the null block
// sees. A dummy's operation may write a sink (null page "sink").
#include "invariants/block_ops.h"
#include "invariants/invariants.h"
#include "family/request_plan.h"

namespace slotguard {

void CheckOpNullDst(const GroupRun& run, FindingSink* sink) {
  if (KindOf(*run.group) != FamilyKind::kBlockOp || run.outputs.empty() || !OpsWrite(*run.group)) return;
  const FamilyDesc& d = DescOf(run.group->family);
  const OutputRun& out = run.outputs.back();
  for (size_t e = 0; e < out.kernel->size(); ++e) {
    const int64_t t = static_cast<int64_t>(e);
    const BlockOp op = OpAt(run, t);
    if (!op.done() || !IsNullIndex(d, d.request, run.group->params, op.dst)) continue;
    if (HasFact(out, t, kFactNoState) && d.request.null_page == NullPage::kSink) continue;  // the sink
    sink->Add(TokenFinding(run, out, kInvariantOpNullDst, t,
                           "the operation writes the null block " + std::to_string(op.dst)));
  }
}

}  // namespace slotguard
