// padding_tail: tokens past the real ones (t >= qsl[R]) are PAD.
#include "invariants/invariants.h"

namespace slotguard {

void CheckPaddingTail(const GroupRun& run, FindingSink* sink) {
  for (const OutputRun& out : run.outputs) {
    const std::vector<int64_t>& kernel = *out.kernel;
    for (size_t t = run.batch().num_real_tokens(); t < kernel.size(); ++t)
      if (kernel[t] != kPadSlot)
        sink->Add(TokenFinding(run, out, "padding_tail", t,
                               "padding token (past qsl[R] = " +
                                   std::to_string(run.batch().num_real_tokens()) + ") holds " +
                                   std::to_string(kernel[t]) + "; expected -1"));
  }
}

}  // namespace slotguard
