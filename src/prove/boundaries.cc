#include "prove/boundaries.h"

#include <algorithm>
#include <limits>

#include "family/family_desc.h"
#include "family/group_model.h"
#include "family/shape_lists.h"

namespace slotguard {
namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

/// The shape list's source of a scope's parameter class (kTiles: none).
bool SourceOf(ParamClass c, ParamSource* source) {
  switch (c) {
    case ParamClass::kMin: *source = ParamSource::kMin; return true;
    case ParamClass::kNext: *source = ParamSource::kNext; return true;
    case ParamClass::kExample: *source = ParamSource::kExample; return true;
    case ParamClass::kDefault: *source = ParamSource::kDefault; return true;
    case ParamClass::kMax: *source = ParamSource::kMax; return true;
    case ParamClass::kDivisors: *source = ParamSource::kDivisor; return true;
    case ParamClass::kBeside: *source = ParamSource::kBoundary; return true;
    case ParamClass::kNonPowerOfTwo: *source = ParamSource::kNonPowerOfTwo; return true;
    case ParamClass::kLarge: *source = ParamSource::kLarge; return true;
    case ParamClass::kTiles: return false;
  }
  return false;
}

/// Parameter p's boundary set given the earlier parameters (in `g`): the
/// values of its shape list (family/shape_lists.h) the scope's classes
/// name (of the large values, the smallest), and the scope's tiles.
std::vector<int64_t> Candidates(const Group& g, size_t p, const ScopePart& scope) {
  const FamilyModel model(g.family);
  const std::vector<ParamDesc>& params = model.params();
  const ParamDesc& param = params[p];
  if (param.type == ParamType::kBool) return {0, 1};
  const std::vector<ParamValue> listed = ParamValues(g, p);
  std::vector<int64_t> values;
  const int64_t lo = param.min, hi = ParamMax(g, p);
  const int64_t whole = param.divides.empty() ? 0 : g.params[static_cast<size_t>(model.FindParam(param.divides))];
  for (ParamClass c : scope.params) {
    ParamSource source;
    if (SourceOf(c, &source)) {
      for (const ParamValue& v : listed)
        if (v.source == source) {
          values.push_back(v.value);
          if (source == ParamSource::kLarge) break;
        }
    } else {
      for (int64_t t : scope.tiles) {
        values.push_back(t);
        values.push_back(t + 1);
      }
    }
  }
  values.erase(std::remove_if(values.begin(), values.end(),
                              [&](int64_t v) { return v < lo || v > hi || (whole > 0 && whole % v != 0); }),
               values.end());
  if (values.empty()) {
    // No class gives a value in range: the example (the default where the
    // description gives one), as any scenario would have it.
    Group example = g;
    std::vector<bool> given(params.size(), false);
    for (size_t q = 0; q < p; ++q) given[q] = true;
    if (param.default_value.empty()) {
      example.params[p] = std::min(std::max(param.example, lo), hi);
      given[p] = true;
    }
    ApplyDefaults(&example, given);
    values.push_back(example.params[p]);
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

bool Acceptable(const Group& g) {
  const GroupModel model(g);
  if (!model.ConstraintsHold()) return false;
  const std::vector<ParamDesc>& params = model.params();
  for (size_t p = 0; p < params.size(); ++p)
    if (params[p].is_int() && (g.params[p] < params[p].min || g.params[p] > ParamMax(g, p))) return false;
  const GroupShape shape = ShapeOf(g);
  return shape.page >= 1 && shape.manager_page % shape.page == 0 && shape.min_width <= kMaxProveWidth &&
         shape.null_entries <= kMaxProveWidth;
}

void Expand(Group* g, size_t p, const ScopePart& scope, std::vector<std::vector<int64_t>>* out) {
  const std::vector<ParamDesc>& params = FamilyModel(g->family).params();
  if (p == params.size()) {
    if (Acceptable(*g)) out->push_back(g->params);
    return;
  }
  if (params[p].type == ParamType::kGroup) {
    Expand(g, p + 1, scope, out);
    return;
  }
  // The later parameters at their defaults while this one's set is taken
  // (a max or a default of this one reads only earlier ones).
  for (int64_t v : Candidates(*g, p, scope)) {
    g->params[p] = v;
    std::vector<bool> given(params.size(), false);
    for (size_t q = 0; q <= p; ++q) given[q] = true;
    ApplyDefaults(g, given);
    Expand(g, p + 1, scope, out);
  }
}

}  // namespace

std::vector<std::vector<int64_t>> ParamTuples(Family family, const ScopePart& scope) {
  Group g = ExampleGroup(family, "g");
  std::vector<std::vector<int64_t>> out;
  Expand(&g, 0, scope, &out);
  return out;
}

int64_t FirstBlockId(const Group& group, BlockIds ids, int64_t count) {
  if (ids == BlockIds::kSmall || count <= 0) return 1;
  const GroupShape shape = ShapeOf(group);
  const int64_t bpk = shape.null_entries;
  // A manager block's kernel ids stay below INT32_MAX (the loader's limit).
  const int64_t top = (kInt32Max - bpk) / bpk;
  const int64_t two31 = int64_t{1} << 31;
  int64_t first;
  if (ids == BlockIds::kBelowInt32) {
    // The last block whose slots end at or below INT32_MAX: (m + 1) * manager_page <= 2^31.
    const int64_t last = std::min(top, two31 / shape.manager_page - 1);
    first = last - count + 1;
  } else {
    const int64_t first_over = (two31 + shape.manager_page - 1) / shape.manager_page;
    first = std::min(first_over, top - count + 1);
  }
  return std::max<int64_t>(1, first);
}

}  // namespace slotguard
