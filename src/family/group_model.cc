#include "family/group_model.h"

#include <algorithm>

#include "family/request_plan.h"

namespace slotguard {

/// What reads a family's description: the models, here only (the
/// registry's FamilyInfo keeps it private to this).
struct FamilyDescAccess {
  static const FamilyDesc& Of(Family family) { return *GetFamily(family).desc_; }
};

namespace {

/// The description of a family.
const FamilyDesc& DescOf(Family family) { return FamilyDescAccess::Of(family); }

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

void DropUndeclaredInputs(Scenario* s) {
  for (auto it = s->batch.inputs.begin(); it != s->batch.inputs.end();) {
    const bool declared = std::any_of(s->groups.begin(), s->groups.end(), [&](const Group& g) {
      return FamilyModel(g.family).FindInput(it->first) >= 0;
    });
    it = declared ? std::next(it) : s->batch.inputs.erase(it);
  }
}

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
  int64_t length = -1;
  std::string unused;
  return GroupModel(group).OutputLength(batch, &length, &unused) ? length : -1;
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
  // The variables fixed for the group: the parameters, and the lets of them.
  std::vector<bool> fixed(d.variables.size(), false);
  std::vector<int64_t> vars = ParamVars(d, group);
  for (size_t p = 0; p < d.params.size(); ++p) fixed[d.param_var(p)] = true;
  const KindModel& kind = KindModelOf(d.kind);
  for (const LetDesc* let : kind.Lets(d))
    if (ReadsOnly(let->value, let->value.root(), fixed) &&
        let->value.EvaluateNode(let->value.root(), vars.data(), &vars[let->var]))
      fixed[let->var] = true;
  std::vector<int64_t> out;
  for (const Expr* e : kind.BoundaryFormulas(d, BoundaryKind::kDivisors))
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
  const FamilyDesc& d = DescOf(family);
  if (d.kind != FamilyKind::kSlotMapping) return false;  // no per-token formula
  for (const Expr* e : SlotMappingModel().BoundaryFormulas(d, BoundaryKind::kDivisors))
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

const MappingDesc& MappingOf(const Group& group) { return DescOf(group.family).mapping; }
const KindModel& KindModelOf(const Group& group) { return KindModelOf(DescOf(group.family).kind); }

const MappingDesc& WriterMappingOf(const Group& group) {
  const MappingDesc* variant = GetVariant(group.variant).mapping;
  return variant ? *variant : MappingOf(group);
}

// --- The models.

FamilyModel::FamilyModel(Family family)
    : family_(family), desc_(&DescOf(family)), kind_(&KindModelOf(desc_->kind)) {}

const std::string& FamilyModel::name() const { return desc_->name; }
const std::string& FamilyModel::meaning() const { return desc_->meaning; }
const std::string& FamilyModel::file() const { return desc_->file; }
const std::vector<VariantDesc>& FamilyModel::variants() const { return desc_->variants; }
const EngineRef& FamilyModel::engine() const { return desc_->engine; }
const std::vector<ParamDesc>& FamilyModel::params() const { return desc_->params; }
int32_t FamilyModel::FindParam(const std::string& name) const { return desc_->FindParam(name); }
const std::vector<ConstraintDesc>& FamilyModel::constraints() const { return desc_->constraints; }
const std::vector<InputDesc>& FamilyModel::inputs() const { return desc_->inputs; }
int32_t FamilyModel::FindInput(const std::string& name) const { return desc_->FindInput(name); }
int32_t FamilyModel::OwnerInput() const {
  return desc_->mapping.owner == OwnerRule::kInput ? desc_->FindInput(desc_->mapping.owner_input) : -1;
}
bool FamilyModel::one_token_per_request() const { return desc_->one_token_per_request; }

bool FamilyModel::dummies_read_rows() const {
  if (kind_->per_request()) return desc_->request.dummy == DummyRule::kRow;
  for (const OutputDesc& o : desc_->mapping.outputs)
    if (o.dummy == DummyRule::kRow) return true;
  return false;
}
const MappingDesc& FamilyModel::mapping() const { return desc_->mapping; }
const RequestDesc& FamilyModel::request() const { return desc_->request; }
const std::vector<const char*>& FamilyModel::param_name_ptrs() const { return desc_->param_name_ptrs; }
const std::vector<const char*>& FamilyModel::output_name_ptrs() const { return desc_->output_name_ptrs; }

std::vector<int64_t> FamilyModel::ParamVars(const std::vector<int64_t>& params) const {
  std::vector<int64_t> vars(desc_->variables.size(), 0);
  for (size_t p = 0; p < desc_->params.size() && p < params.size(); ++p) vars[desc_->param_var(p)] = params[p];
  return vars;
}

GroupModel::GroupModel(const Group& group) : FamilyModel(group.family), group_(&group) {}

bool GroupModel::RequestElements(int64_t* elements, std::string* why) const {
  return kind().RequestElements(desc(), request(), group_->params, group_->table.width, elements, why);
}

bool GroupModel::OutputLength(const Batch& batch, int64_t* length, std::string* why) const {
  return OutputLength(batch.num_tokens, batch.num_reqs(), length, why);
}

bool GroupModel::OutputLength(int64_t num_tokens, int64_t num_reqs, int64_t* length, std::string* why) const {
  return kind().OutputLength(desc(), request(), group_->params, group_->table.width, num_tokens, num_reqs, length, why);
}

bool GroupModel::Interpret(const Batch& batch, const int64_t* linked, bool with_facts, bool variant,
                           Interpretation* out, std::string* why) const {
  const VariantInfo& v = GetVariant(group_->variant);
  const MappingDesc& m = variant && v.mapping ? *v.mapping : mapping();
  const RequestDesc& r = variant && v.request ? *v.request : request();
  return kind().Interpret(desc(), m, r, group_->params, batch, group_->table, linked, with_facts, out, why);
}

bool GroupModel::InputValues(const Batch& batch, std::vector<std::vector<int64_t>>* values, std::string* why) const {
  return slotguard::InputValues(desc(), group_->params, batch, values, why);
}

bool GroupModel::MakePlan(const MappingDesc& m, const Batch& batch, GroupPlan* plan, std::string* why) const {
  return MakeGroupPlan(desc(), m, group_->params, batch, plan, why);
}

bool GroupModel::ForEachColumn(const Batch& batch, int64_t width, const ColumnFn& fn) const {
  return kind().ForEachColumn(desc(), group_->params, batch, width, fn);
}

bool GroupModel::NeededColumns(const Batch& batch, int64_t far, std::vector<int64_t>* needed) const {
  needed->assign(static_cast<size_t>(batch.num_reqs()), 0);
  // A formula may read the row's width: from one column, grown to what it
  // addresses (a column that far is left out: it would widen the rows
  // without end); else each token's column, clamped at `far`.
  const bool grows = kind().columns_read_width();
  int64_t width = 1;
  for (int round = 0; round < 4; ++round) {
    std::fill(needed->begin(), needed->end(), 0);
    int64_t widest = 0;
    const bool bound = ForEachColumn(batch, width, [&](int32_t r, int64_t col, bool, bool) {
      if (col < 0 || (grows && col >= far)) return;
      const int64_t n = std::min(col, far) + 1;
      (*needed)[static_cast<size_t>(r)] = std::max((*needed)[static_cast<size_t>(r)], n);
      widest = std::max(widest, n);
    });
    if (!bound) return false;
    if (!grows || widest <= width) break;
    width = widest;
  }
  return true;
}

bool GroupModel::IsNullIndex(int64_t index) const {
  return slotguard::IsNullIndex(desc(), request(), group_->params, index);
}
bool GroupModel::ConsumerSkips(const ConsumerDesc& consumer, int64_t index) const {
  return slotguard::ConsumerSkips(desc(), consumer, group_->params, index);
}
int64_t GroupModel::Marker() const { return MarkerOf(desc(), request(), group_->params); }

std::vector<int64_t> GroupModel::Thresholds() const {
  const FamilyDesc& d = desc();
  std::vector<bool> fixed(d.variables.size(), false);
  std::vector<int64_t> vars = ParamVars(group_->params);
  for (size_t p = 0; p < d.params.size(); ++p) fixed[static_cast<size_t>(d.param_var(static_cast<int32_t>(p)))] = true;
  for (const LetDesc* let : kind().Lets(d))
    if (ReadsOnly(let->value, let->value.root(), fixed) &&
        let->value.EvaluateNode(let->value.root(), vars.data(), &vars[static_cast<size_t>(let->var)]))
      fixed[static_cast<size_t>(let->var)] = true;
  std::vector<int64_t> out;
  for (const Expr* e : kind().BoundaryFormulas(d, BoundaryKind::kThresholds))
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
  return out;
}

bool GroupModel::ConstraintsHold() const {
  const std::vector<int64_t> vars = ParamVars(group_->params);
  for (const ConstraintDesc& constraint : constraints()) {
    int64_t holds = 0;
    ExprError error = ExprError::kNone;
    if (!constraint.holds.Evaluate(vars.data(), &holds, &error) || holds == 0) return false;
  }
  return true;
}

}  // namespace slotguard
