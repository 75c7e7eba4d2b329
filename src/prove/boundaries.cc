#include "prove/boundaries.h"

#include <algorithm>
#include <limits>

#include "family/family_desc.h"
#include "scenario/family_params.h"

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
  const FamilyDesc& d = DescOf(g.family);
  const ParamDesc& param = d.params[p];
  if (param.type == ParamType::kBool) return {0, 1};
  std::vector<int64_t> values;
  const int64_t lo = param.min, hi = ParamMax(g, p);
  const int64_t whole = param.divides.empty() ? 0 : g.params[static_cast<size_t>(d.FindParam(param.divides))];
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
          std::vector<bool> given(d.params.size(), false);
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
    std::vector<bool> given(d.params.size(), false);
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
  const FamilyDesc& d = DescOf(g.family);
  std::vector<int64_t> vars(d.variables.size(), 0);
  for (size_t p = 0; p < d.params.size(); ++p) vars[static_cast<size_t>(d.param_var(static_cast<int32_t>(p)))] = g.params[p];
  for (const ConstraintDesc& constraint : d.constraints) {
    int64_t holds = 0;
    ExprError error = ExprError::kNone;
    if (!constraint.holds.Evaluate(vars.data(), &holds, &error) || holds == 0) return false;
  }
  for (size_t p = 0; p < d.params.size(); ++p)
    if (d.params[p].is_int() && (g.params[p] < d.params[p].min || g.params[p] > ParamMax(g, p))) return false;
  const GroupShape shape = ShapeOf(g);
  return shape.page >= 1 && shape.manager_page % shape.page == 0 && shape.min_width <= kMaxProveWidth &&
         shape.null_entries <= kMaxProveWidth;
}

void Expand(Group* g, size_t p, const ScopePart& scope, std::vector<std::vector<int64_t>>* out) {
  const FamilyDesc& d = DescOf(g->family);
  if (p == d.params.size()) {
    if (Acceptable(*g)) out->push_back(g->params);
    return;
  }
  if (d.params[p].type == ParamType::kGroup) {
    Expand(g, p + 1, scope, out);
    return;
  }
  // The later parameters at their defaults while this one's set is taken
  // (a max or a default of this one reads only earlier ones).
  for (int64_t v : Candidates(*g, p, scope)) {
    g->params[p] = v;
    std::vector<bool> given(d.params.size(), false);
    for (size_t q = 0; q <= p; ++q) given[q] = true;
    ApplyDefaults(g, given);
    Expand(g, p + 1, scope, out);
  }
}

/// Whether a subtree reads only `fixed` variables.
bool ReadsOnly(const Expr& e, int32_t node, const std::vector<bool>& fixed) {
  const Expr::Node& n = e.nodes()[static_cast<size_t>(node)];
  if (n.op == Expr::kVariable) return n.var < static_cast<int32_t>(fixed.size()) && fixed[static_cast<size_t>(n.var)];
  for (int32_t a : n.args)
    if (a >= 0 && !ReadsOnly(e, a, fixed)) return false;
  return true;
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
  // lets of them) is a threshold the other side crosses.
  const FamilyDesc& d = DescOf(group.family);
  const MappingDesc& m = d.mapping;
  std::vector<bool> fixed(d.variables.size(), false);
  std::vector<int64_t> vars(d.variables.size(), 0);
  for (size_t p = 0; p < d.params.size(); ++p) {
    const size_t var = static_cast<size_t>(d.param_var(static_cast<int32_t>(p)));
    vars[var] = p < group.params.size() ? group.params[p] : 0;
    fixed[var] = true;
  }
  // A per-request kind (state index, block operations): its request
  // formulas; a slot mapping: its mapping's.
  const bool per_request = d.kind != FamilyKind::kSlotMapping;
  const RequestDesc& q = d.request;
  const std::vector<LetDesc>& lets = per_request ? q.lets : m.lets;
  for (const LetDesc& let : lets)
    if (ReadsOnly(let.value, let.value.root(), fixed) &&
        let.value.EvaluateNode(let.value.root(), vars.data(), &vars[static_cast<size_t>(let.var)]))
      fixed[static_cast<size_t>(let.var)] = true;
  std::vector<const Expr*> formulas;
  for (const LetDesc& let : lets) formulas.push_back(&let.value);
  if (per_request) {
    for (const Expr& e : q.select) formulas.push_back(&e);
    for (const Expr* e : {&q.column, &q.src, &q.dst, &q.ops})
      if (!e->nodes().empty()) formulas.push_back(e);
  } else {
    for (const Expr& e : m.select) formulas.push_back(&e);
    formulas.push_back(&m.column);
    formulas.push_back(&m.offset);
    for (const OutputDesc& o : m.outputs)
      for (const Expr& e : o.select) formulas.push_back(&e);
  }
  for (const Expr* e : formulas)
    for (const Expr::Node& n : e->nodes()) {
      if (n.op != Expr::kLt && n.op != Expr::kLe && n.op != Expr::kGt && n.op != Expr::kGe && n.op != Expr::kEq &&
          n.op != Expr::kNe)
        continue;
      for (int side = 0; side < 2; ++side) {
        int64_t v;
        if (n.args[side] >= 0 && !ReadsOnly(*e, n.args[1 - side], fixed) && ReadsOnly(*e, n.args[side], fixed) &&
            e->EvaluateNode(n.args[side], vars.data(), &v))
          out.push_back(v);
      }
    }
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
