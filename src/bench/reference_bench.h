// The interpreter against the hand-written references (reference/), on
// generated scenarios: a cross-check that they agree bit for bit, and how
// fast each computes the reference (`slotguard bench --references N`,
// scripts/reference-crosscheck.sh).
#ifndef SLOTGUARD_BENCH_REFERENCE_BENCH_H_
#define SLOTGUARD_BENCH_REFERENCE_BENCH_H_

#include <cstdint>
#include <string>

#include "backend/backend.h"
#include "registry/families.h"

namespace slotguard {

struct ReferenceBenchRow {
  std::string family;
  int64_t scenarios = 0;
  int64_t groups = 0;      // groups of the family compared
  int64_t tokens = 0;      // token-outputs compared
  int64_t mismatches = 0;  // groups whose outputs differ
  std::string first;       // the first mismatch, in words (seed, group, token, both values)
  double interpreter_seconds = 0;  // every group of every scenario, with the invariants' facts
  double hand_seconds = 0;         // the same groups through the hand-written references
  // The host campaign's work per scenario (generate, run on the backend,
  // reference, every invariant), with either reference.
  int64_t campaign_scenarios = 0;
  double campaign_interpreter_seconds = 0;  // CPU seconds (bench/cpu_clock.h)
  double campaign_hand_seconds = 0;
};

/// Generates `scenarios` scenarios of `family` (and the groups it reads)
/// from `seed`, every other one inconsistent, and compares every group of a
/// family with a hand-written reference. With a backend, also times the
/// campaign's work on every `campaign_every`-th scenario, once checked
/// through each reference (the hand-written one without the interpreter's
/// facts: ReferenceSource::kHandWritten). False with *err when the family
/// has none or the backend fails.
bool CompareReferences(Family family, int64_t scenarios, uint64_t seed, Backend* backend, int64_t campaign_every,
                       ReferenceBenchRow* row, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_BENCH_REFERENCE_BENCH_H_
