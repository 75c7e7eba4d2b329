// in_range: every slot >= 0 is below num_blocks * page (no int32 overflow,
// no id past the pool).
#include "invariants/invariants.h"

namespace slotguard {

void CheckInRange(const GroupRun& run, FindingSink* sink) {
  for (const OutputRun& out : run.outputs) {
    const std::vector<int64_t>& kernel = *out.kernel;
    for (size_t t = 0; t < kernel.size(); ++t)
      if (kernel[t] >= run.slot_limit && KernelMaps(run, t))
        sink->Add(TokenFinding(run, out, kInvariantInRange, t,
                               "slot " + std::to_string(kernel[t]) + " past the pool; expected < " +
                                   std::to_string(run.slot_limit) + " (num_blocks * page)"));
  }
}

}  // namespace slotguard
