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

/// The smallest scenario found that still fails; tries at most max_attempts
/// valid candidates.
Scenario Shrink(const Scenario& failing, const StillFails& still_fails, int max_attempts = 4000);

}  // namespace slotguard

#endif  // SLOTGUARD_FUZZING_SHRINK_H_
