// null_owner_pad: a token that owns no state is PAD: a token of a dummy
// request its family pads (paged), of a request that reads no row (a dummy
// of a persistent table), or whose addressed entry is null where its family
// tests entries (the rings). PAD is the description's pad value; under a
// sink the token may also land in the null block, which is no one's.
#include "invariants/invariants.h"

namespace slotguard {

void CheckNullOwnerPad(const GroupRun& run, FindingSink* sink) {
  for (const OutputRun& out : run.outputs) {
    const std::vector<int64_t>& kernel = *out.kernel;
    for (size_t t = 0; t < kernel.size(); ++t)
      if (kernel[t] != run.pad_value && HasNullOwner(out, t) && !SinkSlotAllowed(run, out, t, kernel[t]))
        sink->Add(TokenFinding(run, out, kInvariantNullOwnerPad, t,
                               "token owns no state (dummy request or null entry) but maps to " +
                                   std::to_string(kernel[t]) + "; expected " + std::to_string(run.pad_value) +
                                   (run.null_page == NullPage::kSink ? " or a slot of the null block (a sink)" : "")));
  }
}

}  // namespace slotguard
