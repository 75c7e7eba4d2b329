// What a family's kind means to everything that runs, checks, generates or
// carries a group of it (docs/architecture.md, "A new kind"): one model per
// kind, one file each (kind_slot_mapping.cc, kind_state_index.cc,
// kind_block_op.cc, kind_table_producer.cc), each a line of kinds.def. A
// consumer asks the model instead of testing the kind:
// how long an output is and what its elements are, which columns a request
// reads (what sizes the rows for the generator, the prover and the loader),
// whether a cache writer writes through it, its wire kind for plugin ABI 3
// and the provider protocol, its boundary values, its knobs and how they are
// read, and which invariants judge it (its bit in invariants.def's kinds
// column). The interpreters the model
// runs are the references (family_plan.h, request_plan.h); no kernel header
// is read here.
#ifndef SLOTGUARD_FAMILY_KIND_MODEL_H_
#define SLOTGUARD_FAMILY_KIND_MODEL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "family/family_desc.h"
#include "family/family_plan.h"
#include "scenario/scenario.h"

namespace slotguard {

class KnobReader;

/// Calls fn(r, column, source, selected) for each column request r reads:
/// every token's (selected: whether its select holds) for a slot mapping;
/// the state index's column, or each operation's source then destination,
/// for the per-request kinds (source: an operation's source column).
using ColumnFn = std::function<void(int32_t r, int64_t column, bool source, bool selected)>;

/// Which boundary values: the divisors (a period of the addressing) or the
/// comparison thresholds.
enum class BoundaryKind { kDivisors, kThresholds };

class KindModel {
 public:
  virtual ~KindModel() = default;

  /// The kind, and its name in a description's "kind" and in `list`.
  virtual FamilyKind kind() const = 0;
  virtual const char* name() const = 0;
  /// Its bit in the invariants table's kinds column (1 << its line in
  /// kinds.def): the invariants that judge it.
  uint32_t invariant_bit() const { return KindBit(kind()); }
  /// The knobs a description of the kind has (top-level keys beside
  /// family_file.cc's own), and what a variant's "set" may name.
  virtual const std::vector<std::string>& knobs() const = 0;
  /// Reads its knobs of `obj` (the description's top level at ptr "", or a
  /// variant's "set": `variant`, where a knob left out keeps the family's)
  /// into *mapping (a slot per token) or *request (the per-request kinds),
  /// with the loader's checks and messages (family/knob_reader.h).
  virtual bool ReadKnobs(KnobReader& reader, const nlohmann::json& obj, const std::string& ptr, bool variant,
                         MappingDesc* mapping, RequestDesc* request) const = 0;

  // --- The output: its length and what an element is.
  /// True when an element of an output belongs to a request (and one of its
  /// operations), false when it belongs to a token. A request-indexed output
  /// does not grow with padding tokens, and row_bounds does not judge it.
  virtual bool per_request() const = 0;
  /// Elements per request of each output: 0 for a per-token output, 1 for a
  /// state index, the ops formula's value for block operations (false with
  /// *why when it fails or is out of range).
  virtual bool RequestElements(const FamilyDesc& d, const RequestDesc& request, const std::vector<int64_t>& params,
                                  int64_t width, int64_t* elements, std::string* why) const = 0;
  /// The elements of each output over a batch of `num_tokens` tokens and
  /// `num_reqs` requests.
  bool OutputLength(const FamilyDesc& d, const RequestDesc& request, const std::vector<int64_t>& params,
                    int64_t width, int64_t num_tokens, int64_t num_reqs, int64_t* length, std::string* why) const;
  /// The length in words, for the loader's messages ("num_tokens").
  virtual const char* length_text() const = 0;
  /// One line of `slotguard list` about what it computes ("" for a slot mapping,
  /// whose outputs and writers have lines of their own).
  virtual std::string Summary(const FamilyDesc& d) const = 0;
  /// The detail of a pad_marker finding: an element that must hold what the
  /// reference gives a row without state (`expected`).
  virtual std::string MarkerText(bool owns_none, int64_t expected) const = 0;

  // --- Interpretation: the reference (family_plan.h, request_plan.h).
  /// Runs the description (with `mapping` / `request`: the family's, or a
  /// described variant's) over the batch and table; `linked` is the gate's
  /// group output, or nullptr.
  virtual bool Interpret(const FamilyDesc& d, const MappingDesc& mapping, const RequestDesc& request,
                         const std::vector<int64_t>& params, const Batch& batch, const BlockTable& table,
                         const int64_t* linked, bool with_facts, Interpretation* out, std::string* why) const = 0;

  // --- The columns a request reads: what sizes the rows.
  /// Calls fn for every column each request of `batch` reads with rows
  /// `width` wide, whatever the range rule does with it; false when the
  /// description's formulas cannot be bound to the batch.
  virtual bool ForEachColumn(const FamilyDesc& d, const std::vector<int64_t>& params, const Batch& batch,
                             int64_t width, const ColumnFn& fn) const = 0;
  /// Whether the columns read depend on the row's width (a formula reads
  /// `width`): a caller grows the rows to what they address.
  virtual bool columns_read_width() const = 0;
  /// Whether a column past the row is guarded (the range rule pads or
  /// clamps it), so rows may be narrower than what requests address. A
  /// per-request kind's live request must find its columns.
  virtual bool RowsGuarded(const FamilyDesc& d) const = 0;
  /// Whether a token's read past its row goes unguarded under `mapping`
  /// (range "none": an engine variant without its range guard), so the
  /// description's own run records it for row_bounds.
  virtual bool ReadsPastRows(const MappingDesc& mapping) const = 0;
  /// Whether request r reads its own ragged row (CSR: indptr, indices)
  /// rather than row r / idx_mapping[r] of a table, under `mapping` (the
  /// family's, or a described variant's: a variant may set "rows").
  virtual bool RaggedRows(const MappingDesc& mapping) const = 0;
  /// Whether block operations read sources from rows where a live request
  /// may hold a null id (the prover's null-source state).
  virtual bool ReadsSourceColumns(const FamilyDesc& d) const = 0;

  // --- The cache.
  /// Whether cache writers write K/V through its outputs (a slot per
  /// token); a per-request kind has no KV pool (its consumers' writes are
  /// judged from the indices).
  virtual bool writes_cache() const = 0;
  /// Whether slotguard's GPU path can run a group of it (else host only).
  virtual bool runs_on_gpu() const = 0;
  /// The null page policy its description gives.
  virtual NullPage NullPageOf(const FamilyDesc& d) const = 0;

  // --- The wire.
  /// Plugin ABI 3's sg_mapping_call.kind: a number of its own, stable once
  /// shipped (include/slotguard/plugin.h names the kinds' numbers for C).
  virtual int32_t abi_kind() const = 0;
  /// Its bit in the provider protocol's HELLO flags (0: none, a slot
  /// mapping; python/slotguard/protocol.py names them for Python).
  virtual uint32_t protocol_flag() const = 0;

  // --- Boundaries.
  /// The lets of its addressing formulas, in order.
  virtual std::vector<const LetDesc*> Lets(const FamilyDesc& d) const = 0;
  /// The formulas its boundary values come from, lets first: the divisors'
  /// (what addresses, with a slot mapping's pad_entry test) or the
  /// thresholds' (what addresses, with a block operation's ops count).
  virtual std::vector<const Expr*> BoundaryFormulas(const FamilyDesc& d, BoundaryKind which) const = 0;
};

/// The models of the kinds, by FamilyKind (kinds.def's table).
const KindModel& KindModelOf(FamilyKind kind);
/// Every kind's model, in FamilyKind order.
const std::vector<const KindModel*>& AllKindModels();

// One per kind file: SlotMappingModel(), StateIndexModel(), ...
#define SG_KIND(id) const KindModel& id##Model();
#include "family/kinds.def"
#undef SG_KIND

}  // namespace slotguard

#endif  // SLOTGUARD_FAMILY_KIND_MODEL_H_
