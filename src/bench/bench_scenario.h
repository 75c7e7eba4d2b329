// Synthetic large batches for `slotguard bench`: ragged requests (1..1023
// tokens, decodes and prefill chunks) and one group of every family (paged
// block_size 16, rings of 128), every request on its own real blocks.
// Deterministic for a seed.
#ifndef SLOTGUARD_BENCH_BENCH_SCENARIO_H_
#define SLOTGUARD_BENCH_BENCH_SCENARIO_H_

#include <cstdint>

#include "scenario/scenario.h"

namespace slotguard {

Scenario MakeBenchScenario(int64_t num_tokens, uint64_t seed);

}  // namespace slotguard

#endif  // SLOTGUARD_BENCH_BENCH_SCENARIO_H_
