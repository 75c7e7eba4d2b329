#include "invariants/block_ops.h"

namespace slotguard {

bool OpsWrite(const Group& group) { return FamilyModel(group.family).request().op != BlockOpKind::kStore; }
bool OpsRead(const Group& group) {
  const BlockOpKind op = FamilyModel(group.family).request().op;
  return op == BlockOpKind::kCopy || op == BlockOpKind::kStore;
}

BlockOp OpAt(const GroupRun& run, int64_t e, bool reference) {
  BlockOp op;
  auto at = [&](size_t o) {
    const std::vector<int64_t>* v = reference ? run.outputs[o].reference : run.outputs[o].kernel;
    return (*v)[static_cast<size_t>(e)];
  };
  if (run.outputs.empty()) return op;
  if (OpsRead(*run.group)) op.src = at(0);
  if (OpsWrite(*run.group)) op.dst = at(run.outputs.size() > 1 ? 1 : 0);
  return op;
}

}  // namespace slotguard
