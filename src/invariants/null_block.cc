// null_block: no slot >= 0 lies in the null block, slots [0, page).
#include "invariants/invariants.h"

namespace slotguard {

void CheckNullBlock(const GroupRun& run, FindingSink* sink) {
  const int64_t page = run.page();
  for (const OutputRun& out : run.outputs) {
    const std::vector<int64_t>& kernel = *out.kernel;
    for (size_t t = 0; t < kernel.size(); ++t)
      if (kernel[t] >= 0 && kernel[t] < page && KernelMaps(run, t))
        sink->Add(TokenFinding(run, out, kInvariantNullBlock, t,
                               "slot " + std::to_string(kernel[t]) + " is in block 0 (slots 0.." +
                                   std::to_string(page - 1) + ")"));
  }
}

}  // namespace slotguard
