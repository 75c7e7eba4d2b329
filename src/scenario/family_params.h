// The family parameter table (registry/family_params.def) as data: what the
// loader reads and checks, what the writer and the wire format carry, what
// plugins and compiled-kernel specs are handed, and each family's shape.
#ifndef SLOTGUARD_SCENARIO_FAMILY_PARAMS_H_
#define SLOTGUARD_SCENARIO_FAMILY_PARAMS_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace slotguard {

/// The default of a parameter that a file must give.
constexpr int64_t kRequiredParam = std::numeric_limits<int64_t>::min();

enum class ParamKind {
  kInt,      // an integer in a range
  kBool,     // true or false
  kGroup,    // the name of another group of the scenario
  kDerived,  // not in files: computed from the others after loading
};

/// Where a parameter lives in a Group: exactly one pointer is set.
struct ParamRef {
  int32_t* i = nullptr;
  bool* b = nullptr;
  std::string* s = nullptr;
};

struct ParamInfo {
  Family family;
  ParamKind kind;
  const char* key;  // JSON key under the group, "dcp/world" for a nested one; "" when derived
  int64_t min;
  int64_t (*max)(const Group& g);            // inclusive; earlier rows already read
  int64_t (*default_value)(const Group& g);  // kRequiredParam: the key is required
  const char* divides;                       // key of the parameter it divides, or ""
  const char* times;                         // key of the parameter whose product with it fits int32, or ""
  const char* plugin_field;                  // sg_mapping_call member ("paged.dcp_world"), or ""
  int64_t example;
  bool shrinks;              // the minimizer halves it towards min
  const char* max_text;      // the max and default as the table writes them ("g.block_size")
  const char* default_text;
  Family target;  // kGroup: the family of the group it names
  const char* meaning;
  ParamRef (*ref)(Group& g);

  /// The top-level key ("dcp" for "dcp/world") and the last one ("world").
  std::string top_key() const;
  std::string leaf_key() const;
  bool nested() const;
  /// The compiled-kernel spec's name: the plugin field's last name ("dcp_world").
  std::string spec_name() const;
};

/// The max and default in words for docs: "block_size", "dcp.world - 1",
/// "2147483647", "required".
std::string MaxText(const ParamInfo& param);
std::string DefaultText(const ParamInfo& param);

/// A plugin field's last name: "paged.dcp_world" -> "dcp_world".
std::string SpecNameOf(const std::string& plugin_field);

/// Every row, table order.
const std::vector<ParamInfo>& AllParams();
/// The rows of one family, table order.
const std::vector<const ParamInfo*>& ParamsOf(Family family);
/// The row of `family` at `key`, or nullptr.
const ParamInfo* FindParam(Family family, const std::string& key);
/// The top-level JSON keys of a family's groups, beside name, kernel,
/// variant and block_table ("dcp" once for its three rows).
std::vector<std::string> FamilyKeys(Family family);
/// The keys inside a nested object ("world", "rank", "interleave" of "dcp").
std::vector<std::string> NestedKeys(Family family, const std::string& top_key);

/// A parameter's value in `group` (an int or bool; 0 for a group name).
int64_t ParamValue(const ParamInfo& param, const Group& group);
inline ParamRef ConstRef(const ParamInfo& param, const Group& group) {
  return param.ref(const_cast<Group&>(group));
}

/// True when the family reads another group's output (it has a group
/// parameter: qsa_compressed's `common`); such groups run after the others.
bool ReadsAnotherGroup(Family family);
/// The name that group parameter holds in `group`, "" when none.
std::string ReadGroupName(const Group& group);

/// Sets every derived parameter of `group` from the others.
void DeriveParams(Group* group);

// --- the family's shape -------------------------------------------------

/// Slots one table entry names (SG_FAMILY_SHAPE's slots_per_entry: the
/// kernel block for paged, the ring page for the rings).
int64_t SlotsPerEntry(const Group& group);
/// Entries below this id name the null block: block_size / kernel_block_size
/// for a hybrid paged group (manager block 0), else 1.
int64_t NullEntries(const Group& group);
/// Slots of the group's KV pool for the writers: num_blocks manager blocks
/// of SlotsPerEntry * NullEntries slots each.
int64_t PoolSlots(int32_t num_blocks, const Group& group);
/// "block_size / kernel_block_size": the expression behind NullEntries.
std::string NullEntriesText(Family family);
/// Columns every row must have (the ring kernels read them unguarded) and
/// which ones those are ("column 0 is read").
int64_t MinWidth(const Group& group);
const char* MinWidthReason(Family family);
/// True when the kernel reads column 0 of a row and nothing else.
bool ReadsColumn0Only(Family family);
/// The outputs of a group, as files and reports name them: the group's name,
/// then "<name>.tail" for a family with a tail output.
std::vector<std::string> OutputNames(const Group& group);
int OutputCount(const Group& group);
int OutputCount(Family family);

}  // namespace slotguard

#endif  // SLOTGUARD_SCENARIO_FAMILY_PARAMS_H_
