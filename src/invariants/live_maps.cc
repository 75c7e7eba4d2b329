// live_maps: a token its description selects, of a live request, whose
// addressed entry is a real block and passes every test of the family,
// maps to a slot in that block. It judges the implementation by the
// description's addressing alone, not by the exact slot (differential
// does that): a kernel that pads a token it must write, or writes it into
// another block, is named even where the description's offset formula
// were wrong too.
#include "invariants/invariants.h"

#include <cstring>

namespace slotguard {

void CheckLiveMaps(const GroupRun& run, FindingSink* sink) {
  for (const OutputRun& out : run.outputs) {
    if (!out.facts) continue;
    const std::vector<int64_t>& kernel = *out.kernel;
    const std::vector<int64_t>& reference = *out.reference;
    const uint8_t* const facts = out.facts->data();
    const size_t n = kernel.size();
    // Where the kernel wrote the reference's own slots (a campaign's usual
    // case), only a live token whose slot is negative can be named: one
    // pass without branches says whether there is one.
    if (reference.size() == n && (n == 0 || std::memcmp(kernel.data(), reference.data(), n * sizeof(int64_t)) == 0)) {
      uint64_t negative = 0;
      for (size_t t = 0; t < n; ++t)
        negative |= static_cast<uint64_t>(reference[t]) & (0 - static_cast<uint64_t>((facts[t] & kFactLiveTarget) != 0));
      if (!(negative >> 63)) continue;
    }
    for (size_t t = 0; t < n; ++t) {
      if (!(facts[t] & kFactLiveTarget)) continue;
      // The reference's own slot (>= 0) lies in its block: no division to say so.
      if (kernel[t] == reference[t] && reference[t] >= 0) continue;
      const int64_t entry = reference[t] / run.slots_per_entry;
      const int64_t lo = entry * run.slots_per_entry, hi = lo + run.slots_per_entry;
      if (kernel[t] >= lo && kernel[t] < hi) continue;
      sink->Add(TokenFinding(run, out, kInvariantLiveMaps, t,
                             (kernel[t] < 0 ? std::string("a live token left unwritten")
                                            : "a live token written into block entry " +
                                                  std::to_string(kernel[t] / run.slots_per_entry)) +
                                 "; expected a slot of block entry " + std::to_string(entry) + " (slots " +
                                 std::to_string(lo) + ".." + std::to_string(hi - 1) + ")"));
    }
  }
}

}  // namespace slotguard
