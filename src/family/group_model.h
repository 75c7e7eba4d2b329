// A group's family as a model: its kind's model (family/kind_model.h), its
// parameters by name, its shape (the slots an entry names, the null block's
// extent, the columns a row must have, the outputs), the columns its
// requests read, its boundary values and the groups it reads, all from its
// family description (family/family_desc.h), which stays behind it: outside
// src/family/ nothing reads a FamilyDesc whole or tests a kind. What the
// loader reads and checks, what the writer and the wire formats carry, what
// plugins and compiled-kernel specs are handed, what the generator and the
// prover shape, and what the invariants address by.
#ifndef SLOTGUARD_FAMILY_GROUP_MODEL_H_
#define SLOTGUARD_FAMILY_GROUP_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "family/family_desc.h"
#include "family/family_plan.h"
#include "family/kind_model.h"
#include "registry/families.h"
#include "scenario/scenario.h"

namespace slotguard {

/// A family's model: its kind's model and what its description says that a
/// consumer reads (its parameters, constraints, knobs), with the
/// description itself private. Cheap to make (two lookups): make one where needed.
class FamilyModel {
 public:
  explicit FamilyModel(Family family);

  Family family() const { return family_; }
  const KindModel& kind() const { return *kind_; }
  const std::string& name() const;
  /// Its one-line meaning, and where it was read ("families/NAME.json (built in)").
  const std::string& meaning() const;
  const std::string& file() const;
  /// Its described variants (their names, meanings, upstream fixes and knobs).
  const std::vector<VariantDesc>& variants() const;
  const EngineRef& engine() const;
  const std::vector<ParamDesc>& params() const;
  /// Index of a parameter by name, or -1.
  int32_t FindParam(const std::string& name) const;
  const std::vector<ConstraintDesc>& constraints() const;
  /// Its extra inputs (docs/family-format.md, "Inputs"), in order.
  const std::vector<InputDesc>& inputs() const;
  /// Index of an input by name, or -1.
  int32_t FindInput(const std::string& name) const;
  /// The input whose value is each token's request ("owner": {"input": NAME}), or -1.
  int32_t OwnerInput() const;
  /// Every request of a batch with a group of it has one token (a decode step).
  bool one_token_per_request() const;
  /// The family's own knobs: the per-token mapping's (a per-request kind's
  /// outputs, page 1 entries and null page are there too) and the per-request ones.
  const MappingDesc& mapping() const;
  const RequestDesc& request() const;
  /// Plugin ABI 3's C strings of the parameter and output names.
  const std::vector<const char*>& param_name_ptrs() const;
  const std::vector<const char*>& output_name_ptrs() const;
  /// The formula variables with `params` filled in (the rest 0).
  std::vector<int64_t> ParamVars(const std::vector<int64_t>& params) const;

  // What the kind says about this family's description (KindModel).
  bool ragged_rows() const { return kind_->RaggedRows(desc_->mapping); }
  /// The same under `mapping` (a described variant's may set its own rows).
  bool RaggedRows(const MappingDesc& mapping) const { return kind_->RaggedRows(mapping); }
  /// The row request r reads: its own row r of a ragged table, else batch.row_of(r).
  int32_t RowOf(const Batch& batch, int32_t r) const { return ragged_rows() ? r : batch.row_of(r); }
  bool rows_guarded() const { return kind_->RowsGuarded(*desc_); }
  /// The group parameter naming the group whose slots its entries derive
  /// from (`entry` over `linked`), or -1 when it reads its table's columns.
  /// A derived group reads its source's rows: its table is its source's.
  int32_t derived_from() const { return desc_->mapping.derived() ? desc_->mapping.gate.param : -1; }
  bool reads_source_columns() const { return kind_->ReadsSourceColumns(*desc_); }
  NullPage null_page() const { return kind_->NullPageOf(*desc_); }
  /// Whether a dummy request reads its row in some output (a dummy rule
  /// "row"): a dummy run's stale rows would then be written through.
  bool dummies_read_rows() const;
  std::string Summary() const { return kind_->Summary(*desc_); }

 protected:
  const FamilyDesc& desc() const { return *desc_; }

 private:
  Family family_;
  const FamilyDesc* desc_;
  const KindModel* kind_;
};

/// A group's model: its family's, with the group's parameters and table.
/// Built once per group where a consumer asks more than one thing; it holds
/// the group by reference.
class GroupModel : public FamilyModel {
 public:
  explicit GroupModel(const Group& group);
  const Group& group() const { return *group_; }

  /// The elements of each output over `batch` (OutputLength); false with
  /// *why when the description's ops formula fails.
  bool OutputLength(const Batch& batch, int64_t* length, std::string* why) const;
  bool OutputLength(int64_t num_tokens, int64_t num_reqs, int64_t* length, std::string* why) const;
  /// Elements per request of each output (0: a slot per token; 1: a state
  /// index; ops: block operations); false when the ops formula fails.
  bool RequestElements(int64_t* elements, std::string* why) const;
  /// The reference: the description run over `batch` (the family's knobs,
  /// or, with `variant`, the group's variant's where it has described ones).
  bool Interpret(const Batch& batch, const int64_t* linked, bool with_facts, bool variant, Interpretation* out,
                 std::string* why) const;
  /// Each of the family's inputs over `batch`, in order: the batch's array,
  /// else the input's default (what a provider or a plugin is handed);
  /// false with *why when a default fails.
  bool InputValues(const Batch& batch, std::vector<std::vector<int64_t>>* values, std::string* why) const;
  /// The per-token plan of `mapping` (the family's or a variant's) over `batch`.
  bool MakePlan(const MappingDesc& mapping, const Batch& batch, GroupPlan* plan, std::string* why) const;
  /// The columns each request of `batch` reads with rows `width` wide (ColumnFn).
  bool ForEachColumn(const Batch& batch, int64_t width, const ColumnFn& fn) const;
  /// Per request of `batch`: the farthest column it reads + 1 (0: none),
  /// with rows as wide as that (a kind whose columns read the width grows
  /// them to what they address, leaving out a column at or past `far`;
  /// another kind's column counts as `far` there); false when the formulas
  /// cannot be bound to the batch.
  bool NeededColumns(const Batch& batch, int64_t far, std::vector<int64_t>* needed) const;

  // A per-request kind's ids (request_plan.h), with the group's parameters.
  bool IsNullIndex(int64_t index) const;
  bool ConsumerSkips(const ConsumerDesc& consumer, int64_t index) const;
  int64_t Marker() const;

  /// The group's comparison thresholds: a side of a comparison in its
  /// addressing formulas fixed for the group (the parameters, and the lets
  /// of them) that the other side crosses (unfiltered, unsorted).
  std::vector<int64_t> Thresholds() const;
  /// Whether every constraint of the family holds for the group's parameters.
  bool ConstraintsHold() const;

 private:
  const Group* group_;
};

/// Removes the batch's inputs no group's family declares (a generator or
/// shrinker that drops a group drops the inputs only it read).
void DropUndeclaredInputs(Scenario* s);

/// A parameter's value by name (0 when the family has no such parameter).
int64_t ParamOf(const Group& group, const std::string& name);
/// Sets a parameter by name (generators, tests); false when the family has
/// none. A group without parameters yet first gets its family's examples
/// and defaults (ExampleGroup).
bool SetParam(Group* group, const std::string& name, int64_t value);
/// Sets a group parameter (the name of the group it links to).
bool SetLink(Group* group, const std::string& name, const std::string& target);
/// A group parameter's value (the name of the group it links to, "" for none).
std::string LinkOf(const Group& group, const std::string& name);

/// A group of `family` named `name`: its fixed variant, every parameter at
/// its default, or its example where it has none, and no table.
Group ExampleGroup(Family family, const std::string& name);
/// Sizes params and links for the family and sets the defaults of the
/// parameters a file left out, in order (a default may read earlier ones).
void ApplyDefaults(Group* group, const std::vector<bool>& given);
/// The largest value of parameter `p` given the earlier ones (its max formula).
int64_t ParamMax(const Group& group, size_t p);
/// Whether parameter `p`'s max and (when `defaulted`) its default formula
/// have a value given the earlier parameters; false with *why naming the
/// formula and its error ("default 'a / b' has no value: division by
/// zero"), which a loader reports as the scenario's bad input instead of
/// running with a stand-in value.
bool ParamFormulasHold(const Group& group, size_t p, bool defaulted, std::string* why);

/// The family's own mapping (its fixed variant's): what the reference
/// computes and the invariants address by, whatever variant runs.
const MappingDesc& MappingOf(const Group& group);
/// The mapping whose writers write the group's pool when its kernel runs:
/// a described variant's (an engine's writers), else the family's.
const MappingDesc& WriterMappingOf(const Group& group);

/// The shape of a group: the description's group-level formulas evaluated.
struct GroupShape {
  int64_t page = 1;          // slots one table entry names
  int64_t manager_page = 1;  // slots of the null block
  int64_t null_entries = 1;  // entry ids below this name the null block
  int64_t min_width = 0;     // columns every row must have
};
GroupShape ShapeOf(const Group& group);

/// Slots one table entry names (the kernel block for paged, the ring page for the rings).
int64_t SlotsPerEntry(const Group& group);
/// Entries below this id name the null block: manager_page / page
/// (block_size / kernel_block_size for a hybrid paged group), else 1.
int64_t NullEntries(const Group& group);
/// Slots of the group's KV pool for the writers: num_blocks manager blocks
/// of manager_page slots each.
int64_t PoolSlots(int32_t num_blocks, const Group& group);
/// "block_size / kernel_block_size": the expression behind NullEntries.
std::string NullEntriesText(Family family);
/// Columns every row must have (a kernel reads them unguarded) and the
/// formula that says so ("capacity / ring_block_size").
int64_t MinWidth(const Group& group);
std::string MinWidthReason(Family family);
/// True when the family reads column 0 of a row and nothing else.
bool ReadsColumn0Only(Family family);
/// The outputs of a group, as files and reports name them: the group's name,
/// then "<name>.<output>" for each further output of its family.
std::vector<std::string> OutputNames(const Group& group);
int OutputCount(const Group& group);
int OutputCount(Family family);
/// What the family computes, and what that means (kind_model.h).
const KindModel& KindModelOf(const Group& group);
/// The elements of each output of the group over `batch`: num_tokens for a
/// slot mapping, num_reqs (times the operations per request) for the
/// per-request kinds; -1 when the description's ops formula fails.
int64_t OutputLength(const Group& group, const Batch& batch);

/// The top-level JSON keys of a family's groups, beside name, kernel,
/// variant and block_table ("dcp" once for its three rows).
std::vector<std::string> FamilyKeys(Family family);
/// The keys inside a nested object ("world", "rank", "interleave" of "dcp").
std::vector<std::string> NestedKeys(Family family, const std::string& top_key);
/// The JSON pointer of parameter p under a group's pointer ("/groups/0/dcp/world").
std::string ParamPointer(const std::string& group_pointer, const ParamDesc& p);

/// Every value the family's mapping formulas divide by or take a modulus
/// of that is fixed for the group (a parameter, a constant, a let of them):
/// the periods of its addressing, for the shrinker's context shifts and the
/// generator's boundary positions.
std::vector<int64_t> GroupDivisors(const Group& group);

/// Whether the family's formulas read the positions buffer (`pos`).
bool ReadsPositions(Family family);

/// True when the family reads another group's output (a group parameter):
/// such groups run after the groups they read.
bool ReadsAnotherGroup(Family family);
/// The index of the group parameter `param` names in the scenario, or -1.
int LinkedGroupIndex(const Scenario& scenario, const Group& group, int32_t param);
/// The gate's linked group, or -1 (absent from the scenario, or no gate).
int GateGroupIndex(const Scenario& scenario, const Group& group);
/// The linked group of output `output`'s writer gate (WriterMappingOf), or -1.
int WriterGateGroupIndex(const Scenario& scenario, const Group& group, int output);

}  // namespace slotguard

#endif  // SLOTGUARD_FAMILY_GROUP_MODEL_H_
