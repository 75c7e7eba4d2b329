// Caps on what one scenario may make slotguard allocate. Inputs over a cap
// are load errors (exit 2), each naming the flag that raises it.
#ifndef SLOTGUARD_SCENARIO_LOAD_LIMITS_H_
#define SLOTGUARD_SCENARIO_LOAD_LIMITS_H_

#include <cstdint>

#include "scenario/memory_estimate.h"

namespace slotguard {

struct LoadLimits {
  int64_t max_tokens = int64_t{1} << 26;         // --max-tokens
  int64_t max_requests = int64_t{1} << 20;       // --max-requests
  int64_t max_table_entries = int64_t{1} << 26;  // --max-table-entries, per group, padded
  int64_t max_file_mib = 256;                    // --max-file-mib: the largest scenario file read
  /// --max-memory-mib: the most that parsing one scenario, or checking it,
  /// may take (scenario/memory_estimate.h); -j N checks N at once.
  int64_t max_memory_mib = 1024;
  RunFootprint footprint;  // what the run does with it (the commands set it from their backend)

  /// --max-memory-mib in bytes (saturated).
  int64_t max_memory_bytes() const { return max_memory_mib > (INT64_MAX >> 20) ? INT64_MAX : max_memory_mib << 20; }
};

}  // namespace slotguard

#endif  // SLOTGUARD_SCENARIO_LOAD_LIMITS_H_
