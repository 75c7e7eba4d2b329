#include "prove/boundaries.h"

#include <algorithm>
#include <limits>

#include "family/family_desc.h"
#include "family/group_model.h"

namespace slotguard {
namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
/// A divides-parameter of a whole past this takes only 1 and the whole.
constexpr int64_t kMaxDivisorScan = int64_t{1} << 20;

void AddDivisors(int64_t whole, std::vector<int64_t>* out) {
  if (whole < 1) return;
  if (whole > kMaxDivisorScan) {
    out->push_back(1);
    out->push_back(whole);
    return;
  }
  for (int64_t d = 1; d * d <= whole; ++d)
    if (whole % d == 0) {
      out->push_back(d);
      out->push_back(whole / d);
    }
}

/// Parameter p's boundary set given the earlier parameters (in `g`).
std::vector<int64_t> Candidates(const Group& g, size_t p, const ScopePart& scope) {
  const FamilyModel model(g.family);
  const std::vector<ParamDesc>& params = model.params();
  const ParamDesc& param = params[p];
  if (param.type == ParamType::kBool) return {0, 1};
  std::vector<int64_t> values;
  const int64_t lo = param.min, hi = ParamMax(g, p);
  const int64_t whole = param.divides.empty() ? 0 : g.params[static_cast<size_t>(model.FindParam(param.divides))];
  for (ParamClass c : scope.params) switch (c) {
      case ParamClass::kMin:
        values.push_back(lo);
        break;
      case ParamClass::kNext:
        if (lo < std::numeric_limits<int64_t>::max()) values.push_back(lo + 1);
        break;
      case ParamClass::kExample:
        values.push_back(param.example);
        break;
      case ParamClass::kDefault:
        if (!param.default_value.empty()) {
          Group with_default = g;
          std::vector<bool> given(params.size(), false);
          for (size_t q = 0; q < p; ++q) given[q] = true;
          ApplyDefaults(&with_default, given);
          values.push_back(with_default.params[p]);
        }
        break;
      case ParamClass::kMax: {
        // Only a max the description gives (the loader puts the type's
        // largest where it gives none).
        int64_t top;
        const int64_t type_max = param.type == ParamType::kI32 ? kInt32Max : std::numeric_limits<int64_t>::max();
        if (!(param.max.IsConstant(&top) && top == type_max)) values.push_back(hi);
        break;
      }
      case ParamClass::kDivisors:
        if (!param.divides.empty()) AddDivisors(whole, &values);
        break;
      case ParamClass::kTiles:
        for (int64_t t : scope.tiles) {
          values.push_back(t);
          values.push_back(t + 1);
        }
        break;
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

std::vector<int64_t> FormulaBoundaries(const Group& group) {
  std::vector<int64_t> out = GroupDivisors(group);
  // The comparisons: a side fixed for the group (the parameters, and the
  // lets of them) is a threshold the other side crosses (its kind's
  // addressing formulas).
  const std::vector<int64_t> thresholds = GroupModel(group).Thresholds();
  out.insert(out.end(), thresholds.begin(), thresholds.end());
  out.erase(std::remove_if(out.begin(), out.end(), [](int64_t v) { return v <= 1 || v > kMaxPosition; }), out.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
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
