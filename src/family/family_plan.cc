// The interpreter of family descriptions (docs/family-format.md, "What a
// description computes"): every knob applied in one order, per token.
#include "family/family_plan.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>

#include "family/formula_program.h"

namespace slotguard {
namespace {

constexpr int64_t kPad = -1;
/// The fewest tokens of a request that the interpreter runs over lanes.
constexpr int64_t kMinLaneTokens = 4;

/// The fixed variables a token sets (the others are set per request).
bool TokenVariable(int32_t var) {
  return var == FamilyDesc::kT || var == FamilyDesc::kI || var == FamilyDesc::kPos || var == FamilyDesc::kLp ||
         var == FamilyDesc::kLinked;  // a derived mapping's lets and selects read the linked slot
}

bool GroupFormula(const Expr& e, const std::vector<int64_t>& vars, const char* knob, int64_t* value,
                  std::string* err) {
  std::string why;
  if (e.Evaluate(vars.data(), value, &why)) return true;
  *err = std::string("the description's '") + knob + "' (" + e.text() + "): " + why;
  return false;
}

/// The variables fixed for a whole group run: what Bind folds (an input
/// varies by request or token).
bool GroupVariable(const FamilyDesc& desc, int32_t var) {
  return var == FamilyDesc::kNumReqs || var == FamilyDesc::kNumTokens || var == FamilyDesc::kNumActualTokens ||
         var == FamilyDesc::kNumRealTokens || (var >= FamilyDesc::kFixedVars && desc.InputOf(var) < 0);
}

/// One formula, evaluated either once per request or per token.
struct Step {
  Expr expr;
  bool per_token = false;
  bool empty() const { return expr.empty(); }
};

struct BoundLet {
  Step step;
  int32_t var = 0;
  const std::string* name = nullptr;
  bool constant = false;  // folded: its value is in the plan's vars
};

/// A mapping's formulas with the group's constants folded in (its
/// parameters, the batch's sizes, the lets they alone decide), each marked
/// per request or per token: what the per-token loop evaluates.
struct BoundMapping {
  std::vector<BoundLet> lets;  // parallel to mapping.lets
  std::vector<Step> select;
  Step column, offset, entry_map, pad_entry, gate;
  Step entry;  // a derived mapping's entry over `linked`; empty: the table read
  Step reads_from, reads_to;  // always per token; empty without `reads`
  std::vector<std::vector<Step>> output_select;

  // The same formulas compiled into register programs (formula_program.h),
  // in the order the interpreters evaluate them.
  /// A formula a program names when it fails: its knob and its text.
  struct Knob {
    const char* name;
    const Expr* expr;
  };
  std::vector<Knob> knobs;
  FormulaRegisters registers{0};
  int32_t column_reg = 0, offset_reg = 0, pad_reg = 0, gate_reg = 0, offset_knob = 0;
  /// A column that is one number (`column: "0"`): not in the lanes
  /// programs, whose readers take it from lanes filled once per run.
  bool column_constant = false;
  int64_t column_value = 0;
  FormulaProgram request_lets;          // the per-request lets
  FormulaProgram request_select;        // the per-request selects
  FormulaProgram request_select_first;  // and output 0's
  FormulaProgram token_lets;            // the per-token lets
  FormulaProgram token_select_first;    // the per-token selects and output 0's
  FormulaProgram column_only;
  FormulaProgram token;                 // per-token lets, selects, then the column
  FormulaProgram entry_map_program, pad_entry_program, gate_program, offset_program;
  FormulaProgram entry_program;  // a derived mapping's entry, into FamilyDesc::kEntry
  /// The token program over lanes (formula_program.h), and the offset with
  /// it where the offset reads no entry; lanes_ok() false when it cannot.
  FormulaProgram lanes;
  bool lanes_offset = false;
  /// Whether t, i, pos and lp are read over lanes (by `lanes`, or by the
  /// formulas after the entries, or by the tokens' formulas one at a time
  /// when those do not run over lanes): the lanes of the others are not set.
  bool lane_reads[4] = {true, true, true, true};
  /// `lanes`, `lanes_entry` and `lanes_entry_gate` over lanes of several
  /// requests' tokens (each request's variables set per lane); multi_ok
  /// false when the description cannot run so. Prepared on the first
  /// interpretation that asks (PrepareMulti), not for the generator's walks:
  /// a binding is used by the thread whose cache holds it (Bound), alone.
  mutable FormulaProgram multi, multi_entry, multi_entry_gate;
  bool multi_candidate = false;  // `lanes`, and no per-request lets or selects
  mutable bool multi_prepared = false, multi_ok = false;
  const BoundMapping& PrepareMulti() const;
  std::vector<int32_t> token_let_vars;  // the per-token lets' variables
  /// Over lanes too, once the entries are known: entry_map, pad_entry, the
  /// gate (in the second only), the offset unless `lanes` has it, and each
  /// output's selects, each into a register of its own.
  FormulaProgram lanes_entry, lanes_entry_gate;
  /// The same one token at a time: entry_map, pad_entry, the gate (in the
  /// second), the offset and the outputs' selects in one run; where it
  /// fails, the token's formulas run one by one (which stop where the
  /// token is padded, so the failure may not be the token's).
  FormulaProgram after_entry, after_entry_gate;
  /// ForEachAddress's over lanes: the per-token lets, the selects (its and
  /// output 0's) as tests, the column.
  FormulaProgram lanes_address;
  /// FarthestColumn's, which reads no select: the per-token lets and the
  /// column, one token at a time and over lanes.
  FormulaProgram token_column, lanes_column;
  std::vector<std::vector<int32_t>> output_select_regs;
  std::vector<FormulaProgram> output_programs;  // per output: its selects, request's then token's
};

/// Compiles the bound formulas of *b into its programs (once per binding).
void CompilePrograms(size_t variables, bool token_inputs, BoundMapping* b) {
  b->registers = FormulaRegisters(static_cast<int32_t>(variables));
  FormulaRegisters* regs = &b->registers;
  auto knob = [&](const char* name, const Expr& e) {
    b->knobs.push_back({name, &e});
    return static_cast<int32_t>(b->knobs.size()) - 1;
  };
  std::vector<int32_t> let_knob;
  for (const BoundLet& let : b->lets) let_knob.push_back(knob(let.name->c_str(), let.step.expr));
  auto lets = [&](bool per_token, FormulaProgram* p) {
    for (size_t k = 0; k < b->lets.size(); ++k) {
      const BoundLet& let = b->lets[k];
      if (!let.constant && let.step.per_token == per_token) p->Assign(let.step.expr, let.var, let_knob[k], regs);
    }
  };
  auto selects = [&](const std::vector<Step>& steps, bool per_token, FormulaProgram* p) {
    for (const Step& s : steps)
      if (s.per_token == per_token) p->Require(s.expr, knob("select", s.expr), regs);
  };
  const std::vector<Step> none;
  const std::vector<Step>& first = b->output_select.empty() ? none : b->output_select[0];
  lets(false, &b->request_lets);
  selects(b->select, false, &b->request_select);
  selects(b->select, false, &b->request_select_first);
  selects(first, false, &b->request_select_first);
  lets(true, &b->token_lets);
  selects(b->select, true, &b->token_select_first);
  selects(first, true, &b->token_select_first);
  b->column_reg = regs->Temporary();
  b->offset_reg = regs->Temporary();
  b->pad_reg = regs->Temporary();
  b->gate_reg = regs->Temporary();
  const int32_t column = knob("column", b->column.expr);
  if (!b->column.empty()) b->column_only.Assign(b->column.expr, b->column_reg, column, regs);
  lets(true, &b->token);
  selects(b->select, true, &b->token);
  if (!b->column.empty()) b->token.Assign(b->column.expr, b->column_reg, column, regs);
  if (!b->entry.empty()) b->entry_program.Assign(b->entry.expr, FamilyDesc::kEntry, knob("entry", b->entry.expr), regs);
  const int32_t entry_map_knob = knob("entry_map", b->entry_map.expr);
  const int32_t pad_entry_knob = knob("pad_entry", b->pad_entry.expr);
  const int32_t gate_knob = knob("gate", b->gate.expr);
  if (!b->entry_map.empty()) b->entry_map_program.Assign(b->entry_map.expr, FamilyDesc::kEntry, entry_map_knob, regs);
  if (!b->pad_entry.empty()) b->pad_entry_program.Assign(b->pad_entry.expr, b->pad_reg, pad_entry_knob, regs);
  if (!b->gate.empty()) b->gate_program.Assign(b->gate.expr, b->gate_reg, gate_knob, regs);
  b->offset_knob = knob("offset", b->offset.expr);
  if (!b->offset.empty()) b->offset_program.Assign(b->offset.expr, b->offset_reg, b->offset_knob, regs);
  lets(true, &b->token_column);
  lets(true, &b->lanes_column);
  if (!b->column.empty()) {
    b->token_column.Assign(b->column.expr, b->column_reg, column, regs);
    b->lanes_column.Assign(b->column.expr, b->column_reg, column, regs);
    if (!token_inputs) b->lanes_column.PrepareLanes({FamilyDesc::kT, FamilyDesc::kI, FamilyDesc::kPos, FamilyDesc::kLp});
  }
  lets(true, &b->lanes_address);
  selects(b->select, true, &b->lanes_address);
  selects(first, true, &b->lanes_address);
  if (!b->column.empty()) {
    b->lanes_address.Assign(b->column.expr, b->column_reg, column, regs);
    if (!token_inputs) b->lanes_address.PrepareLanes({FamilyDesc::kT, FamilyDesc::kI, FamilyDesc::kPos, FamilyDesc::kLp});
  }
  b->output_select_regs.resize(b->output_select.size());
  std::vector<std::pair<const Step*, int32_t>> output_selects;  // each output's, the request's then the token's
  for (size_t o = 0; o < b->output_select.size(); ++o)
    for (bool per_token : {false, true})
      for (const Step& sel : b->output_select[o])
        if (sel.per_token == per_token) {
          output_selects.emplace_back(&sel, regs->Temporary());
          b->output_select_regs[o].push_back(output_selects.back().second);
        }
  for (int with_gate = 0; with_gate < 2; ++with_gate) {
    FormulaProgram& p = with_gate ? b->after_entry_gate : b->after_entry;
    if (!b->entry_map.empty()) p.Assign(b->entry_map.expr, FamilyDesc::kEntry, entry_map_knob, regs);
    if (!b->pad_entry.empty()) p.Assign(b->pad_entry.expr, b->pad_reg, pad_entry_knob, regs);
    if (with_gate && !b->gate.empty()) p.Assign(b->gate.expr, b->gate_reg, gate_knob, regs);
    if (!b->offset.empty()) p.Assign(b->offset.expr, b->offset_reg, b->offset_knob, regs);
    for (const auto& [sel, reg] : output_selects) p.Assign(sel->expr, reg, 0, regs);
  }
  // The lanes program: the token program, then the offset when it reads
  // neither the entry nor the linked output (set per token, after it).
  auto reads_entry = [](const Expr& e) {
    for (int32_t v : e.VariableIndices())
      if (v == FamilyDesc::kEntry || v == FamilyDesc::kLinked) return true;
    return false;
  };
  lets(true, &b->lanes);
  selects(b->select, true, &b->lanes);
  // A per-token input is not laid out over lanes: such a description runs one token at a time.
  bool lanes = !token_inputs && !b->column.empty() && !b->offset.empty() && !reads_entry(b->column.expr);
  for (const BoundLet& let : b->lets) {
    lanes = lanes && !(let.step.per_token && reads_entry(let.step.expr));
    if (!let.constant && let.step.per_token) b->token_let_vars.push_back(let.var);
  }
  for (const Step& sel : b->select) lanes = lanes && !reads_entry(sel.expr);
  if (lanes) {
    b->column_constant = b->column.expr.IsConstant(&b->column_value);
    if (!b->column_constant) b->lanes.Assign(b->column.expr, b->column_reg, column, regs);
    b->lanes_offset = !reads_entry(b->offset.expr);
    if (b->lanes_offset) b->lanes.Assign(b->offset.expr, b->offset_reg, b->offset_knob, regs);
    // An output's select that reads neither the entry nor the linked output
    // is known before the entries too (a lane whose formula fails there
    // sends its tokens one at a time, as in the program after the entries).
    std::vector<std::pair<const Step*, int32_t>> selects_after;
    auto jumps = [](const Expr& e) {  // && and || do not run over lanes
      return std::any_of(e.nodes().begin(), e.nodes().end(),
                         [](const Expr::Node& n) { return n.op == Expr::kAnd || n.op == Expr::kOr; });
    };
    for (const auto& [sel, reg] : output_selects) {
      if (reads_entry(sel->expr) || jumps(sel->expr)) {
        selects_after.emplace_back(sel, reg);
      } else {
        b->lanes.Assign(sel->expr, reg, 0, regs);
      }
    }
    // One request's t, i and lp grow by one a lane (Lanes gives their bases);
    // what the interpreter reads after the program stays lanes.
    std::vector<int32_t> kept(variables);
    for (size_t v = 0; v < variables; ++v) kept[v] = static_cast<int32_t>(v);
    for (int32_t reg : {b->column_reg, b->offset_reg, b->pad_reg, b->gate_reg}) kept.push_back(reg);
    for (const auto& [sel, reg] : output_selects) kept.push_back(reg);
    b->lanes.PrepareLanes({FamilyDesc::kT, FamilyDesc::kI, FamilyDesc::kPos, FamilyDesc::kLp},
                          {FamilyDesc::kT, FamilyDesc::kI, FamilyDesc::kLp}, kept);
    for (int with_gate = 0; with_gate < 2; ++with_gate) {
      FormulaProgram& p = with_gate ? b->lanes_entry_gate : b->lanes_entry;
      if (!b->entry_map.empty()) p.Assign(b->entry_map.expr, FamilyDesc::kEntry, entry_map_knob, regs);
      if (!b->pad_entry.empty()) p.Assign(b->pad_entry.expr, b->pad_reg, pad_entry_knob, regs);
      if (with_gate && !b->gate.empty()) p.Assign(b->gate.expr, b->gate_reg, gate_knob, regs);
      if (!b->lanes_offset) p.Assign(b->offset.expr, b->offset_reg, b->offset_knob, regs);
      for (const auto& [sel, reg] : selects_after) p.Assign(sel->expr, reg, 0, regs);
      std::vector<int32_t> varying = b->lanes.Writes();
      for (int32_t v : {FamilyDesc::kT, FamilyDesc::kI, FamilyDesc::kPos, FamilyDesc::kLp, FamilyDesc::kEntry,
                        FamilyDesc::kLinked})
        varying.push_back(v);
      p.PrepareLanes(varying);
    }
  }
  // The same programs over lanes of several requests (PrepareMulti): a
  // request's lets and selects would be one run per request, so a
  // description with them keeps to one request a chunk.
  b->multi_candidate = lanes && b->request_lets.empty() && b->request_select.empty();
  if (lanes) {
    const int32_t token_vars[4] = {FamilyDesc::kT, FamilyDesc::kI, FamilyDesc::kPos, FamilyDesc::kLp};
    for (int k = 0; k < 4; ++k)
      b->lane_reads[k] = b->lanes.ReadsLanes(token_vars[k]) || !b->lanes_entry.lanes_ok() ||
                         !b->lanes_entry_gate.lanes_ok() || b->lanes_entry.Reads(token_vars[k]) ||
                         b->lanes_entry_gate.Reads(token_vars[k]);
  }
  b->output_programs.resize(b->output_select.size());
  for (size_t o = 0; o < b->output_select.size(); ++o) {
    selects(b->output_select[o], false, &b->output_programs[o]);
    selects(b->output_select[o], true, &b->output_programs[o]);
  }
}

const BoundMapping& BoundMapping::PrepareMulti() const {
  if (multi_prepared || !multi_candidate) return *this;
  multi_prepared = true;
  // The request's variables vary by lane too.
  multi = lanes;
  multi_entry = lanes_entry;
  multi_entry_gate = lanes_entry_gate;
  std::vector<int32_t> varying = {FamilyDesc::kT,        FamilyDesc::kI,      FamilyDesc::kPos,
                                  FamilyDesc::kLp,       FamilyDesc::kR,      FamilyDesc::kQ,
                                  FamilyDesc::kQslBegin, FamilyDesc::kQslEnd, FamilyDesc::kSeqLen,
                                  FamilyDesc::kWidth};
  multi_ok = multi.PrepareLanes(varying);
  for (int32_t v : lanes.Writes()) varying.push_back(v);
  varying.push_back(FamilyDesc::kEntry);
  varying.push_back(FamilyDesc::kLinked);
  multi_ok = multi_ok && multi_entry.PrepareLanes(varying) && multi_entry_gate.PrepareLanes(varying);
  return *this;
}

/// Binds the mapping's formulas to the group's constants in `vars`: the
/// parameters and the batch's sizes, then every let they alone decide
/// (whose values it writes into *vars).
std::shared_ptr<const BoundMapping> BindMapping(const FamilyDesc& desc, const MappingDesc& m,
                                                std::vector<int64_t>* vars) {
  auto out = std::make_shared<BoundMapping>();
  std::vector<std::optional<int64_t>> constants(desc.variables.size());
  for (size_t v = 0; v < constants.size(); ++v)
    if (GroupVariable(desc, static_cast<int32_t>(v)) && !std::any_of(m.lets.begin(), m.lets.end(), [&](const LetDesc& l) {
          return l.var == static_cast<int32_t>(v);
        }))
      constants[v] = (*vars)[v];
  std::vector<bool> token_var(desc.variables.size(), false);
  for (int32_t v = 0; v < FamilyDesc::kFixedVars; ++v) token_var[v] = TokenVariable(v);
  bool token_inputs = false;
  for (size_t k = 0; k < desc.inputs.size(); ++k)
    if (desc.inputs[k].per_token()) token_inputs = token_var[desc.input_var(k)] = true;
  auto step = [&](const Expr& e, bool always_token = false) {
    Step s;
    if (e.empty()) return s;
    s.expr = e.Bind(constants);
    s.per_token = always_token;
    for (int32_t v : s.expr.VariableIndices()) s.per_token = s.per_token || token_var[v];
    return s;
  };
  for (const LetDesc& let : m.lets) {
    BoundLet b;
    b.step = step(let.value);
    b.var = let.var;
    b.name = &let.name;
    int64_t value;
    if (b.step.expr.IsConstant(&value)) {
      b.constant = true;
      constants[let.var] = value;
      (*vars)[let.var] = value;
    }
    token_var[let.var] = b.step.per_token;
    out->lets.push_back(std::move(b));
  }
  // A select its constants make true always holds: it is not evaluated.
  auto selects = [&](const std::vector<Expr>& exprs) {
    std::vector<Step> steps;
    for (const Expr& e : exprs) {
      Step s = step(e);
      int64_t value;
      if (!s.expr.IsConstant(&value) || value == 0) steps.push_back(std::move(s));
    }
    return steps;
  };
  out->select = selects(m.select);
  out->column = step(m.column);
  out->offset = step(m.offset);
  out->entry = step(m.entry, true);
  out->entry_map = step(m.entry_map, true);
  out->pad_entry = step(m.pad_entry, true);
  out->gate = step(m.gate.test, true);
  out->reads_from = step(m.reads_from, true);
  out->reads_to = step(m.reads_to, true);
  for (const OutputDesc& o : m.outputs) {
    out->output_select.push_back(selects(o.select));
  }
  CompilePrograms(desc.variables.size(), token_inputs, out.get());
  return out;
}

/// A mapping bound to one set of group constants, with the values of the
/// lets those constants decide.
struct BoundEntry {
  std::shared_ptr<const BoundMapping> bound;
  std::vector<std::pair<int32_t, int64_t>> let_values;
  std::weak_ptr<const void> lifetime;  // the mapping's formulas: expired once the description is freed
};

/// The group variables a mapping's formulas read (a let's own variable
/// excluded: BindMapping computes it), ascending.
std::vector<int32_t> ReadGroupVariables(const FamilyDesc& desc, const MappingDesc& m) {
  std::vector<int32_t> used;
  auto add = [&](const Expr& e) {
    if (e.empty()) return;
    for (int32_t v : e.VariableIndices())
      if (GroupVariable(desc, v)) used.push_back(v);
  };
  for (const LetDesc& l : m.lets) add(l.value);
  for (const Expr& e : m.select) add(e);
  add(m.column);
  add(m.entry);
  add(m.offset);
  add(m.entry_map);
  add(m.pad_entry);
  add(m.gate.test);
  add(m.reads_from);
  add(m.reads_to);
  for (const OutputDesc& o : m.outputs)
    for (const Expr& e : o.select) add(e);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  used.erase(std::remove_if(used.begin(), used.end(),
                            [&](int32_t v) {
                              return std::any_of(m.lets.begin(), m.lets.end(),
                                                 [&](const LetDesc& l) { return l.var == v; });
                            }),
             used.end());
  return used;
}

/// The values BindMapping folds into the formulas that they read: a
/// mapping's binding is a function of them alone (a batch size no formula
/// reads does not bind it anew). Into *key, whose storage is reused.
void BindKey(const std::vector<int32_t>& read, const std::vector<int64_t>& vars, std::vector<int64_t>* key) {
  key->resize(read.size());
  for (size_t k = 0; k < read.size(); ++k) (*key)[k] = vars[static_cast<size_t>(read[k])];
}

struct BindKeyHash {
  size_t operator()(const std::pair<const MappingDesc*, std::vector<int64_t>>& k) const {
    uint64_t h = std::hash<const void*>()(k.first);
    for (int64_t x : k.second) h = (h ^ static_cast<uint64_t>(x)) * 0x100000001b3ull;
    return static_cast<size_t>(h);
  }
};

/// BindMapping, remembered per thread: a campaign binds the same mapping
/// to the same group constants over and over (a scope's configurations, a
/// fuzz campaign's parameter draws), and binding (folding every formula,
/// allocating its program) was the larger part of interpreting a small
/// batch. Writes the lets' constant values into *vars as BindMapping does.
std::shared_ptr<const BoundMapping> Bound(const FamilyDesc& desc, const MappingDesc& m, std::vector<int64_t>* vars) {
  std::weak_ptr<const void> lifetime = m.column.Lifetime();
  if (lifetime.expired()) lifetime = m.entry.Lifetime();
  if (lifetime.expired()) lifetime = m.offset.Lifetime();
  if (lifetime.expired()) return BindMapping(desc, m, vars);  // nothing to tell its formulas apart by
  using Key = std::pair<const MappingDesc*, std::vector<int64_t>>;
  thread_local std::unordered_map<Key, BoundEntry, BindKeyHash> cache;
  thread_local Key key;  // the lookup's, its storage reused: a hit allocates nothing
  constexpr size_t kMaxEntries = 4096;
  // The variables the mapping reads, found once per mapping (per thread).
  struct Read {
    std::weak_ptr<const void> lifetime;
    std::vector<int32_t> vars;
  };
  thread_local std::unordered_map<const MappingDesc*, Read> reads;
  Read& read = reads[&m];
  if (read.lifetime.expired() || read.lifetime.owner_before(lifetime) || lifetime.owner_before(read.lifetime)) {
    if (reads.size() >= kMaxEntries) {
      reads.clear();
      return Bound(desc, m, vars);
    }
    read.lifetime = lifetime;
    read.vars = ReadGroupVariables(desc, m);
  }
  key.first = &m;
  BindKey(read.vars, *vars, &key.second);
  auto it = cache.find(key);
  if (it != cache.end() && !it->second.lifetime.expired() && !it->second.lifetime.owner_before(lifetime) &&
      !lifetime.owner_before(it->second.lifetime)) {
    for (const auto& [var, value] : it->second.let_values) (*vars)[var] = value;
    return it->second.bound;
  }
  BoundEntry entry;
  entry.bound = BindMapping(desc, m, vars);
  for (const BoundLet& let : entry.bound->lets)
    if (let.constant) entry.let_values.emplace_back(let.var, (*vars)[let.var]);
  entry.lifetime = lifetime;
  if (cache.size() >= kMaxEntries) cache.clear();
  cache[key] = entry;
  return entry.bound;
}

}  // namespace

int64_t MappedEnd(const MappingDesc& mapping, const Batch& batch) {
  switch (mapping.tail_from) {
    case TailFrom::kActualTokens:
      return batch.num_actual_tokens;
    case TailFrom::kMinActualReal:
      return std::min(batch.num_actual_tokens, batch.num_real_tokens());
    case TailFrom::kNumTokens:
      return batch.num_tokens;
    case TailFrom::kRealTokens:
      break;
  }
  return batch.num_real_tokens();
}

std::vector<int32_t> OwnersOf(const MappingDesc& mapping, const Batch& batch, int64_t mapped_end) {
  std::vector<int32_t> owner(static_cast<size_t>(batch.num_tokens), -1);
  const int32_t R = batch.num_reqs();
  for (int32_t r = 0; r < R; ++r)
    if (batch.query_start_loc[r] < batch.query_start_loc[r + 1])
      std::fill(owner.begin() + batch.query_start_loc[r], owner.begin() + batch.query_start_loc[r + 1], r);
  if (mapping.owner == OwnerRule::kLastRequest && R > 0)
    for (int64_t t = batch.num_real_tokens(); t < mapped_end; ++t) owner[t] = R - 1;
  if (mapping.owner == OwnerRule::kInput) {
    // The input's array where the batch gives it (its default is the owner above);
    // a value outside [0, R) is a token of no request.
    const auto it = batch.inputs.find(mapping.owner_input);
    if (it != batch.inputs.end() && it->second.per_token && it->second.values.size() == owner.size())
      for (size_t t = 0; t < owner.size(); ++t) {
        const int64_t r = it->second.values[t];
        owner[t] = r >= 0 && r < R ? static_cast<int32_t>(r) : -1;
      }
  }
  return owner;
}

bool MakeGroupPlan(const FamilyDesc& desc, const MappingDesc& mapping, const std::vector<int64_t>& params,
                   const Batch& batch, GroupPlan* plan, std::string* err) {
  plan->desc = &desc;
  plan->mapping = &mapping;
  plan->vars.assign(desc.variables.size(), 0);
  for (size_t p = 0; p < params.size() && p < desc.params.size(); ++p) plan->vars[desc.param_var(p)] = params[p];
  std::vector<int64_t>& v = plan->vars;
  v[FamilyDesc::kNumReqs] = batch.num_reqs();
  v[FamilyDesc::kNumTokens] = batch.num_tokens;
  v[FamilyDesc::kNumActualTokens] = batch.num_actual_tokens;
  v[FamilyDesc::kNumRealTokens] = batch.num_real_tokens();
  if (!GroupFormula(mapping.page, v, "page", &plan->page, err) ||
      !GroupFormula(mapping.manager_page, v, "manager_page", &plan->manager_page, err) ||
      !GroupFormula(mapping.min_width, v, "min_width", &plan->min_width, err))
    return false;
  if (plan->page < 1 || plan->manager_page < plan->page || plan->manager_page % plan->page != 0) {
    *err = "the description's page (" + std::to_string(plan->page) + ") and manager_page (" +
           std::to_string(plan->manager_page) + "): expected page >= 1 dividing manager_page";
    return false;
  }
  plan->null_entries = plan->manager_page / plan->page;
  plan->mapped_end = MappedEnd(mapping, batch);
  plan->request_inputs.clear();
  plan->token_inputs.clear();
  for (size_t k = 0; k < desc.inputs.size(); ++k)
    (desc.inputs[k].per_token() ? plan->token_inputs : plan->request_inputs).push_back({desc.input_var(k), k});
  return InputValues(desc, params, batch, &plan->inputs, err);
}

namespace {

/// What a run works in besides its outputs: kept per thread, so that a
/// small batch allocates nothing but its outputs.
struct RunScratch {
  bool busy = false;  // a run holds it (a run inside a run takes its own)
  std::vector<int64_t> v;                     // the registers
  std::vector<std::vector<uint8_t>> mapped;   // per output: the tokens the description maps (under a sink)
  std::vector<uint8_t> owns_none;             // per output, for the request at hand
  std::vector<int64_t*> slots;                // per output: its slots
  std::vector<uint8_t*> facts;                // per output: its facts (when asked)
};

RunScratch& TakeScratch(RunScratch* own) {
  thread_local RunScratch shared;
  if (shared.busy) return *own;
  shared.busy = true;
  return shared;
}

/// At least n copies of `pad`, kept per thread (refilled when the value changes or n grows).
const int64_t* Pads(int64_t pad, size_t n) {
  thread_local std::vector<int64_t> pads;
  thread_local int64_t value = 0;
  if (pads.size() < n || (value != pad && !pads.empty())) pads.assign(std::max(n, pads.size()), pad);
  value = pad;
  return pads.data();
}

std::vector<int64_t>& CopyVars(const std::vector<int64_t>& vars, std::vector<int64_t>* v) {
  v->assign(vars.begin(), vars.end());
  return *v;
}

/// The per-token loop, with the plan's variables as its own copy.
class Run {
 public:
  Run(const GroupPlan& plan, const Batch& batch, const BlockTable& table, const int64_t* linked, bool facts,
      Interpretation* out)
      : s_(TakeScratch(&own_)), plan_(plan), m_(*plan.mapping), v_(CopyVars(plan.vars, &s_.v)),
        bound_(Bound(*plan.desc, m_, &v_)), prog_(*bound_), b_(batch), table_(table), linked_(linked),
        facts_(facts), out_(out), mapped_(s_.mapped), owns_none_(s_.owns_none), slots_(s_.slots),
        facts_of_(s_.facts) {
    // The registers past the variables: the programs' constants and intermediate values.
    v_.resize(static_cast<size_t>(prog_.registers.size()), 0);
    prog_.registers.Fill(v_.data());
    if (prog_.column_constant) std::fill_n(column_lanes_, FormulaProgram::kLanes, prog_.column_value);
    if (prog_.lanes.lanes_ok() && lanes_.size() < v_.size() * FormulaProgram::kLanes)
      lanes_.resize(v_.size() * FormulaProgram::kLanes);
  }
  ~Run() {
    if (&s_ != &own_) s_.busy = false;
  }
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  bool Go(std::string* err) {
    const size_t n = static_cast<size_t>(b_.num_tokens);
    const int outputs = plan_.outputs();
    out_->slots.resize(outputs);
    // Every slot PAD to begin with: copied from a run of PADs (a copy, where
    // a fill goes one slot at a time), which a large batch does not keep.
    constexpr size_t kKeptPads = size_t{1} << 16;
    const int64_t* const pads = n <= kKeptPads ? Pads(m_.pad_value, n) : nullptr;
    for (auto& s : out_->slots) {
      if (pads) {
        s.assign(pads, pads + n);
      } else {
        s.assign(n, m_.pad_value);
      }
    }
    // Which tokens an output maps matters only to the sink's facts.
    track_mapped_ = facts_ && m_.null_page == NullPage::kSink;
    if (mapped_.size() < static_cast<size_t>(outputs)) mapped_.resize(static_cast<size_t>(outputs));
    if (track_mapped_)
      for (int o = 0; o < outputs; ++o) mapped_[o].assign(n, 0);
    owns_none_.assign(static_cast<size_t>(outputs), 0);
    out_->facts.resize(facts_ ? outputs : 0);
    for (auto& f : out_->facts) f.assign(n, 0);
    slots_.resize(static_cast<size_t>(outputs));
    facts_of_.assign(static_cast<size_t>(outputs), nullptr);
    for (int o = 0; o < outputs; ++o) {
      slots_[o] = out_->slots[o].data();
      if (facts_) facts_of_[o] = out_->facts[o].data();
    }
    simple_outputs_ = true;
    for (const auto& regs : prog_.output_select_regs) simple_outputs_ = simple_outputs_ && regs.empty();
    one_output_ = outputs == 1 && simple_outputs_ && !track_mapped_;
    out_->owner = OwnersOf(m_, b_, plan_.mapped_end);
    // The tail (PAD already where its value is PAD).
    for (int o = 0; o < outputs && plan_.mapped_end < b_.num_tokens; ++o) {
      int64_t* const tail = out_->slots[o].data();
      if (m_.tail_value == TailValue::kSlotMappingIn) {
        std::copy(b_.slot_mapping_in.begin() + plan_.mapped_end, b_.slot_mapping_in.begin() + b_.num_tokens,
                  tail + plan_.mapped_end);
      } else if (m_.tail_value == TailValue::kNullSlot) {
        std::fill(tail + plan_.mapped_end, tail + b_.num_tokens, 0);
      }
    }
    if (m_.null_page == NullPage::kSink)
      for (int64_t t = plan_.mapped_end; t < b_.num_tokens; ++t) AllFacts(t, kFactSinkOk);  // a padding token owns no state
    const bool sink = m_.null_page == NullPage::kSink;
    // Tokens before the tail, by owner: a run of tokens of one request at a time.
    const std::vector<int32_t>& owner = out_->owner;
    // Under the owner rules that give request r the tokens [qsl[r],
    // qsl[r + 1]) of a query_start_loc that never decreases (last_request
    // adds tokens past qsl[R]), a run of r's reaches qsl[r + 1] at least.
    const std::vector<int32_t>& qsl = b_.query_start_loc;
    bool runs_by_qsl = m_.owner != OwnerRule::kInput;
    for (int32_t r = 0; runs_by_qsl && r < b_.num_reqs(); ++r) runs_by_qsl = qsl[r] <= qsl[r + 1];
    // Requests too short for lanes of their own share a chunk of lanes
    // (Gather, Flush) where the description allows it.
    v_[FamilyDesc::kRows] = table_.rows;
    multi_ = prog_.PrepareMulti().multi_ok && !track_mapped_ && !m_.derived() && plan_.request_inputs.empty() &&
             MultiTest(&multi_test_);
    if (multi_ && multi_lanes_.size() < v_.size() * FormulaProgram::kLanes)
      multi_lanes_.resize(v_.size() * FormulaProgram::kLanes);
    batch_n_ = 0;
    for (int64_t t = 0; t < plan_.mapped_end;) {
      const int32_t r = owner[t];
      int64_t end = t + 1;
      if (runs_by_qsl && r >= 0) end = std::max<int64_t>(end, std::min<int64_t>(qsl[r + 1], plan_.mapped_end));
      while (end < plan_.mapped_end && owner[end] == r) ++end;
      // The chunk gathers short requests past the others' (it has lanes of
      // its own); it runs when full, and before a failure is reported.
      if (r >= 0 && multi_ && end - t < kMinLaneTokens && Batchable(r, t, end)) {
        if (batch_n_ > 0 && batch_tokens_ + (end - t) > FormulaProgram::kLanes && !Flush(err)) return false;
        Gather(r, t, end);
      } else if (r < 0) {
        if (facts_ && sink)
          for (int o = 0; o < outputs; ++o)
            for (int64_t u = t; u < end; ++u) out_->facts[o][u] |= kFactSinkOk;
      } else if (!Request(r, t, end, err)) {
        return FailAfterFlush(err);
      }
      t = end;
    }
    if (!Flush(err)) return false;
    // Under a sink, a token the description leaves unmapped in an output (a
    // column past the row, a pad_entry hit, a select or gate; a padding
    // token) owns no state there: the engine sends it to the sink by design
    // (a zeroed buffer's slot 0, a writer's clamp_min(0)), so it may write it.
    if (facts_ && sink)
      for (int o = 0; o < outputs; ++o)
        for (int64_t u = 0; u < plan_.mapped_end; ++u)
          if (!mapped_[o][u]) out_->facts[o][u] |= kFactSinkOk;
    return true;
  }

 private:
  __attribute__((noinline, cold)) bool Fail(const char* knob, const Expr& e, ExprError error, int64_t t, int32_t r,
                                            std::string* err) {
    *err = "token " + std::to_string(t) + " (request " + std::to_string(r) + "): the description's '" + knob +
           "' (" + e.text() + "): " + ExprErrorText(error);
    return false;
  }
  /// Runs a program over the registers: false with *err when a formula
  /// fails; *selected false when one of its selects is 0.
  __attribute__((always_inline)) bool Exec(const FormulaProgram& p, bool* selected, int64_t t, int32_t r,
                                           std::string* err) {
    if (p.empty()) return true;
    int32_t knob = 0;
    ExprError error = ExprError::kNone;
    switch (p.Run(v_.data(), &knob, &error)) {
      case FormulaProgram::kDone:
        return true;
      case FormulaProgram::kRejected:
        *selected = false;
        return true;
      case FormulaProgram::kFailed:
        break;
    }
    return Fail(prog_.knobs[knob].name, *prog_.knobs[knob].expr, error, t, r, err);
  }
  void Fact(int o, int64_t t, uint8_t bit) {
    if (facts_) facts_of_[o][t] |= bit;
  }
  /// Output o maps token t to `slot` (`live`: in a live request's block).
  void Mapped(int o, int64_t t, int64_t slot, bool live) {
    slots_[o][t] = slot;
    if (track_mapped_) mapped_[o][t] = 1;
    if (live && facts_) facts_of_[o][t] |= kFactLiveTarget;
  }
  void AllFacts(int64_t t, uint8_t bit) {
    if (facts_)
      for (uint8_t* f : facts_of_) f[t] |= bit;
  }

  /// A CSR row read past its end reads the packed indices on: the next
  /// rows' entries (what a kernel without its bound reads).
  bool PackedEntry(int32_t row, int64_t col, int64_t* entry) const {
    for (int32_t next = row + 1; next < table_.rows; ++next) {
      col -= table_.row_width(next - 1);
      if (col < table_.row_width(next)) {
        *entry = table_.at(next, static_cast<int32_t>(col));
        return true;
      }
    }
    return false;
  }

  bool Request(int32_t r, int64_t begin, int64_t end, std::string* err) {
    const bool sink = m_.null_page == NullPage::kSink;
    const bool dummy = b_.is_dummy(r);
    const int32_t row = m_.rows == RowsRule::kCsr ? r : b_.row_of(r);
    const bool has_row = row >= 0 && row < table_.rows;
    SetRequestVars(b_, r, v_.data());
    SetRequestInputs(plan_, r, v_.data());
    const int64_t qb = b_.query_start_loc[r], qe = b_.query_start_loc[r + 1];
    v_[FamilyDesc::kWidth] = has_row ? table_.row_width(row) : 0;
    v_[FamilyDesc::kRows] = table_.rows;
    // An output owns no state for this request when the request reads no
    // row, or is a dummy its dummy rule pads: its tokens stay unmapped there.
    const int outputs = plan_.outputs();
    std::vector<uint8_t>& owns_none = owns_none_;  // sized once, in Go
    bool all_none = true;
    for (int o = 0; o < outputs; ++o) {
      owns_none[o] = !has_row || (dummy && m_.outputs[o].dummy == DummyRule::kPad);
      all_none = all_none && owns_none[o];
      if (owns_none[o])
        for (int64_t t = begin; t < end; ++t) Fact(o, t, kFactMustPad | (sink ? kFactSinkOk : 0));
    }
    if (all_none) return true;
    // A dummy's tokens own no state: a sink's block 0, or under a request
    // sink the dummy's own pages, may take them.
    if ((sink || m_.null_page == NullPage::kRequest) && dummy)
      for (int64_t t = begin; t < end; ++t) AllFacts(t, kFactSinkOk);
    // Per request: its lets and selects.
    bool request_holds = true;
    if (!Exec(prog_.request_lets, &request_holds, begin, r, err) ||
        !Exec(prog_.request_select, &request_holds, begin, r, err))
      return false;
    if (!request_holds) return true;  // every token PAD, nothing addressed
    Where at{r, row, dummy, v_[FamilyDesc::kWidth], qb, qe};
    // Lanes pay for themselves from a few tokens on; a short request runs one token at a time.
    if (prog_.lanes.lanes_ok() && end - begin >= kMinLaneTokens) {
      for (int64_t c = begin; c < end; c += FormulaProgram::kLanes) {
        const int n = static_cast<int>(std::min<int64_t>(FormulaProgram::kLanes, end - c));
        const LanesEnd done = Lanes(at, c, n, err);
        if (done == kLanesDone) continue;
        if (done == kLanesFailed) return false;
        // An operation failed on some lane: those tokens one at a time say which failure is first.
        for (int64_t t = c; t < c + n; ++t)
          if (!Token(at, t, err)) return false;
      }
      return true;
    }
    for (int64_t t = begin; t < end; ++t)
      if (!Token(at, t, err)) return false;
    return true;
  }

  /// The request a token belongs to, as its loop reads it.
  struct Where {
    int32_t r, row;
    bool dummy;
    int64_t width, qb, qe;
  };

  /// Sets the token variables of token t; false on an overflow of lp.
  bool TokenVars(const Where& at, int64_t t, std::string* err) {
    SetTokenInputs(plan_, t, v_.data());
    return SetTokenVars(b_, at.r, t, v_.data()) || Fail("lp", m_.column, ExprError::kOverflow, t, at.r, err);
  }

  /// One token, one formula at a time.
  bool Token(const Where& at, int64_t t, std::string* err) {
    if (!TokenVars(at, t, err)) return false;
    if (m_.derived()) {
      // A derived entry is the linked group's slot at t, transformed: with
      // no linked group there is nothing to derive from, so the token is PAD.
      if (!linked_) return true;
      v_[FamilyDesc::kLinked] = linked_[t];
    }
    // Its lets, its selects and its column: one program.
    bool holds = true;
    if (!Exec(prog_.token, &holds, t, at.r, err)) return false;
    if (!holds) return true;
    if (m_.derived()) {
      bool unused = true;
      if (!Exec(prog_.entry_program, &unused, t, at.r, err)) return false;
      return AfterEntry(at, t, v_[FamilyDesc::kEntry], nullptr, err);
    }
    return Address(at, t, v_[prog_.column_reg], nullptr, err);
  }

  /// How Lanes ends: every token done; an operation of the lanes failed on
  /// some lane (nothing written yet: the caller runs the tokens one at a
  /// time); or a later formula failed on a token (*err says so).
  enum LanesEnd { kLanesDone, kLanesRetry, kLanesFailed };
  /// Tokens [c, c + n) of one request over lanes.
  LanesEnd Lanes(const Where& at, int64_t c, int n, std::string* err) {
    constexpr int kLanes = FormulaProgram::kLanes;
    int64_t* const L = lanes_.data();
    int64_t* const T = L + FamilyDesc::kT * kLanes;
    int64_t* const I = L + FamilyDesc::kI * kLanes;
    int64_t* const P = L + FamilyDesc::kPos * kLanes;
    int64_t* const LP = L + FamilyDesc::kLp * kLanes;
    int64_t before;  // seq_len - q: lp = before + i
    if (__builtin_sub_overflow(b_.seq_lens[at.r], at.qe - at.qb, &before)) return kLanesRetry;
    // i grows by one a lane: where neither the first lane's lp nor the
    // last's overflows, no lane's does.
    int64_t first_lp, last_lp;
    if (__builtin_add_overflow(before, c - at.qb, &first_lp) ||
        __builtin_add_overflow(before, c + n - 1 - at.qb, &last_lp))
      return kLanesRetry;
    const int64_t* const positions = b_.positions.data() + c;
    // The token variables some program over these lanes reads.
    if (prog_.lane_reads[0])
      for (int k = 0; k < n; ++k) T[k] = c + k;
    if (prog_.lane_reads[1])
      for (int k = 0; k < n; ++k) I[k] = c + k - at.qb;
    if (prog_.lane_reads[2])
      for (int k = 0; k < n; ++k) P[k] = positions[k];
    if (prog_.lane_reads[3])
      for (int k = 0; k < n; ++k) LP[k] = before + (c + k - at.qb);
    prog_.lanes.Broadcast(v_.data(), L, n);
    uint8_t rejected[kLanes] = {};
    const int64_t bases[FormulaProgram::kAffineInputs] = {c, c - at.qb, first_lp};  // t, i, lp in lane 0
    if (!prog_.lanes.RunLanes(v_.data(), L, n, rejected, bases)) return kLanesRetry;
    const int64_t* const col = ColumnLanes(L);
    const int64_t* const offset = L + static_cast<size_t>(prog_.offset_reg) * kLanes;
    const FormulaProgram& after = linked_ ? prog_.lanes_entry_gate : prog_.lanes_entry;
    if (after.lanes_ok()) return Entries(at, c, n, rejected, err);
    for (int k = 0; k < n; ++k) {
      if (rejected[k] || col[k] < 0) continue;
      // What the rest of the token's formulas read: its variables and lets.
      v_[FamilyDesc::kT] = T[k];
      v_[FamilyDesc::kI] = I[k];
      v_[FamilyDesc::kPos] = P[k];
      v_[FamilyDesc::kLp] = LP[k];
      for (int32_t var : prog_.token_let_vars) v_[var] = L[static_cast<size_t>(var) * kLanes + k];
      if (!Address(at, c + k, col[k], prog_.lanes_offset ? &offset[k] : nullptr, err)) return kLanesFailed;
    }
    return kLanesDone;
  }

  /// Lanes past their columns: the entries, then the formulas that read
  /// them over lanes too, then each token's slot and facts.
  LanesEnd Entries(const Where& at, int64_t c, int n, const uint8_t* rejected, std::string* err) {
    constexpr int kLanes = FormulaProgram::kLanes;
    int64_t* const L = lanes_.data();
    const int64_t* const col = ColumnLanes(L);
    const FormulaProgram& after = linked_ ? prog_.lanes_entry_gate : prog_.lanes_entry;
    // The formulas past the entry none, or pad_entry and a gate over a
    // linked group each one comparison (`entry <= 0`, `linked < 0`): each
    // lane in one pass.
    if (!track_mapped_) {
      EntryTest test;
      if (EntryTestOf(after, &test)) return OnePass(at, c, n, rejected, test);
    }
    int64_t* const E = L + FamilyDesc::kEntry * kLanes;
    uint8_t addressed[kLanes];
    const int64_t width = at.width;
    const bool clamp = m_.range == RangeRule::kClamp && width > 0;
    const bool packed = m_.range == RangeRule::kNone && m_.rows == RowsRule::kCsr;
    for (int k = 0; k < n; ++k) {
      E[k] = 0;
      addressed[k] = (rejected[k] == 0) & (col[k] >= 0);
      if (!addressed[k]) continue;
      if (col[k] < width) {
        E[k] = table_.at(at.row, static_cast<int32_t>(col[k]));
      } else if (clamp) {
        E[k] = table_.at(at.row, static_cast<int32_t>(width - 1));
      } else if (packed) {
        addressed[k] = PackedEntry(at.row, col[k], &E[k]);
      } else {
        addressed[k] = 0;
      }
    }
    if (linked_) {
      int64_t* const K = L + FamilyDesc::kLinked * kLanes;
      for (int k = 0; k < n; ++k) K[k] = linked_[c + k];
    }
    after.Broadcast(v_.data(), L, n);
    uint8_t unused[kLanes] = {};
    if (!after.RunLanes(v_.data(), L, n, unused)) return kLanesRetry;
    const int64_t* const pad = L + static_cast<size_t>(prog_.pad_reg) * kLanes;
    const int64_t* const gate = L + static_cast<size_t>(prog_.gate_reg) * kLanes;
    const int64_t* const offset = L + static_cast<size_t>(prog_.offset_reg) * kLanes;
    const bool has_pad = !prog_.pad_entry.empty(), gated = m_.gate.present();
    const bool null_block = HasNullBlock(m_.null_page);
    // Such a gate skips every token of a dummy, and the padding tokens:
    // the lanes from real_end on.
    const bool pads_dummies = gated && !linked_ && m_.gate.absent == GateAbsent::kPadDummies;
    const int64_t real_end =
        !pads_dummies ? n : at.dummy ? 0 : std::max<int64_t>(0, std::min<int64_t>(n, b_.num_real_tokens() - c));
    const int64_t page = plan_.page, null_entries = plan_.null_entries;
    const int outputs = plan_.outputs();
    // One output without selects of its own, every token's slot into it: the common case, its own loop.
    const bool one = outputs == 1 && simple_outputs_ && !owns_none_[0] && !track_mapped_;
    int64_t* const slots0 = slots_[0] + c;
    uint8_t* const facts0 = facts_ ? facts_of_[0] + c : nullptr;
    const bool gate_linked = gated && linked_;
    const bool live_request = !at.dummy;  // a dummy's tokens own no state: no live target
    for (int k = 0; k < n; ++k) {
      if (!addressed[k]) continue;
      const int64_t e = E[k];
      const bool null_id = null_block && e < null_entries;
      if (has_pad) {
        if (null_id) AllFacts(c + k, kFactMustPad);
        if (pad[k]) continue;
      }
      if (k >= real_end || (gate_linked && gate[k])) continue;
      const int64_t off = offset[k];
      int64_t slot;
      // A slot that overflows: these tokens again one at a time, which
      // report the first failure (what they write again is the same).
      if (__builtin_mul_overflow(e, page, &slot) || __builtin_add_overflow(slot, off, &slot)) return kLanesRetry;
      // 0 <= off < page, in one comparison.
      const bool live = live_request & !null_id & (static_cast<uint64_t>(off) < static_cast<uint64_t>(page));
      if (one) {
        slots0[k] = slot;
        if (live && facts0) facts0[k] |= kFactLiveTarget;
        continue;
      }
      MapToOutputs(c + k, slot, live, L + k, kLanes);
    }
    (void)err;
    return kLanesDone;
  }

  /// pad_entry as a range of entries, and the gate as one of linked slots
  /// (FormulaProgram::InstrAsRange): a value in [lo, hi] (outside, when
  /// `invert`) pads the token.
  struct Range {
    int64_t lo = 0, hi = 0;
    bool invert = false;
    bool Holds(int64_t x) const { return ((x >= lo) & (x <= hi)) != invert; }
  };
  struct EntryTest {
    bool pad = false, gate = false;
    Range pad_range, gate_range;
  };
  /// Entries' common case in one pass over the lanes, with the same slots and facts.
  LanesEnd OnePass(const Where& at, int64_t c, int n, const uint8_t* rejected, const EntryTest& test) {
    // One output that every token takes: its slots and facts written in the loop itself.
    const bool one = one_output_ && !owns_none_[0];
    if (one)
      return test.pad ? OnePassOf<true, true>(at, c, n, rejected, test) : OnePassOf<false, true>(at, c, n, rejected, test);
    // Two outputs (a ring and its tail): their loop unrolled, the first
    // written as the one output is where it takes every lane.
    if (plan_.outputs() == 2) {
      if (!owns_none_[0] && prog_.output_select_regs[0].empty())
        return test.pad ? OnePassOf<true, false, 2, true>(at, c, n, rejected, test)
                        : OnePassOf<false, false, 2, true>(at, c, n, rejected, test);
      return test.pad ? OnePassOf<true, false, 2>(at, c, n, rejected, test)
                      : OnePassOf<false, false, 2>(at, c, n, rejected, test);
    }
    return test.pad ? OnePassOf<true, false>(at, c, n, rejected, test) : OnePassOf<false, false>(at, c, n, rejected, test);
  }
  /// kOuts: the number of outputs where the caller knows it (0: the plan's);
  /// kFirstAll: the first of them takes every lane.
  template <bool kPad, bool kOne, int kOuts = 0, bool kFirstAll = false>
  LanesEnd OnePassOf(const Where& at, int64_t c, int n, const uint8_t* rejected, const EntryTest& test) {
    constexpr int kLanes = FormulaProgram::kLanes;
    const int64_t* const L = lanes_.data();
    const int64_t* const col = ColumnLanes(L);
    const int64_t* const offset = L + static_cast<size_t>(prog_.offset_reg) * kLanes;
    const int64_t width = at.width;
    const int32_t* const row_entries =
        width > 0 ? table_.entries.data() + static_cast<size_t>(at.row) * static_cast<size_t>(table_.width) : nullptr;
    const bool clamp = m_.range == RangeRule::kClamp && width > 0;
    const bool packed = m_.range == RangeRule::kNone && m_.rows == RowsRule::kCsr;
    const bool null_block = HasNullBlock(m_.null_page);
    // Such a gate skips every token of a dummy, and the padding tokens: the lanes from real_end on.
    const bool pads_dummies = m_.gate.present() && !linked_ && m_.gate.absent == GateAbsent::kPadDummies;
    const int64_t real_end =
        !pads_dummies ? n : at.dummy ? 0 : std::max<int64_t>(0, std::min<int64_t>(n, b_.num_real_tokens() - c));
    const int64_t page = plan_.page, null_entries = plan_.null_entries;
    int64_t* const slots = slots_[0] + c;
    uint8_t unasked[kLanes];  // the one output's facts when none are asked: written, never read
    uint8_t* const facts = facts_ ? facts_of_[0] + c : unasked;
    // Else, a few outputs: which lanes each takes (its request owns its
    // state, and its selects hold), found once for the lanes.
    constexpr int kFew = 4;
    static_assert(kOuts <= kFew, "a few outputs");
    const int outputs = kOuts > 0 ? kOuts : plan_.outputs();
    const bool few = !kOne && outputs <= kFew;
    uint8_t takes[kFew][kLanes];
    int64_t* out_slots[kFew];
    uint8_t* out_facts[kFew];
    if (few)
      for (int o = 0; o < outputs; ++o) {
        out_slots[o] = slots_[o] + c;
        out_facts[o] = facts_ ? facts_of_[o] + c : nullptr;
        if (kFirstAll && o == 0) continue;
        const std::vector<int32_t>& selects = prog_.output_select_regs[o];
        if (owns_none_[o] || selects.empty()) {
          std::memset(takes[o], owns_none_[o] ? 0 : 1, static_cast<size_t>(n));
          continue;
        }
        const int64_t* const first = L + static_cast<size_t>(selects[0]) * kLanes;
        for (int k = 0; k < n; ++k) takes[o][k] = first[k] != 0;
        for (size_t i = 1; i < selects.size(); ++i) {
          const int64_t* const selected = L + static_cast<size_t>(selects[i]) * kLanes;
          for (int k = 0; k < n; ++k) takes[o][k] &= selected[k] != 0;
        }
      }
    const bool live_request = !at.dummy;  // a dummy's tokens own no state: no live target
    for (int k = 0; k < n; ++k) {
      const int64_t column = col[k];
      if ((rejected[k] != 0) | (column < 0)) continue;
      int64_t e;
      if (column < width) {
        e = row_entries[column];
      } else if (clamp) {
        e = row_entries[width - 1];
      } else if (!packed || !PackedEntry(at.row, column, &e)) {
        continue;  // pad; a read past a table's row is PAD here, and row_bounds judges the kernel's
      }
      const bool null_id = null_block & (e < null_entries);
      // pad_entry's test of a null id: the token must be PAD, whatever comes next.
      const uint8_t must_pad = kPad && null_id ? kFactMustPad : 0;
      if (kPad && !kOne && null_id) AllFacts(c + k, kFactMustPad);
      if ((kPad && test.pad_range.Holds(e)) || k >= real_end ||
          (test.gate && test.gate_range.Holds(linked_[c + k]))) {
        if (kOne) facts[k] |= must_pad;
        continue;
      }
      const int64_t off = offset[k];
      int64_t slot;
      // A slot that overflows: these tokens again one at a time, which
      // report the first failure (what they write again is the same).
      if (__builtin_mul_overflow(e, page, &slot) || __builtin_add_overflow(slot, off, &slot)) return kLanesRetry;
      // 0 <= off < page, in one comparison.
      const bool live = live_request & !null_id & (static_cast<uint64_t>(off) < static_cast<uint64_t>(page));
      if (kOne) {
        slots[k] = slot;
        facts[k] |= static_cast<uint8_t>(must_pad | (live ? kFactLiveTarget : 0));
        continue;
      }
      if (few) {
        if (kFirstAll) {
          out_slots[0][k] = slot;
          if (live && out_facts[0]) out_facts[0][k] |= kFactLiveTarget;
        }
        for (int o = kFirstAll ? 1 : 0; o < outputs; ++o) {
          if (!takes[o][k]) continue;
          out_slots[o][k] = slot;
          if (out_facts[o] && live) out_facts[o][k] |= kFactLiveTarget;
        }
        continue;
      }
      MapToOutputs(c + k, slot, live, L + k, kLanes);
    }
    return kLanesDone;
  }

  /// Whether the pass over several requests' lanes applies: the formulas
  /// past the entry none, or pad_entry and a linked gate as comparisons
  /// with values the same in every lane (*test), as OnePass takes them.
  bool MultiTest(EntryTest* test) {
    return EntryTestOf(linked_ ? prog_.multi_entry_gate : prog_.multi_entry, test);
  }
  /// Whether `after` (the program past the entries) is pad_entry and a
  /// gate over a linked group alone, each one comparison with a value the
  /// same in every lane, with them as ranges (*test): what OnePass takes.
  bool EntryTestOf(const FormulaProgram& after, EntryTest* test) const {
    size_t i = 0;
    test->pad = test->gate = false;
    if (!prog_.pad_entry.empty())
      test->pad = after.InstrAsRange(i++, FamilyDesc::kEntry, prog_.pad_reg, v_.data(), &test->pad_range.lo,
                                     &test->pad_range.hi, &test->pad_range.invert);
    if (m_.gate.present() && linked_)
      test->gate = after.InstrAsRange(i++, FamilyDesc::kLinked, prog_.gate_reg, v_.data(), &test->gate_range.lo,
                                      &test->gate_range.hi, &test->gate_range.invert);
    return test->pad == !prog_.pad_entry.empty() && test->gate == (m_.gate.present() && linked_) && i == after.size();
  }

  /// Whether request r's tokens [begin, end) may share a chunk with other
  /// requests': it has a row, every output owns its state, and lp does not
  /// overflow (else Request says what it does with it).
  bool Batchable(int32_t r, int64_t begin, int64_t end) const {
    const int32_t row = m_.rows == RowsRule::kCsr ? r : b_.row_of(r);
    if (row < 0 || row >= table_.rows) return false;
    if (b_.is_dummy(r))
      for (const OutputDesc& o : m_.outputs)
        if (o.dummy == DummyRule::kPad) return false;
    const int64_t qb = b_.query_start_loc[r], qe = b_.query_start_loc[r + 1];
    int64_t before, lp;
    return !__builtin_sub_overflow(b_.seq_lens[r], qe - qb, &before) &&
           !__builtin_add_overflow(before, begin - qb, &lp) && !__builtin_add_overflow(before, end - 1 - qb, &lp);
  }

  /// A request failed (*err): the chunk's requests, all before it, run
  /// first, and a failure of theirs is the one reported.
  __attribute__((noinline, cold)) bool FailAfterFlush(std::string* err) {
    std::string failure = std::move(*err);
    if (Flush(err)) *err = std::move(failure);
    return false;
  }

  /// Request r's tokens [begin, end) into the chunk being gathered: their
  /// variables and their request's into the chunk's lanes (t says which
  /// token a lane is: the chunk's tokens need not be contiguous).
  void Gather(int32_t r, int64_t begin, int64_t end) {
    constexpr int kLanes = FormulaProgram::kLanes;
    if (batch_n_ == 0) batch_tokens_ = 0;
    batch_[batch_n_++] = {r, begin, end};
    const bool dummy = b_.is_dummy(r);
    // A dummy's tokens own no state: under a request sink the dummy's own pages may take them.
    if (m_.null_page == NullPage::kRequest && dummy)
      for (int64_t t = begin; t < end; ++t) AllFacts(t, kFactSinkOk);
    const int32_t row = m_.rows == RowsRule::kCsr ? r : b_.row_of(r);
    const int64_t width = table_.row_width(row);
    const int64_t qb = b_.query_start_loc[r], qe = b_.query_start_loc[r + 1];
    const int64_t before = b_.seq_lens[r] - (qe - qb);  // Batchable: no overflow
    int64_t* const L = multi_lanes_.data();
    for (int64_t t = begin; t < end; ++t) {
      const int k = static_cast<int>(batch_tokens_++);
      L[FamilyDesc::kT * kLanes + k] = t;
      L[FamilyDesc::kI * kLanes + k] = t - qb;
      L[FamilyDesc::kPos * kLanes + k] = b_.positions[t];
      L[FamilyDesc::kLp * kLanes + k] = before + (t - qb);
      L[FamilyDesc::kR * kLanes + k] = r;
      L[FamilyDesc::kQ * kLanes + k] = qe - qb;
      L[FamilyDesc::kQslBegin * kLanes + k] = qb;
      L[FamilyDesc::kQslEnd * kLanes + k] = qe;
      L[FamilyDesc::kSeqLen * kLanes + k] = b_.seq_lens[r];
      L[FamilyDesc::kWidth * kLanes + k] = width;
      lane_row_[k] = row;
      lane_width_[k] = width;
      lane_dummy_[k] = dummy;
    }
  }

  /// Runs the chunk gathered, then empties it. Where a formula fails on
  /// some lane, or a slot overflows, its requests run one at a time
  /// (Request), which say which failure is first.
  bool Flush(std::string* err) {
    if (batch_n_ == 0) return true;
    const int requests = batch_n_;
    batch_n_ = 0;
    {
      constexpr int kLanes = FormulaProgram::kLanes;
      const int n = static_cast<int>(batch_tokens_);
      int64_t* const L = multi_lanes_.data();
      prog_.multi.Broadcast(v_.data(), L, n);
      uint8_t rejected[kLanes] = {};
      if (prog_.multi.RunLanes(v_.data(), L, n, rejected)) {
        if (linked_) {
          const int64_t* const T = L + FamilyDesc::kT * kLanes;
          int64_t* const K = L + FamilyDesc::kLinked * kLanes;
          for (int k = 0; k < n; ++k) K[k] = linked_[T[k]];
        }
        const LanesEnd done = one_output_ ? MultiPass<true>(n, rejected) : MultiPass<false>(n, rejected);
        if (done == kLanesDone) return true;
      }
    }
    for (int i = 0; i < requests; ++i)
      if (!Request(batch_[i].r, batch_[i].begin, batch_[i].end, err)) return false;
    return true;
  }

  /// OnePass over the lanes of several requests (each lane's token, row, width and dummy its own).
  template <bool kOne>
  LanesEnd MultiPass(int n, const uint8_t* rejected) {
    constexpr int kLanes = FormulaProgram::kLanes;
    const EntryTest& test = multi_test_;
    const int64_t* const L = multi_lanes_.data();
    const int64_t* const T = L + FamilyDesc::kT * kLanes;
    const int64_t* const col = ColumnLanes(L);
    const int64_t* const offset = L + static_cast<size_t>(prog_.offset_reg) * kLanes;
    const bool clamp = m_.range == RangeRule::kClamp;
    const bool packed = m_.range == RangeRule::kNone && m_.rows == RowsRule::kCsr;
    const bool null_block = HasNullBlock(m_.null_page);
    // Such a gate skips every token of a dummy, and the padding tokens.
    const bool pads_dummies = m_.gate.present() && !linked_ && m_.gate.absent == GateAbsent::kPadDummies;
    const int64_t real_tokens = b_.num_real_tokens();
    const int64_t page = plan_.page, null_entries = plan_.null_entries;
    const int outputs = plan_.outputs();
    // Every output owns its state (Batchable): no owns_none_ to read.
    for (int o = 0; o < outputs; ++o) owns_none_[o] = 0;
    int64_t* const slots = slots_[0];
    uint8_t unasked;  // the one output's fact when none are asked: written, never read
    for (int k = 0; k < n; ++k) {
      const int64_t column = col[k];
      if ((rejected[k] != 0) | (column < 0)) continue;
      const int64_t t = T[k];
      uint8_t& fact = facts_ ? facts_of_[0][t] : unasked;
      const int32_t row = lane_row_[k];
      const int64_t width = lane_width_[k];
      int64_t e;
      if (column < width) {
        e = table_.at(row, static_cast<int32_t>(column));
      } else if (clamp && width > 0) {
        e = table_.at(row, static_cast<int32_t>(width - 1));
      } else if (!packed || !PackedEntry(row, column, &e)) {
        continue;  // pad; a read past a table's row is PAD here, and row_bounds judges the kernel's
      }
      const bool null_id = null_block & (e < null_entries);
      const uint8_t must_pad = test.pad && null_id ? kFactMustPad : 0;
      if (!kOne && must_pad) AllFacts(t, kFactMustPad);
      const bool dummy = lane_dummy_[k] != 0;
      if ((test.pad && test.pad_range.Holds(e)) || (pads_dummies && (dummy || t >= real_tokens)) ||
          (test.gate && test.gate_range.Holds(linked_[t]))) {
        if (kOne) fact |= must_pad;
        continue;
      }
      const int64_t off = offset[k];
      int64_t slot;
      if (__builtin_mul_overflow(e, page, &slot) || __builtin_add_overflow(slot, off, &slot)) return kLanesRetry;
      const bool live = !dummy & !null_id & (static_cast<uint64_t>(off) < static_cast<uint64_t>(page));
      if (kOne) {
        slots[t] = slot;
        fact |= static_cast<uint8_t>(must_pad | (live ? kFactLiveTarget : 0));
        continue;
      }
      MapToOutputs(t, slot, live, L + k, kLanes);
    }
    return kLanesDone;
  }

  /// The rest of token t once its column is known: the entry, its tests,
  /// the offset (`lane_offset` when the lanes computed it) and the outputs.
  bool Address(const Where& at, int64_t t, int64_t col, const int64_t* lane_offset, std::string* err) {
    const int32_t row = at.row;
    const int64_t width = at.width;
    if (col < 0) return true;  // addresses no column
    int64_t entry;
    if (col < width) {
      entry = table_.at(row, static_cast<int32_t>(col));
    } else if (m_.range == RangeRule::kClamp && width > 0) {
      entry = table_.at(row, static_cast<int32_t>(width - 1));
    } else if (m_.range == RangeRule::kNone && m_.rows == RowsRule::kCsr) {
      if (!PackedEntry(row, col, &entry)) return true;  // past the packed indices too
    } else {
      return true;  // pad; a read past a table's row is PAD here, and row_bounds judges the kernel's
    }
    return AfterEntry(at, t, entry, lane_offset, err);
  }

  /// The rest of token t once its entry is known (read from the table, or
  /// derived from the linked slot): its tests, the offset (`lane_offset`
  /// when the lanes computed it) and the outputs.
  bool AfterEntry(const Where& at, int64_t t, int64_t entry, const int64_t* lane_offset, std::string* err) {
    const int32_t r = at.r;
    v_[FamilyDesc::kEntry] = entry;
    if (linked_) v_[FamilyDesc::kLinked] = linked_[t];
    {
      const FormulaProgram& after = linked_ ? prog_.after_entry_gate : prog_.after_entry;
      int32_t knob = 0;
      ExprError error = ExprError::kNone;
      if (after.Run(v_.data(), &knob, &error) == FormulaProgram::kDone) {
        entry = v_[FamilyDesc::kEntry];
        const bool null_id = HasNullBlock(m_.null_page) && entry < plan_.null_entries;
        if (!prog_.pad_entry.empty()) {
          if (null_id) AllFacts(t, kFactMustPad);
          if (v_[prog_.pad_reg]) return true;
        }
        if (m_.gate.present()) {
          if (linked_) {
            if (v_[prog_.gate_reg]) return true;
          } else if (m_.gate.absent == GateAbsent::kPadDummies && (at.dummy || t >= b_.num_real_tokens())) {
            return true;
          }
        }
        return Write(at, t, entry, null_id, v_[prog_.offset_reg], v_.data(), 1, err);
      }
      v_[FamilyDesc::kEntry] = entry;  // as it was before entry_map: the formulas one by one
    }
    bool unused = true;
    if (!prog_.entry_map.empty()) {
      // The caller's transform of the table (a clamp) before the kernel reads it.
      if (!Exec(prog_.entry_map_program, &unused, t, r, err)) return false;
      entry = v_[FamilyDesc::kEntry];
    }
    const bool null_id = HasNullBlock(m_.null_page) && entry < plan_.null_entries;
    if (!prog_.pad_entry.empty()) {
      if (null_id) AllFacts(t, kFactMustPad);
      if (!Exec(prog_.pad_entry_program, &unused, t, r, err)) return false;
      if (v_[prog_.pad_reg]) return true;
    }
    if (m_.gate.present()) {
      if (linked_) {
        v_[FamilyDesc::kLinked] = linked_[t];
        if (!Exec(prog_.gate_program, &unused, t, r, err)) return false;
        if (v_[prog_.gate_reg]) return true;
      } else if (m_.gate.absent == GateAbsent::kPadDummies && (at.dummy || t >= b_.num_real_tokens())) {
        return true;
      }
    }
    int64_t offset;
    if (lane_offset) {
      offset = *lane_offset;
    } else {
      if (!Exec(prog_.offset_program, &unused, t, r, err)) return false;
      offset = v_[prog_.offset_reg];
    }
    int64_t slot;
    if (__builtin_mul_overflow(entry, plan_.page, &slot) || __builtin_add_overflow(slot, offset, &slot))
      return Fail("offset", m_.offset, ExprError::kOverflow, t, r, err);
    const bool live = !at.dummy && !null_id && offset >= 0 && offset < plan_.page;
    const int outputs = plan_.outputs();
    for (int o = 0; o < outputs; ++o) {
      if (owns_none_[o]) continue;
      bool selected = true;
      if (!prog_.output_programs[o].empty() && !Exec(prog_.output_programs[o], &selected, t, r, err)) return false;
      if (!selected) continue;
      Mapped(o, t, slot, live);
    }
    return true;
  }

  /// Token t's slot into every output that selects it, the outputs'
  /// selects already computed (in `regs`, a register's value at reg * stride).
  bool Write(const Where& at, int64_t t, int64_t entry, bool null_id, int64_t offset, const int64_t* regs,
             size_t stride, std::string* err) {
    int64_t slot;
    if (__builtin_mul_overflow(entry, plan_.page, &slot) || __builtin_add_overflow(slot, offset, &slot))
      return Fail("offset", m_.offset, ExprError::kOverflow, t, at.r, err);
    const bool live = !at.dummy && !null_id && offset >= 0 && offset < plan_.page;
    MapToOutputs(t, slot, live, regs, stride);
    return true;
  }
  /// Token t's slot into every output that takes it: not one whose request
  /// owns none of its outputs' state, and where every select of the output
  /// (its registers in `regs`, `stride` apart) holds.
  void MapToOutputs(int64_t t, int64_t slot, bool live, const int64_t* regs, size_t stride) {
    const int outputs = plan_.outputs();
    if (simple_outputs_) {  // no output selects a token of its own
      for (int o = 0; o < outputs; ++o)
        if (!owns_none_[o]) Mapped(o, t, slot, live);
      return;
    }
    for (int o = 0; o < outputs; ++o) {
      if (owns_none_[o]) continue;
      bool selected = true;
      for (int32_t reg : prog_.output_select_regs[o]) selected = selected && regs[static_cast<size_t>(reg) * stride];
      if (selected) Mapped(o, t, slot, live);
    }
  }

  /// The lanes of the column: its register's, or, for a column that is
  /// one number, column_lanes_.
  const int64_t* ColumnLanes(const int64_t* L) const {
    return prog_.column_constant ? column_lanes_ : L + static_cast<size_t>(prog_.column_reg) * FormulaProgram::kLanes;
  }

  RunScratch own_;  // used only when the thread's scratch is taken
  RunScratch& s_;
  const GroupPlan& plan_;
  const MappingDesc& m_;
  std::vector<int64_t>& v_;
  const std::shared_ptr<const BoundMapping> bound_;
  const BoundMapping& prog_;
  const Batch& b_;
  const BlockTable& table_;
  const int64_t* linked_;
  const bool facts_;
  Interpretation* out_;
  std::vector<std::vector<uint8_t>>& mapped_;  // per output: the tokens the description maps (track_mapped_)
  std::vector<uint8_t>& owns_none_;            // per output, for the request at hand
  std::vector<int64_t*>& slots_;               // out_->slots[o].data()
  std::vector<uint8_t*>& facts_of_;            // out_->facts[o].data(), when facts_
  bool track_mapped_ = false;
  bool simple_outputs_ = true;
  bool one_output_ = false;  // one output without selects, no sink to track (Entries' common case)
  // The chunk of several short requests' tokens being gathered (Gather, Flush).
  bool multi_ = false;
  EntryTest multi_test_;
  struct Batched {
    int32_t r;
    int64_t begin, end;
  };
  Batched batch_[FormulaProgram::kLanes];
  int batch_n_ = 0;
  int64_t batch_tokens_ = 0;
  int64_t column_lanes_[FormulaProgram::kLanes];
  int32_t lane_row_[FormulaProgram::kLanes];
  int64_t lane_width_[FormulaProgram::kLanes];
  uint8_t lane_dummy_[FormulaProgram::kLanes];
  /// The registers over lanes (formula_program.h), per thread: no allocation per run.
  static thread_local std::vector<int64_t> lanes_;
  static thread_local std::vector<int64_t> multi_lanes_;  // the chunk's (Gather, Flush)
};

thread_local std::vector<int64_t> Run::lanes_;
thread_local std::vector<int64_t> Run::multi_lanes_;

}  // namespace

void SetRequestVars(const Batch& batch, int32_t r, int64_t* v) {
  const int64_t qb = batch.query_start_loc[r], qe = batch.query_start_loc[r + 1];
  v[FamilyDesc::kR] = r;
  v[FamilyDesc::kQ] = qe - qb;
  v[FamilyDesc::kQslBegin] = qb;
  v[FamilyDesc::kQslEnd] = qe;
  v[FamilyDesc::kSeqLen] = batch.seq_lens[r];
}

bool SetTokenVars(const Batch& batch, int32_t r, int64_t t, int64_t* v) {
  v[FamilyDesc::kT] = t;
  const int64_t i = t - batch.query_start_loc[r];
  v[FamilyDesc::kI] = i;
  v[FamilyDesc::kPos] = batch.positions[t];
  int64_t lp;
  if (__builtin_sub_overflow(batch.seq_lens[r], v[FamilyDesc::kQ], &lp) || __builtin_add_overflow(lp, i, &lp))
    return false;
  v[FamilyDesc::kLp] = lp;
  return true;
}

bool InputValues(const FamilyDesc& desc, const std::vector<int64_t>& params, const Batch& batch,
                 std::vector<std::vector<int64_t>>* values, std::string* err) {
  values->assign(desc.inputs.size(), {});
  if (desc.inputs.empty()) return true;
  std::vector<int64_t> v(desc.variables.size(), 0);
  for (size_t p = 0; p < params.size() && p < desc.params.size(); ++p) v[desc.param_var(p)] = params[p];
  v[FamilyDesc::kNumReqs] = batch.num_reqs();
  v[FamilyDesc::kNumTokens] = batch.num_tokens;
  v[FamilyDesc::kNumActualTokens] = batch.num_actual_tokens;
  v[FamilyDesc::kNumRealTokens] = batch.num_real_tokens();
  const int32_t R = batch.num_reqs();
  for (size_t k = 0; k < desc.inputs.size(); ++k) {
    const InputDesc& in = desc.inputs[k];
    std::vector<int64_t>& out = (*values)[k];
    const auto given = batch.inputs.find(in.name);
    if (given != batch.inputs.end()) {
      out = given->second.values;
      continue;
    }
    // The default, per request or per token (a token of no request: r -1, its request's variables 0).
    const int64_t n = in.per_token() ? batch.num_tokens : R;
    out.assign(static_cast<size_t>(n), 0);
    int64_t constant;
    if (in.default_value.IsConstant(&constant)) {
      std::fill(out.begin(), out.end(), constant);
      continue;
    }
    std::vector<int32_t> owner;
    if (in.per_token()) {
      owner.assign(static_cast<size_t>(n), -1);
      for (int32_t r = 0; r < R; ++r)
        for (int64_t t = batch.query_start_loc[r]; t < batch.query_start_loc[r + 1]; ++t) owner[t] = r;
    }
    for (int64_t e = 0; e < n; ++e) {
      const int32_t r = in.per_token() ? owner[e] : static_cast<int32_t>(e);
      if (r >= 0) {
        SetRequestVars(batch, r, v.data());
      } else {
        for (int32_t var : {FamilyDesc::kQ, FamilyDesc::kQslBegin, FamilyDesc::kQslEnd, FamilyDesc::kSeqLen,
                            FamilyDesc::kI, FamilyDesc::kLp})
          v[var] = 0;
        v[FamilyDesc::kR] = -1;
      }
      if (in.per_token()) {
        v[FamilyDesc::kT] = e;
        v[FamilyDesc::kPos] = batch.positions[e];
        if (r >= 0 && !SetTokenVars(batch, r, e, v.data())) v[FamilyDesc::kLp] = 0;
      }
      std::string why;
      if (!in.default_value.Evaluate(v.data(), &out[e], &why)) {
        *err = std::string(in.per_token() ? "token " : "request ") + std::to_string(e) + ": input '" + in.name +
               "' default (" + in.default_value.text() + "): " + why;
        return false;
      }
    }
  }
  return true;
}

void SetRequestInputs(const GroupPlan& plan, int32_t r, int64_t* v) {
  for (const GroupPlan::Input& in : plan.request_inputs) v[in.var] = plan.inputs[in.k][r];
}

void SetTokenInputs(const GroupPlan& plan, int64_t t, int64_t* v) {
  for (const GroupPlan::Input& in : plan.token_inputs) v[in.var] = plan.inputs[in.k][t];
}

bool Interpret(const GroupPlan& plan, const Batch& batch, const BlockTable& table, const int64_t* linked,
               bool with_facts, Interpretation* out, std::string* err) {
  return Run(plan, batch, table, linked, with_facts, out).Go(err);
}

std::vector<uint8_t> WriterSkipMask(const GroupPlan& plan, int output, const Batch& batch, const int64_t* linked) {
  const WriterDesc& writer = plan.mapping->outputs[output].writer;
  const bool gated = writer.gate.present() && linked;
  const bool dummies = writer.dummies == WriterDummies::kSkip;
  const bool tokens = !writer.token_skip.empty();
  if (!gated && !dummies && !tokens) return {};
  const int64_t n = batch.num_tokens;
  std::vector<uint8_t> skip(static_cast<size_t>(n), 0);
  if (dummies || tokens) {
    const std::vector<int32_t> owner = OwnersOf(*plan.mapping, batch, plan.mapped_end);
    std::vector<int64_t> v = plan.vars;
    for (int64_t t = 0; t < n; ++t) {
      const int32_t r = owner[t];
      if (dummies && r >= 0 && batch.is_dummy(r)) skip[t] = 1;
      if (!tokens || skip[t]) continue;
      // The writer's own test of the token (DeepSeek-V4's position test):
      // over the token's variables; a token of no request has only t and pos.
      v[FamilyDesc::kT] = t;
      v[FamilyDesc::kPos] = batch.positions[t];
      SetTokenInputs(plan, t, v.data());
      if (r >= 0) {
        SetRequestVars(batch, r, v.data());
        SetRequestInputs(plan, r, v.data());
        if (!SetTokenVars(batch, r, t, v.data())) continue;
      } else {
        for (const GroupPlan::Input& in : plan.request_inputs) v[in.var] = 0;
        for (int32_t var : {FamilyDesc::kR, FamilyDesc::kQ, FamilyDesc::kQslBegin, FamilyDesc::kQslEnd,
                            FamilyDesc::kSeqLen, FamilyDesc::kI, FamilyDesc::kLp})
          v[var] = var == FamilyDesc::kR ? -1 : 0;
      }
      int64_t value = 0;
      ExprError error = ExprError::kNone;
      // A test that fails to evaluate skips nothing: the writer writes.
      if (writer.token_skip.Evaluate(v.data(), &value, &error) && value != 0) skip[t] = 1;
    }
  }
  if (gated) {
    std::vector<int64_t> v = plan.vars;
    for (int64_t t = 0; t < n; ++t) {
      v[FamilyDesc::kLinked] = linked[t];
      int64_t value = 0;
      ExprError error = ExprError::kNone;
      // A test that fails to evaluate skips nothing: the writer writes.
      if (writer.gate.test.Evaluate(v.data(), &value, &error) && value != 0) skip[t] = 1;
    }
  }
  return skip;
}

WriteLanding LandingOf(const WriterDesc& writer, int64_t slot, int64_t pool_slots) {
  WriteLanding l;
  if (slot >= 0) {
    l.where = slot < pool_slots ? WriteLanding::kInPool : WriteLanding::kPastPool;
    l.slot = slot;
    return l;
  }
  if (writer.skip == WriterSkip::kNegative || (writer.skip == WriterSkip::kMinusOne && slot == -1)) return l;
  l.negative = true;
  switch (writer.negative) {
    case WriterNegative::kPointer:
      l.where = WriteLanding::kBeforePool;
      l.slot = slot;
      return l;
    case WriterNegative::kClamp0:
      l.where = WriteLanding::kInPool;
      l.slot = 0;
      return l;
    case WriterNegative::kIndex:
      break;
  }
  // A tensor index from the pool's end; one past the pool's size is still out of bounds.
  l.slot = slot + pool_slots;
  l.where = l.slot >= 0 ? WriteLanding::kInPool : WriteLanding::kBeforePool;
  return l;
}

namespace {

/// ForEachAddress's walk, calling fn inline; without `selects` it says
/// every token unselected and evaluates no select (FarthestColumn).
template <bool kSelects, class Fn>
void Addresses(const GroupPlan& plan, const Batch& batch, Fn&& fn) {
  const MappingDesc& m = *plan.mapping;
  std::vector<int64_t> v = plan.vars;
  const std::shared_ptr<const BoundMapping> bound = Bound(*plan.desc, m, &v);
  v.resize(static_cast<size_t>(bound->registers.size()), 0);
  bound->registers.Fill(v.data());
  const std::vector<int32_t> owner = OwnersOf(m, batch, plan.mapped_end);
  constexpr int kLanes = FormulaProgram::kLanes;
  const FormulaProgram& lanes_program = kSelects ? bound->lanes_address : bound->lanes_column;
  thread_local std::vector<int64_t> lanes;
  if (lanes_program.lanes_ok() && lanes.size() < v.size() * kLanes) lanes.resize(v.size() * kLanes);
  // A formula that fails here says no: not selected, or no column.
  int32_t knob = 0;
  ExprError error = ExprError::kNone;
  auto done = [&](const FormulaProgram& p) { return p.Run(v.data(), &knob, &error) == FormulaProgram::kDone; };
  for (int64_t t = 0; t < plan.mapped_end;) {
    const int32_t r = owner[t];
    int64_t end = t + 1;
    while (end < plan.mapped_end && owner[end] == r) ++end;
    if (r < 0) {
      t = end;
      continue;
    }
    // Per request: its variables, lets and selects.
    SetRequestVars(batch, r, v.data());
    SetRequestInputs(plan, r, v.data());
    const int64_t qb = batch.query_start_loc[r];
    const bool request_ok = done(bound->request_lets);
    const bool request_selected = kSelects && request_ok && done(bound->request_select_first);
    auto one = [&](int64_t u) {  // one token, one formula at a time
      int64_t col = INT64_MIN;
      bool selected = false;
      SetTokenInputs(plan, u, v.data());
      if (request_ok && SetTokenVars(batch, r, u, v.data())) {
        if (!kSelects) {
          if (!bound->column.empty() && done(bound->token_column)) col = v[bound->column_reg];
        } else if (done(bound->token_lets)) {
          selected = request_selected && done(bound->token_select_first);
          if (!bound->column.empty() && done(bound->column_only)) col = v[bound->column_reg];
        }
      }
      fn(u, r, selected, col);
    };
    if (!request_ok || !lanes_program.lanes_ok() || end - t < kMinLaneTokens) {
      for (; t < end; ++t) one(t);
      continue;
    }
    int64_t before;  // seq_len - q: lp = before + i
    const bool lp_ok = !__builtin_sub_overflow(batch.seq_lens[r], v[FamilyDesc::kQ], &before);
    for (; t < end; t += kLanes) {
      const int n = static_cast<int>(std::min<int64_t>(kLanes, end - t));
      int64_t* const L = lanes.data();
      int64_t* const T = L + FamilyDesc::kT * kLanes;
      int64_t* const I = L + FamilyDesc::kI * kLanes;
      int64_t* const P = L + FamilyDesc::kPos * kLanes;
      int64_t* const LP = L + FamilyDesc::kLp * kLanes;
      // i grows by one a lane: where neither the first lane's lp nor the
      // last's overflows, no lane's does.
      int64_t first_lp, last_lp;
      bool bad = !lp_ok || __builtin_add_overflow(before, t - qb, &first_lp) ||
                 __builtin_add_overflow(before, t + n - 1 - qb, &last_lp);
      const int64_t* const positions = batch.positions.data() + t;
      if (!bad)
        for (int k = 0; k < n; ++k) {
          T[k] = t + k;
          I[k] = t + k - qb;
          P[k] = positions[k];
          LP[k] = before + I[k];
        }
      uint8_t rejected[kLanes] = {};
      if (!bad) {
        lanes_program.Broadcast(v.data(), L, n);
        bad = !lanes_program.RunLanes(v.data(), L, n, rejected);
      }
      if (bad) {  // a failure on some lane: these tokens one at a time
        for (int k = 0; k < n; ++k) one(t + k);
        continue;
      }
      const int64_t* const col = L + static_cast<size_t>(bound->column_reg) * kLanes;
      for (int k = 0; k < n; ++k) fn(t + k, r, request_selected && !rejected[k], col[k]);
    }
    t = end;
  }
}

}  // namespace

void ForEachAddress(const GroupPlan& plan, const Batch& batch,
                    const std::function<void(int64_t t, int32_t r, bool selected, int64_t column)>& fn) {
  Addresses<true>(plan, batch, fn);
}

std::vector<ReadWindow> ReadWindows(const GroupPlan& plan, const Batch& batch) {
  std::vector<ReadWindow> windows;
  const MappingDesc& m = *plan.mapping;
  if (m.reads_from.empty()) return windows;
  // One token at a time (the judge's walk, not a hot path): its variables and
  // lets, its selects, then the two formulas of its window.
  std::vector<int64_t> v = plan.vars;
  const std::shared_ptr<const BoundMapping> bound = Bound(*plan.desc, m, &v);
  v.resize(static_cast<size_t>(bound->registers.size()), 0);
  bound->registers.Fill(v.data());
  const std::vector<int32_t> owner = OwnersOf(m, batch, plan.mapped_end);
  int32_t knob = 0;
  ExprError error = ExprError::kNone;
  auto done = [&](const FormulaProgram& p) { return p.Run(v.data(), &knob, &error) == FormulaProgram::kDone; };
  for (int64_t t = 0; t < plan.mapped_end; ++t) {
    const int32_t r = owner[t];
    if (r < 0) continue;
    if (t == 0 || owner[t - 1] != r) {
      SetRequestVars(batch, r, v.data());
      SetRequestInputs(plan, r, v.data());
    }
    SetTokenInputs(plan, t, v.data());
    ReadWindow w;
    w.t = t;
    w.r = r;
    w.ok = done(bound->request_lets) && SetTokenVars(batch, r, t, v.data()) && done(bound->token_lets);
    w.selected = w.ok && done(bound->request_select_first) && done(bound->token_select_first);
    w.ok = w.ok && bound->reads_from.expr.Evaluate(v.data(), &w.from, &error) &&
           bound->reads_to.expr.Evaluate(v.data(), &w.to, &error);
    windows.push_back(w);
  }
  return windows;
}

int64_t FarthestColumn(const GroupPlan& plan, const Batch& batch) {
  // What a kernel without its guards reads: every token's column formula,
  // whatever its selects and the row's width say.
  int64_t farthest = -1;
  Addresses<false>(plan, batch, [&](int64_t, int32_t, bool, int64_t col) { farthest = std::max(farthest, col); });
  return farthest;
}

}  // namespace slotguard
