// What the block-operation invariants (op_null_src, op_null_dst,
// op_foreign_dst) read of one operation of a block_op group.
#ifndef SLOTGUARD_INVARIANTS_BLOCK_OPS_H_
#define SLOTGUARD_INVARIANTS_BLOCK_OPS_H_

#include <cstdint>

#include "invariants/group_run.h"

namespace slotguard {

/// One operation as the implementation gave it: -1 where it has no block.
struct BlockOp {
  int64_t src = -1;  // copy, store
  int64_t dst = -1;  // copy, load, zero
  bool done() const { return src != -1 || dst != -1; }
};

/// Operation e of the group's outputs (the kernel's, or with `reference`
/// the reference's): a copy's source is output 0 and its destination
/// output 1; a store's source, a load's or zero's destination, output 0.
BlockOp OpAt(const GroupRun& run, int64_t e, bool reference = false);

/// Calls fn(e, op) for every operation the implementation does (its
/// last output's elements whose operation has a block).
template <typename Fn>
void ForEachDoneOp(const GroupRun& run, Fn fn) {
  for (size_t e = 0; e < run.outputs.back().kernel->size(); ++e) {
    const BlockOp op = OpAt(run, static_cast<int64_t>(e));
    if (op.done()) fn(static_cast<int64_t>(e), op);
  }
}

/// Whether the group's operations write (copy, load, zero) or read
/// (copy, store) blocks.
bool OpsWrite(const Group& group);
bool OpsRead(const Group& group);

}  // namespace slotguard

#endif  // SLOTGUARD_INVARIANTS_BLOCK_OPS_H_
