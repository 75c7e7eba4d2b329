// Minimizes a failing scenario, shape first: fewer requests, fewer groups,
// fewer tokens and columns, then smaller values (contexts, block ids, ring
// capacities). Each candidate is written and re-loaded by the strict loader
// (invalid ones are dropped) and kept only when it still fails.
#ifndef SLOTGUARD_FUZZING_SHRINK_H_
#define SLOTGUARD_FUZZING_SHRINK_H_

#include <functional>

#include "scenario/scenario.h"

namespace slotguard {

/// True when the candidate still fails the same way (same invariant).
using StillFails = std::function<bool(const Scenario&)>;

struct ShrinkStats {
  int attempts = 0;   // candidates tried
  int accepted = 0;   // candidates that still failed
};

Scenario Shrink(const Scenario& failing, const StillFails& still_fails, int max_attempts = 4000,
                ShrinkStats* stats = nullptr);

}  // namespace slotguard

#endif  // SLOTGUARD_FUZZING_SHRINK_H_
