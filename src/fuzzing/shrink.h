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

/// True when shrinking must stop now (the campaign's deadline, a stop signal).
using ShrinkStop = std::function<bool()>;

/// The smallest scenario found that still fails; tries at most max_attempts
/// valid candidates, and none once `stop` says so (then *cut_short is set:
/// the result is the smallest found until then).
Scenario Shrink(const Scenario& failing, const StillFails& still_fails, int max_attempts = 4000,
                const ShrinkStop& stop = nullptr, bool* cut_short = nullptr);

}  // namespace slotguard

#endif  // SLOTGUARD_FUZZING_SHRINK_H_
