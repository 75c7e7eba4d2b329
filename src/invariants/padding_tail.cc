// padding_tail: tokens past the real ones are PAD, or, for kpool_tail,
// exactly slot_mapping_in (tokens from num_actual_tokens are copied through).
#include "invariants/invariants.h"

namespace slotguard {

void CheckPaddingTail(const GroupRun& run, FindingSink* sink) {
  for (const OutputRun& out : run.outputs) {
    const std::vector<int64_t>& kernel = *out.kernel;
    for (size_t t = PaddingStart(run); t < kernel.size(); ++t) {
      const int64_t expected = PaddingValue(run, t);
      if (kernel[t] != expected)
        sink->Add(TokenFinding(run, out, kInvariantPaddingTail, t,
                               "padding token (from token " + std::to_string(PaddingStart(run)) +
                                   ") holds " + std::to_string(kernel[t]) + "; expected " +
                                   std::to_string(expected)));
    }
  }
}

}  // namespace slotguard
