// Minimizes a failing scenario, shape first: fewer requests, fewer groups,
// fewer tokens and columns, then smaller values (contexts, block ids, ring
// capacities). Sizes shrink by binary search towards the boundary that makes
// the finding: each request's length (from its end and from its start), the
// padding and each context are cut to the smallest size that still fails,
// in a logarithmic number of candidates (a bug past a 1024-token tile ends
// at 1025 tokens). Each candidate is written and re-loaded by the strict
// loader (invalid ones are dropped) and kept only when it still fails.
#ifndef SLOTGUARD_FUZZING_SHRINK_H_
#define SLOTGUARD_FUZZING_SHRINK_H_

#include <functional>

#include "scenario/scenario.h"

namespace slotguard {

/// True when the candidate still fails the same way (same invariant).
using StillFails = std::function<bool(const Scenario&)>;

/// True when shrinking must stop now (the campaign's deadline, a stop signal).
using ShrinkStop = std::function<bool()>;

struct ShrinkOptions {
  int max_attempts = 4000;  // valid candidates tried at most
  /// Called after every valid candidate, with the smallest failing scenario
  /// so far and the candidates tried: a status line's source.
  std::function<void(const Scenario& smallest, int attempts)> on_attempt;
  /// No candidate is tried once it says so; the result is then the smallest
  /// found until then, and *cut_short is set.
  ShrinkStop stop;
};

/// The smallest scenario found that still fails.
Scenario Shrink(const Scenario& failing, const StillFails& still_fails, const ShrinkOptions& options,
                bool* cut_short = nullptr);
/// The same, trying at most max_attempts valid candidates, and none once
/// `stop` says so (then *cut_short is set).
Scenario Shrink(const Scenario& failing, const StillFails& still_fails, int max_attempts = 4000,
                const ShrinkStop& stop = nullptr, bool* cut_short = nullptr);

}  // namespace slotguard

#endif  // SLOTGUARD_FUZZING_SHRINK_H_
