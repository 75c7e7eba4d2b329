// unique_slots: no two real tokens of different requests share a slot.
#include <unordered_map>

#include "invariants/invariants.h"

namespace slotguard {

void CheckUniqueSlots(const GroupRun& run, FindingSink* sink) {
  const int64_t real = run.batch().num_real_tokens();
  for (const OutputRun& out : run.outputs) {
    const std::vector<int64_t>& kernel = *out.kernel;
    std::unordered_map<int64_t, int64_t> first_token;  // slot -> first token writing it
    first_token.reserve(static_cast<size_t>(real));
    for (int64_t t = 0; t < real; ++t) {
      if (kernel[t] < 0) continue;
      auto [it, inserted] = first_token.emplace(kernel[t], t);
      if (inserted) continue;
      const int64_t other = it->second;
      if ((*run.request_of_token)[other] != (*run.request_of_token)[t])
        sink->Add(TokenFinding(run, out, "unique_slots", t,
                               "slot " + std::to_string(kernel[t]) + " also written by token " +
                                   std::to_string(other) + " of request " +
                                   std::to_string((*run.request_of_token)[other])));
    }
  }
}

}  // namespace slotguard
