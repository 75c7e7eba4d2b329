// null_block: no slot >= 0 lies in the null block, slots [0, page): a hazard,
// whether or not the writers then keep it out of memory (null_bytes says
// that). A family whose null page is a sink lets the tokens that own no
// state write it; one without a null page has nothing to check.
#include "invariants/invariants.h"

namespace slotguard {

void CheckNullBlock(const GroupRun& run, FindingSink* sink) {
  if (!HasNullBlock(run.null_page)) return;
  const int64_t page = run.page();
  for (const OutputRun& out : run.outputs) {
    const std::vector<int64_t>& kernel = *out.kernel;
    for (size_t t = 0; t < kernel.size(); ++t)
      if (NullBlockHazard(run, out, static_cast<int64_t>(t)))
        sink->Add(TokenFinding(run, out, kInvariantNullBlock, t,
                               "slot " + std::to_string(kernel[t]) + " is in block 0 (slots 0.." +
                                   std::to_string(page - 1) + ")"));
  }
}

}  // namespace slotguard
