// pad_exact: every negative slot is exactly PAD (-1), never another negative
// value or a wrapped index.
#include "invariants/invariants.h"

namespace slotguard {

void CheckPadExact(const GroupRun& run, FindingSink* sink) {
  for (const OutputRun& out : run.outputs) {
    const std::vector<int64_t>& kernel = *out.kernel;
    for (size_t t = 0; t < kernel.size(); ++t)
      if (kernel[t] < 0 && kernel[t] != kPadSlot && KernelMaps(run, t))
        sink->Add(TokenFinding(run, out, kInvariantPadExact, t,
                               "negative slot " + std::to_string(kernel[t]) + "; expected -1"));
  }
}

}  // namespace slotguard
