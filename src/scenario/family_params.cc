#include "scenario/family_params.h"

#include <algorithm>

namespace slotguard {
namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

ParamRef RefTo(int32_t* p) { return {p, nullptr, nullptr}; }
ParamRef RefTo(bool* p) { return {nullptr, p, nullptr}; }
ParamRef RefTo(std::string* p) { return {nullptr, nullptr, p}; }

int64_t NoBound(const Group&) { return 0; }

struct ShapeInfo {
  Family family;
  int64_t (*slots_per_entry)(const Group& g);
  int64_t (*null_entries)(const Group& g);
  const char* null_entries_text;
  int64_t (*min_width)(const Group& g);
  const char* min_width_reason;
  bool column0_only;
  bool tail;
};

const ShapeInfo& Shape(Family family) {
  static const ShapeInfo shapes[] = {
#define SG_FAMILY_SHAPE(id, slots, nulls, width, why, column0, tail)                                         \
  {Family::k##id, [](const Group& g) -> int64_t { return slots; }, [](const Group& g) -> int64_t { (void)g; return nulls; }, \
   #nulls, [](const Group& g) -> int64_t { (void)g; return width; }, why, column0 != 0, tail != 0},
#include "registry/family_params.def"
#undef SG_FAMILY_SHAPE
  };
  static_assert(sizeof(shapes) / sizeof(shapes[0]) == kFamilyCount, "one SG_FAMILY_SHAPE per family");
  // Indexed by the row's own family, whatever the rows' order.
  static const std::vector<ShapeInfo> by_family = [] {
    std::vector<ShapeInfo> out(kFamilyCount);
    for (const ShapeInfo& shape : shapes) out[static_cast<int>(shape.family)] = shape;
    return out;
  }();
  return by_family[static_cast<int>(family)];
}

}  // namespace

const std::vector<ParamInfo>& AllParams() {
  static const std::vector<ParamInfo> params = {
#define SG_INT_PARAM(id, member, key, lo, hi, def, divides, times, plugin, example, shrinks, meaning)                      \
  {Family::k##id, ParamKind::kInt, key, lo, [](const Group& g) -> int64_t { (void)g; return hi; },                 \
   [](const Group& g) -> int64_t { (void)g; return def; }, divides, times, #plugin, example, shrinks != 0,     \
   #hi, #def,                                                                                                  \
   Family::k##id, meaning,                                                                                     \
   [](Group& g) { return RefTo(&g.member); }},
#define SG_BOOL_PARAM(id, member, key, def, plugin, meaning)                                                   \
  {Family::k##id, ParamKind::kBool, key, 0, NoBound, [](const Group&) -> int64_t { return def ? 1 : 0; }, "", "", \
   #plugin, def ? 1 : 0, false, "", #def, Family::k##id, meaning, [](Group& g) { return RefTo(&g.member); }},
#define SG_GROUP_PARAM(id, member, key, target_id, plugin, meaning)                                               \
  {Family::k##id, ParamKind::kGroup, key, 0, NoBound, NoBound, "", "", #plugin, 0, false, "", "", Family::k##target_id,   \
   meaning,                                                                                                      \
   [](Group& g) { return RefTo(&g.member); }},
#define SG_DERIVED_PARAM(id, member, value)                                                                    \
  {Family::k##id, ParamKind::kDerived, "", 0, NoBound, [](const Group& g) -> int64_t { return value; }, "", "", \
   "", 0, false, "", #value, Family::k##id, "", [](Group& g) { return RefTo(&g.member); }},
#include "registry/family_params.def"
#undef SG_INT_PARAM
#undef SG_BOOL_PARAM
#undef SG_GROUP_PARAM
#undef SG_DERIVED_PARAM
  };
  return params;
}

std::string ParamInfo::top_key() const {
  const std::string k = key;
  return k.substr(0, k.find('/'));
}

std::string ParamInfo::leaf_key() const {
  const std::string k = key;
  return k.substr(k.rfind('/') + 1);
}

bool ParamInfo::nested() const { return std::string(key).find('/') != std::string::npos; }

std::string SpecNameOf(const std::string& plugin_field) { return plugin_field.substr(plugin_field.rfind('.') + 1); }

std::string ParamInfo::spec_name() const { return SpecNameOf(plugin_field); }

const std::vector<const ParamInfo*>& ParamsOf(Family family) {
  // Built once: the backends ask for every group of every scenario.
  static const std::vector<std::vector<const ParamInfo*>> by_family = [] {
    std::vector<std::vector<const ParamInfo*>> out(kFamilyCount);
    for (const ParamInfo& p : AllParams()) out[static_cast<int>(p.family)].push_back(&p);
    return out;
  }();
  return by_family[static_cast<int>(family)];
}

const ParamInfo* FindParam(Family family, const std::string& key) {
  for (const ParamInfo& p : AllParams())
    if (p.family == family && key == p.key) return &p;
  return nullptr;
}

std::vector<std::string> FamilyKeys(Family family) {
  std::vector<std::string> keys;
  for (const ParamInfo* p : ParamsOf(family)) {
    if (p->kind == ParamKind::kDerived) continue;
    const std::string top = p->top_key();
    if (std::find(keys.begin(), keys.end(), top) == keys.end()) keys.push_back(top);
  }
  return keys;
}

std::vector<std::string> NestedKeys(Family family, const std::string& top_key) {
  std::vector<std::string> keys;
  for (const ParamInfo* p : ParamsOf(family))
    if (p->kind != ParamKind::kDerived && p->nested() && p->top_key() == top_key) keys.push_back(p->leaf_key());
  return keys;
}

int64_t ParamValue(const ParamInfo& param, const Group& group) {
  const ParamRef ref = ConstRef(param, group);
  if (ref.i) return *ref.i;
  if (ref.b) return *ref.b ? 1 : 0;
  return 0;
}

bool ReadsAnotherGroup(Family family) {
  static const std::vector<bool> reads = [] {
    std::vector<bool> out(kFamilyCount, false);
    for (const ParamInfo& p : AllParams())
      if (p.kind == ParamKind::kGroup) out[static_cast<int>(p.family)] = true;
    return out;
  }();
  return reads[static_cast<int>(family)];
}

std::string ReadGroupName(const Group& group) {
  for (const ParamInfo* p : ParamsOf(group.family))
    if (p->kind == ParamKind::kGroup) return *ConstRef(*p, group).s;
  return "";
}

void DeriveParams(Group* group) {
  for (const ParamInfo* p : ParamsOf(group->family))
    if (p->kind == ParamKind::kDerived) *p->ref(*group).i = static_cast<int32_t>(p->default_value(*group));
}

int64_t SlotsPerEntry(const Group& group) { return Shape(group.family).slots_per_entry(group); }
int64_t NullEntries(const Group& group) { return Shape(group.family).null_entries(group); }
int64_t PoolSlots(int32_t num_blocks, const Group& group) {
  return int64_t{num_blocks} * SlotsPerEntry(group) * NullEntries(group);
}
namespace {

/// A table expression in words: "g.block_size / g.kernel_block_size" ->
/// "block_size / kernel_block_size", kInt32Max -> 2147483647.
std::string ExpressionText(std::string text) {
  for (size_t at; (at = text.find("g.")) != std::string::npos;) text.erase(at, 2);
  if (text == "kInt32Max") return std::to_string(kInt32Max);
  if (text == "kRequiredParam") return "required";
  if (text == "1 << 16") return std::to_string(1 << 16);
  return text;
}

}  // namespace

std::string NullEntriesText(Family family) { return ExpressionText(Shape(family).null_entries_text); }
std::string MaxText(const ParamInfo& param) { return ExpressionText(param.max_text); }
std::string DefaultText(const ParamInfo& param) { return ExpressionText(param.default_text); }
int64_t MinWidth(const Group& group) { return Shape(group.family).min_width(group); }
const char* MinWidthReason(Family family) { return Shape(family).min_width_reason; }
bool ReadsColumn0Only(Family family) { return Shape(family).column0_only; }

std::vector<std::string> OutputNames(const Group& group) {
  if (Shape(group.family).tail) return {group.name, group.name + ".tail"};
  return {group.name};
}

int OutputCount(Family family) { return Shape(family).tail ? 2 : 1; }
int OutputCount(const Group& group) { return OutputCount(group.family); }

}  // namespace slotguard
