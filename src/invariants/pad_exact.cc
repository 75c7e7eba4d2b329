// pad_exact: every negative slot is exactly PAD (-1), never another negative
// value or a wrapped index; where the description's pad value is 0 (a
// zeroed buffer), no slot is negative.
#include "invariants/invariants.h"

namespace slotguard {

void CheckPadExact(const GroupRun& run, FindingSink* sink) {
  for (const OutputRun& out : run.outputs) {
    const std::vector<int64_t>& kernel = *out.kernel;
    for (size_t t = 0; t < kernel.size(); ++t)
      if (kernel[t] < 0 && kernel[t] != run.pad_value && KernelMaps(run, t))
        sink->Add(TokenFinding(run, out, kInvariantPadExact, t,
                               "negative slot " + std::to_string(kernel[t]) + "; expected " +
                                   (run.pad_value < 0 ? "-1" : "no negative slot (unmapped tokens hold 0)")));
  }
}

}  // namespace slotguard
