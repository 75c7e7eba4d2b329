// A group's family as data: its parameters by name, its shape (the slots
// an entry names, the null block's extent, the columns a row must have,
// the outputs) and the groups it reads, all from its family description
// (family/family_desc.h). What the loader reads and checks, what the
// writer and the wire formats carry, what plugins and compiled-kernel specs
// are handed, and what the invariants address by.
#ifndef SLOTGUARD_SCENARIO_FAMILY_PARAMS_H_
#define SLOTGUARD_SCENARIO_FAMILY_PARAMS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "family/family_desc.h"
#include "registry/families.h"
#include "scenario/scenario.h"

namespace slotguard {

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
inline const MappingDesc& MappingOf(const Group& group) { return DescOf(group.family).mapping; }
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
/// What the family computes: a slot per token, or per request (a state
/// index, block operations).
inline FamilyKind KindOf(const Group& group) { return DescOf(group.family).kind; }
inline bool PerRequest(const Group& group) { return KindOf(group) != FamilyKind::kSlotMapping; }
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

#endif  // SLOTGUARD_SCENARIO_FAMILY_PARAMS_H_
