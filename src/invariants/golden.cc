// golden: where the scenario gives expect.slot_mapping, the kernel output
// equals it; the reference must agree with it too, else the golden values
// or the reference are wrong and the finding says which disagrees.
#include "invariants/invariants.h"

namespace slotguard {

void CheckGolden(const GroupRun& run, FindingSink* sink) {
  for (const OutputRun& out : run.outputs) {
    if (!out.golden) continue;
    const std::vector<int64_t>& golden = *out.golden;
    if (golden.size() != out.kernel->size() || golden.size() != out.reference->size()) {
      Finding f;
      f.invariant = kInvariantGolden;
      f.output = out.name;
      f.detail = "expect.slot_mapping has " + std::to_string(golden.size()) + " elements; the output has " +
                 std::to_string(out.kernel->size());
      sink->Add(f);
      continue;
    }
    for (size_t t = 0; t < golden.size(); ++t) {
      if ((*out.kernel)[t] != golden[t])
        sink->Add(TokenFinding(run, out, kInvariantGolden, t,
                               "kernel wrote " + std::to_string((*out.kernel)[t]) +
                                   ", expect.slot_mapping says " + std::to_string(golden[t])));
      if ((*out.reference)[t] != golden[t])
        sink->Add(TokenFinding(run, out, kInvariantGolden, t,
                               "the reference computes " + std::to_string((*out.reference)[t]) +
                                   ", expect.slot_mapping says " + std::to_string(golden[t]) +
                                   ": the golden value or the reference is wrong"));
    }
  }
}

}  // namespace slotguard
