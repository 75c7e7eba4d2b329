// op_null_src: a block operation whose source is a null id is not done: a
// copy or a store from the null block moves whatever the null block holds
// (vLLM's Mamba prefix-cache copy reads its source column with no null
// test; the offloading connector asserts no stored block is 0).
#include "invariants/block_ops.h"
#include "invariants/invariants.h"
#include "family/request_plan.h"

namespace slotguard {

void CheckOpNullSrc(const GroupRun& run, FindingSink* sink) {
  if (run.outputs.empty() || !OpsRead(*run.group)) return;
  const GroupModel model(*run.group);
  ForEachDoneOp(run, [&](int64_t e, const BlockOp& op) {
    if (model.IsNullIndex(op.src))
      sink->Add(TokenFinding(run, run.outputs[0], kInvariantOpNullSrc, e, "the operation reads the null block " + std::to_string(op.src)));
  });
}

}  // namespace slotguard
