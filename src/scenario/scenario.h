// Scenario model: one batch of an engine step and the KV-cache groups whose
// slot mappings are checked on it. Plain data, no JSON: the loader
// (scenario_json.h) fills it, the runner consumes it.
#ifndef SLOTGUARD_SCENARIO_SCENARIO_H_
#define SLOTGUARD_SCENARIO_SCENARIO_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "scenario/found_by.h"

#include "registry/variant_ids.h"

namespace slotguard {

/// Slot value that tells a cache writer to skip the token.
constexpr int64_t kPadSlot = -1;

/// Whose row of a group's block table a request reads (format 2's
/// batch.table_rows).
enum class TableRows {
  kRequest,     // row r is request r's: the v1 runner's gathered table
  kIdxMapping,  // row idx_mapping[r] of a persistent table; a dummy reads none
};

/// How the runner lays a block table out in memory for the kernel (format
/// 2's table_layout; --table-layout overrides it). The entries are the same.
enum class TableLayoutKind {
  kPadded,   // poison columns (kPoisonBlock) after each row
  kTight,    // row stride == width: the next row follows directly
  kStrided,  // stride > width, real-looking block ids in between
};

/// Positions and seq_lens are below 2^62 (docs/families.md: int64).
constexpr int64_t kMaxPosition = (int64_t{1} << 62) - 1;

/// One extra input array of a batch (a family's "inputs",
/// docs/family-format.md): a value per request or per token.
struct BatchInput {
  bool per_token = false;
  std::vector<int64_t> values;  // [num_reqs] or [num_tokens]
  bool operator==(const BatchInput& o) const { return per_token == o.per_token && values == o.values; }
};

/// The engine state of one step (docs/families.md, "Notation"). All defaults
/// are already derived by the loader: every vector has its full length.
struct Batch {
  std::vector<int32_t> query_start_loc;  // [num_reqs + 1], [0] == 0, non-decreasing
  std::vector<int64_t> seq_lens;         // [num_reqs]
  std::vector<int64_t> positions;        // [num_tokens]
  int64_t num_actual_tokens = 0;
  int64_t num_tokens = 0;
  std::vector<int32_t> idx_mapping;      // [num_reqs], -1 marks a dummy request
  std::vector<int64_t> slot_mapping_in;  // [num_tokens]
  TableRows table_rows = TableRows::kRequest;
  /// The extra inputs the scenario gives, by name (format 2's
  /// batch.inputs); a family's input that is not here takes its default.
  std::map<std::string, BatchInput> inputs;
  /// A dummy run (format 2's batch.dummy_run): the engine ran this batch
  /// with no request at all (a warm-up, an idle data-parallel rank), so
  /// every request owns no state, whatever idx_mapping says; its rows are
  /// still read through row_of (an engine's dummies read the persistent
  /// row idx_mapping names).
  bool dummy_run = false;

  int32_t num_reqs() const { return static_cast<int32_t>(query_start_loc.size()) - 1; }
  /// qsl[R]: the end of the real tokens.
  int64_t num_real_tokens() const { return query_start_loc.back(); }
  /// The table row request r reads, or -1 when it reads none (a dummy
  /// request of a persistent table).
  int32_t row_of(int32_t r) const { return table_rows == TableRows::kRequest ? r : idx_mapping[r]; }
  /// Whether request r is a dummy: idx_mapping -1, or any request of a dummy run.
  bool is_dummy(int32_t r) const { return dummy_run || idx_mapping[r] == -1; }
  /// The row request r owns: none in a dummy run (its row_of is only read),
  /// else row_of(r).
  int32_t owned_row(int32_t r) const { return dummy_run ? -1 : row_of(r); }
};

/// A block table, row-major: one row per request, or (TableRows::kIdxMapping)
/// the persistent table's rows.
struct BlockTable {
  int32_t rows = 0;
  int32_t width = 0;             // the widest row
  std::vector<int32_t> entries;  // [rows * width]; a ragged row's missing entries hold -1
  /// Each row's own width, for a ragged table (a family whose rows are
  /// "csr"); empty when every row is `width` wide.
  std::vector<int32_t> lengths;

  int32_t at(int32_t row, int32_t col) const {
    return entries[static_cast<size_t>(row) * width + col];
  }
  int32_t row_width(int32_t row) const { return lengths.empty() ? width : lengths[row]; }
};

/// One KV-cache group: a family's kernel, its parameters and its table.
/// The parameters are the family description's (family/family_desc.h), in
/// its order: `params[p]` holds an integer or bool parameter's value,
/// `links[p]` a group parameter's (the name of another group, "" when the
/// scenario gives none). family/group_model.h reads them by name.
struct Group {
  std::string name;
  Family family = Family::kPaged;
  Variant variant = Variant::kPagedFixed;
  BlockTable table;
  std::vector<int64_t> params;
  std::vector<std::string> links;
};

enum class Verdict { kPass, kFinding };

struct Expect {
  bool present = false;
  Verdict verdict = Verdict::kPass;
  std::vector<std::string> findings;                        // invariant names that must fire
  std::vector<std::string> absent;                          // invariant names that must not fire (format 2)
  std::map<std::string, std::vector<int64_t>> slot_mapping;  // golden output per group
};

/// Where the engine zeroes block 0 of every pool in its CUDA-graph start-up
/// (format 2's graph.zero_null; docs/memory-and-graphs.md): `check
/// --cuda-graph` runs that zeroing in the same place of its sequence.
enum class ZeroNull : uint8_t {
  kNever,          // block 0 is zero at allocation only
  kBeforeCapture,  // before the capture (and its eager warm-up pass): vLLM V1
  kAfterCapture,   // after the capture, before the first replay: vLLM V2
};

/// What a scenario says of the engine's CUDA graphs (format 2's "graph").
struct GraphOptions {
  ZeroNull zero_null = ZeroNull::kNever;
  bool operator==(const GraphOptions& o) const { return zero_null == o.zero_null; }
  bool operator!=(const GraphOptions& o) const { return !(*this == o); }
};

struct Scenario {
  std::string name;
  std::string description;
  int32_t num_blocks = 0;
  TableLayoutKind table_layout = TableLayoutKind::kPadded;
  Batch batch;
  std::vector<Group> groups;
  Expect expect;
  FoundBy found_by;  // a fuzz reproducer's: how it was found (scenario/found_by.h)
  GraphOptions graph;  // read by `--cuda-graph` only
};

/// The format version a file needs: 2 once it uses a format-2 key.
int FormatVersion(const Scenario& s);
/// Names of the enums as files spell them.
const char* TableRowsName(TableRows rows);
const char* TableLayoutName(TableLayoutKind layout);
/// The names, in enum order (for loaders, flags and messages).
const std::vector<std::string>& TableRowsNames();
const std::vector<std::string>& TableLayoutNames();
/// graph.zero_null's names, in enum order: never, before_capture, after_capture.
const std::vector<std::string>& ZeroNullNames();
const char* ZeroNullName(ZeroNull zero);

bool operator==(const Scenario& a, const Scenario& b);
inline bool operator!=(const Scenario& a, const Scenario& b) { return !(a == b); }

}  // namespace slotguard

#endif  // SLOTGUARD_SCENARIO_SCENARIO_H_
