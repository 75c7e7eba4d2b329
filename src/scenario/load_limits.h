// Caps on what one scenario may make slotguard allocate. Inputs over a cap
// are load errors (exit 2), each naming the flag that raises it.
#ifndef SLOTGUARD_SCENARIO_LOAD_LIMITS_H_
#define SLOTGUARD_SCENARIO_LOAD_LIMITS_H_

#include <cstdint>

namespace slotguard {

struct LoadLimits {
  int64_t max_tokens = int64_t{1} << 26;         // --max-tokens
  int64_t max_requests = int64_t{1} << 20;       // --max-requests
  int64_t max_table_entries = int64_t{1} << 26;  // --max-table-entries, per group, padded
  int64_t max_file_mib = 256;                    // --max-file-mib: the largest scenario file read
};

}  // namespace slotguard

#endif  // SLOTGUARD_SCENARIO_LOAD_LIMITS_H_
