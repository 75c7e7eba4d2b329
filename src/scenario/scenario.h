// Scenario model: one batch of an engine step and the KV-cache groups whose
// slot mappings are checked on it. Plain data, no JSON: the loader
// (scenario_json.h) fills it, the runner consumes it.
#ifndef SLOTGUARD_SCENARIO_SCENARIO_H_
#define SLOTGUARD_SCENARIO_SCENARIO_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "registry/families.h"

namespace slotguard {

/// Slot value that tells a cache writer to skip the token.
constexpr int64_t kPadSlot = -1;

/// The engine state of one step (DESIGN section 2, notation). All defaults
/// are already derived by the loader: every vector has its full length.
struct Batch {
  std::vector<int32_t> query_start_loc;  // [num_reqs + 1], [0] == 0, non-decreasing
  std::vector<int32_t> seq_lens;         // [num_reqs]
  std::vector<int64_t> positions;        // [num_tokens]
  int64_t num_actual_tokens = 0;
  int64_t num_tokens = 0;
  std::vector<int32_t> idx_mapping;      // [num_reqs], -1 marks a dummy request
  std::vector<int64_t> slot_mapping_in;  // [num_tokens]

  int32_t num_reqs() const { return static_cast<int32_t>(query_start_loc.size()) - 1; }
  /// qsl[R]: the end of the real tokens.
  int64_t num_real_tokens() const { return query_start_loc.back(); }
};

/// A block table, row-major, one row per request.
struct BlockTable {
  int32_t rows = 0;
  int32_t width = 0;
  std::vector<int32_t> entries;  // [rows * width]

  int32_t at(int32_t row, int32_t col) const {
    return entries[static_cast<size_t>(row) * width + col];
  }
};

/// DCP (decode context parallel) placement of a paged group.
struct Dcp {
  int32_t world = 1;
  int32_t rank = 0;
  int32_t interleave = 1;
};
inline bool operator==(const Dcp& a, const Dcp& b) {
  return a.world == b.world && a.rank == b.rank && a.interleave == b.interleave;
}

/// One KV-cache group: a family's kernel, its parameters and its table.
/// The parameter members come from registry/family_params.def; only those
/// of `family` are meaningful.
struct Group {
  std::string name;
  Family family = Family::kPaged;
  Variant variant = Variant::kPagedFixed;
  BlockTable table;

#define SG_FIELD(type, member, initial) type member = initial;
#include "registry/family_params.def"
#undef SG_FIELD

  /// Kernel blocks per manager block (1 unless hybrid).
  int32_t blocks_per_manager_block() const { return block_size / kernel_block_size; }
};

enum class Verdict { kPass, kFinding };

struct Expect {
  bool present = false;
  Verdict verdict = Verdict::kPass;
  std::vector<std::string> findings;                        // invariant names that must fire
  std::map<std::string, std::vector<int64_t>> slot_mapping;  // golden output per group
};

struct Scenario {
  std::string name;
  std::string description;
  int32_t num_blocks = 0;
  Batch batch;
  std::vector<Group> groups;
  Expect expect;
};

bool operator==(const Scenario& a, const Scenario& b);
inline bool operator!=(const Scenario& a, const Scenario& b) { return !(a == b); }

}  // namespace slotguard

#endif  // SLOTGUARD_SCENARIO_SCENARIO_H_
