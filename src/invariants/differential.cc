// differential: the kernel's whole output buffer equals the reference's, and
// the flat geometry equals the engine geometry, element for element.
#include "invariants/invariants.h"

namespace slotguard {

void CheckDifferential(const GroupRun& run, FindingSink* sink) {
  for (const OutputRun& out : run.outputs) {
    const std::vector<int64_t>& kernel = *out.kernel;
    const std::vector<int64_t>& reference = *out.reference;
    if (kernel.size() != reference.size()) {
      Finding f;
      f.invariant = kInvariantDifferential;
      f.output = out.name;
      f.detail = "the kernel's output has " + std::to_string(kernel.size()) + " elements; the reference's " +
                 std::to_string(reference.size());
      sink->Add(f);
      continue;
    }
    for (size_t t = 0; t < kernel.size(); ++t) {
      if (kernel[t] != reference[t])
        sink->Add(TokenFinding(run, out, kInvariantDifferential, t,
                               "the kernel (engine geometry) differs from the reference"));
      if (out.flat && (*out.flat)[t] != kernel[t])
        sink->Add(TokenFinding(run, out, kInvariantDifferential, t,
                               "flat geometry wrote " + std::to_string((*out.flat)[t]) +
                                   ", the engine geometry " + std::to_string(kernel[t])));
    }
  }
}

}  // namespace slotguard
