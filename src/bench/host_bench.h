// `bench`'s host figure: one token-check is one token of one output buffer
// through the backend (both geometries), the reference and every
// invariant, per CPU second of the process (bench/cpu_clock.h).
#ifndef SLOTGUARD_BENCH_HOST_BENCH_H_
#define SLOTGUARD_BENCH_HOST_BENCH_H_

#include <cstddef>
#include <string>

#include "backend/backend.h"
#include "scenario/scenario.h"

namespace slotguard {

struct HostBenchRow {
  std::string name;         // the family, "+paged" when it needs its common group
  double seconds = 0;       // CPU seconds, best of 3, the description interpreted as the reference
  double hand_seconds = 0;  // CPU seconds, best of 3, the hand-written reference (without the facts, so without live_maps)
  double token_checks = 0;  // per run
};

/// Times group `group` of `all` (a MakeBenchScenario batch) alone, with the
/// paged group qsa_compressed reads as its common mapping: the check
/// through the interpreted description, and through the hand-written
/// reference, in alternating runs. False with *err when the backend fails
/// a run (an environment error).
bool BenchHostGroup(const Scenario& all, size_t group, Backend& backend, HostBenchRow* row, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_BENCH_HOST_BENCH_H_
