#include "scenario/family_params.h"

#include <algorithm>

#include "family/request_plan.h"

namespace slotguard {
namespace {

/// Variables for a group-level formula: the parameters filled in.
std::vector<int64_t> ParamVars(const FamilyDesc& d, const Group& group) {
  std::vector<int64_t> vars(d.variables.size(), 0);
  for (size_t p = 0; p < d.params.size() && p < group.params.size(); ++p) vars[d.param_var(p)] = group.params[p];
  return vars;
}

int64_t Value(const Expr& e, const std::vector<int64_t>& vars, int64_t fallback) {
  int64_t v;
  ExprError error = ExprError::kNone;
  return e.Evaluate(vars.data(), &v, &error) ? v : fallback;
}

/// A formula's text in words: a parameter's name as it is.
std::string Text(const Expr& e) { return e.text(); }

}  // namespace

int64_t ParamOf(const Group& group, const std::string& name) {
  const int32_t p = DescOf(group.family).FindParam(name);
  return p >= 0 && static_cast<size_t>(p) < group.params.size() ? group.params[p] : 0;
}

namespace {

/// A group without its parameters yet gets its family's examples and defaults.
void SizeParams(Group* group) {
  const FamilyDesc& d = DescOf(group->family);
  if (group->params.size() == d.params.size() && group->links.size() == d.params.size()) return;
  const Group example = ExampleGroup(group->family, group->name);
  group->params = example.params;
  group->links = example.links;
}

}  // namespace

bool SetParam(Group* group, const std::string& name, int64_t value) {
  const int32_t p = DescOf(group->family).FindParam(name);
  if (p < 0) return false;
  SizeParams(group);
  group->params[p] = value;
  return true;
}

bool SetLink(Group* group, const std::string& name, const std::string& target) {
  const int32_t p = DescOf(group->family).FindParam(name);
  if (p < 0) return false;
  SizeParams(group);
  group->links[p] = target;
  return true;
}

std::string LinkOf(const Group& group, const std::string& name) {
  const int32_t p = DescOf(group.family).FindParam(name);
  return p >= 0 && static_cast<size_t>(p) < group.links.size() ? group.links[p] : "";
}

void ApplyDefaults(Group* group, const std::vector<bool>& given) {
  const FamilyDesc& d = DescOf(group->family);
  group->params.resize(d.params.size(), 0);
  group->links.resize(d.params.size());
  std::vector<int64_t> vars(d.variables.size(), 0);
  for (size_t p = 0; p < d.params.size(); ++p) {
    const ParamDesc& param = d.params[p];
    const bool have = p < given.size() && given[p];
    if (!have && param.type != ParamType::kGroup && !param.default_value.empty())
      group->params[p] = Value(param.default_value, vars, param.min);
    vars[d.param_var(p)] = group->params[p];
  }
}

int64_t ParamMax(const Group& group, size_t p) {
  const FamilyDesc& d = DescOf(group.family);
  return Value(d.params[p].max, ParamVars(d, group), d.params[p].min);
}

bool ParamFormulasHold(const Group& group, size_t p, bool defaulted, std::string* why) {
  const FamilyDesc& d = DescOf(group.family);
  const ParamDesc& param = d.params[p];
  std::vector<int64_t> vars = ParamVars(d, group);
  int64_t value;
  std::string error;
  auto holds = [&](const char* what, const Expr& e) {
    if (e.empty() || e.Evaluate(vars.data(), &value, &error)) return true;
    *why = std::string(what) + " '" + e.text() + "' of family " + d.name + " has no value: " + error;
    return false;
  };
  return holds("max", param.max) && (!defaulted || holds("default", param.default_value));
}

Group ExampleGroup(Family family, const std::string& name) {
  Group g;
  g.name = name;
  g.family = family;
  g.variant = FixedVariant(family);
  const FamilyDesc& d = DescOf(family);
  std::vector<bool> given(d.params.size(), false);
  g.params.assign(d.params.size(), 0);
  for (size_t p = 0; p < d.params.size(); ++p)
    if (d.params[p].is_int() && d.params[p].default_value.empty()) {
      g.params[p] = d.params[p].example;
      given[p] = true;
    }
  ApplyDefaults(&g, given);
  return g;
}

GroupShape ShapeOf(const Group& group) {
  const FamilyDesc& d = DescOf(group.family);
  const std::vector<int64_t> vars = ParamVars(d, group);
  GroupShape s;
  s.page = std::max<int64_t>(1, Value(d.mapping.page, vars, 1));
  s.manager_page = std::max<int64_t>(s.page, Value(d.mapping.manager_page, vars, s.page));
  s.null_entries = std::max<int64_t>(1, s.manager_page / s.page);
  s.min_width = std::max<int64_t>(0, Value(d.mapping.min_width, vars, 0));
  return s;
}

int64_t SlotsPerEntry(const Group& group) { return ShapeOf(group).page; }
int64_t NullEntries(const Group& group) { return ShapeOf(group).null_entries; }
int64_t PoolSlots(int32_t num_blocks, const Group& group) {
  const GroupShape s = ShapeOf(group);
  return int64_t{num_blocks} * s.page * s.null_entries;
}
std::string NullEntriesText(Family family) {
  const MappingDesc& m = DescOf(family).mapping;
  return Text(m.manager_page) + " / " + Text(m.page);
}
int64_t MinWidth(const Group& group) { return ShapeOf(group).min_width; }
std::string MinWidthReason(Family family) {
  return "its family reads them unguarded: min_width " + Text(DescOf(family).mapping.min_width);
}

bool ReadsColumn0Only(Family family) {
  int64_t column;
  return DescOf(family).mapping.column.IsConstant(&column) && column == 0;
}

std::vector<std::string> OutputNames(const Group& group) {
  std::vector<std::string> names;
  for (const OutputDesc& out : MappingOf(group).outputs)
    names.push_back(out.name.empty() ? group.name : group.name + "." + out.name);
  return names;
}

int64_t OutputLength(const Group& group, const Batch& batch) {
  if (!PerRequest(group)) return batch.num_tokens;
  const FamilyDesc& d = DescOf(group.family);
  int64_t length = -1;
  std::string unused;
  if (!RequestOutputLength(d, d.request, group.params, group.table.width, batch.num_reqs(), &length, &unused))
    return -1;
  return length;
}

int OutputCount(Family family) { return static_cast<int>(DescOf(family).mapping.outputs.size()); }
int OutputCount(const Group& group) { return OutputCount(group.family); }

std::vector<std::string> FamilyKeys(Family family) {
  std::vector<std::string> keys;
  for (const ParamDesc& p : DescOf(family).params) {
    const std::string top = p.top_key();
    if (std::find(keys.begin(), keys.end(), top) == keys.end()) keys.push_back(top);
  }
  return keys;
}

std::vector<std::string> NestedKeys(Family family, const std::string& top_key) {
  std::vector<std::string> keys;
  for (const ParamDesc& p : DescOf(family).params)
    if (p.nested() && p.top_key() == top_key) keys.push_back(p.leaf_key());
  return keys;
}

std::string ParamPointer(const std::string& group_pointer, const ParamDesc& p) {
  const std::string top = group_pointer + "/" + p.top_key();
  return p.nested() ? top + "/" + p.leaf_key() : top;
}

namespace {

/// Every formula of a mapping, with the lets first.
std::vector<const Expr*> MappingFormulas(const MappingDesc& m) {
  std::vector<const Expr*> out;
  for (const LetDesc& let : m.lets) out.push_back(&let.value);
  for (const Expr& e : m.select) out.push_back(&e);
  out.push_back(&m.column);
  out.push_back(&m.offset);
  if (!m.pad_entry.empty()) out.push_back(&m.pad_entry);
  for (const OutputDesc& o : m.outputs)
    for (const Expr& e : o.select) out.push_back(&e);
  return out;
}

/// Every formula of a per-request kind's knobs, with the lets first.
std::vector<const Expr*> RequestFormulas(const RequestDesc& r) {
  std::vector<const Expr*> out;
  for (const LetDesc& let : r.lets) out.push_back(&let.value);
  for (const Expr& e : r.select) out.push_back(&e);
  for (const Expr* e : {&r.column, &r.src, &r.dst})
    if (!e->empty()) out.push_back(e);
  return out;
}

/// The formulas a family addresses by, whatever its kind.
std::vector<const Expr*> AddressFormulas(const FamilyDesc& d) {
  return d.kind == FamilyKind::kSlotMapping ? MappingFormulas(d.mapping) : RequestFormulas(d.request);
}

/// Whether a subtree reads only `fixed` variables.
bool ReadsOnly(const Expr& e, int32_t node, const std::vector<bool>& fixed) {
  const Expr::Node& n = e.nodes()[node];
  if (n.op == Expr::kVariable) return n.var < static_cast<int32_t>(fixed.size()) && fixed[n.var];
  for (int32_t a : n.args)
    if (a >= 0 && !ReadsOnly(e, a, fixed)) return false;
  return true;
}

}  // namespace

std::vector<int64_t> GroupDivisors(const Group& group) {
  const FamilyDesc& d = DescOf(group.family);
  const MappingDesc& m = d.mapping;
  // The variables fixed for the group: the parameters, and the lets of them.
  std::vector<bool> fixed(d.variables.size(), false);
  std::vector<int64_t> vars = ParamVars(d, group);
  for (size_t p = 0; p < d.params.size(); ++p) fixed[d.param_var(p)] = true;
  for (const LetDesc& let : d.kind == FamilyKind::kSlotMapping ? m.lets : d.request.lets)
    if (ReadsOnly(let.value, let.value.root(), fixed) && let.value.EvaluateNode(let.value.root(), vars.data(), &vars[let.var]))
      fixed[let.var] = true;
  std::vector<int64_t> out;
  for (const Expr* e : AddressFormulas(d))
    for (const Expr::Node& n : e->nodes()) {
      if (n.op != Expr::kDiv && n.op != Expr::kRem && n.op != Expr::kMod && n.op != Expr::kCdiv) continue;
      int64_t v;
      if (ReadsOnly(*e, n.args[1], fixed) && e->EvaluateNode(n.args[1], vars.data(), &v) && v > 0 &&
          std::find(out.begin(), out.end(), v) == out.end())
        out.push_back(v);
    }
  const GroupShape shape = ShapeOf(group);
  if (std::find(out.begin(), out.end(), shape.manager_page) == out.end()) out.push_back(shape.manager_page);
  return out;
}

bool ReadsPositions(Family family) {
  for (const Expr* e : MappingFormulas(DescOf(family).mapping))
    for (int32_t v : e->VariableIndices())
      if (v == FamilyDesc::kPos) return true;
  return false;
}

bool ReadsAnotherGroup(Family family) {
  for (const ParamDesc& p : DescOf(family).params)
    if (p.type == ParamType::kGroup) return true;
  return false;
}

int LinkedGroupIndex(const Scenario& scenario, const Group& group, int32_t param) {
  if (param < 0 || static_cast<size_t>(param) >= group.links.size() || group.links[param].empty()) return -1;
  for (size_t i = 0; i < scenario.groups.size(); ++i)
    if (scenario.groups[i].name == group.links[param]) return static_cast<int>(i);
  return -1;
}

int GateGroupIndex(const Scenario& scenario, const Group& group) {
  return LinkedGroupIndex(scenario, group, MappingOf(group).gate.param);
}

int WriterGateGroupIndex(const Scenario& scenario, const Group& group, int output) {
  return LinkedGroupIndex(scenario, group, WriterMappingOf(group).outputs[output].writer.gate.param);
}

const MappingDesc& WriterMappingOf(const Group& group) {
  const MappingDesc* variant = GetVariant(group.variant).mapping;
  return variant ? *variant : MappingOf(group);
}

}  // namespace slotguard
