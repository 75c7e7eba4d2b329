// The interpreter of family descriptions (docs/family-format.md, "What a
// description computes"): every knob applied in one order, per token.
#include "family/family_plan.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>

namespace slotguard {
namespace {

constexpr int64_t kPad = -1;

/// The fixed variables a token sets (the others are set per request).
bool TokenVariable(int32_t var) {
  return var == FamilyDesc::kT || var == FamilyDesc::kI || var == FamilyDesc::kPos || var == FamilyDesc::kLp;
}

bool GroupFormula(const Expr& e, const std::vector<int64_t>& vars, const char* knob, int64_t* value,
                  std::string* err) {
  std::string why;
  if (e.Evaluate(vars.data(), value, &why)) return true;
  *err = std::string("the description's '") + knob + "' (" + e.text() + "): " + why;
  return false;
}

/// The variables fixed for a whole group run: what Bind folds.
bool GroupVariable(int32_t var) {
  return var == FamilyDesc::kNumReqs || var == FamilyDesc::kNumTokens || var == FamilyDesc::kNumActualTokens ||
         var == FamilyDesc::kNumRealTokens || var >= FamilyDesc::kFixedVars;
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
  Step reads_from, reads_to;  // always per token; empty without `reads`
  std::vector<std::vector<Step>> output_select;
};

/// Binds the mapping's formulas to the group's constants in `vars`: the
/// parameters and the batch's sizes, then every let they alone decide
/// (whose values it writes into *vars).
std::shared_ptr<const BoundMapping> BindMapping(const FamilyDesc& desc, const MappingDesc& m,
                                                std::vector<int64_t>* vars) {
  auto out = std::make_shared<BoundMapping>();
  std::vector<std::optional<int64_t>> constants(desc.variables.size());
  for (size_t v = 0; v < constants.size(); ++v)
    if (GroupVariable(static_cast<int32_t>(v)) && !std::any_of(m.lets.begin(), m.lets.end(), [&](const LetDesc& l) {
          return l.var == static_cast<int32_t>(v);
        }))
      constants[v] = (*vars)[v];
  std::vector<bool> token_var(desc.variables.size(), false);
  for (int32_t v = 0; v < FamilyDesc::kFixedVars; ++v) token_var[v] = TokenVariable(v);
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
  out->entry_map = step(m.entry_map, true);
  out->pad_entry = step(m.pad_entry, true);
  out->gate = step(m.gate.test, true);
  out->reads_from = step(m.reads_from, true);
  out->reads_to = step(m.reads_to, true);
  for (const OutputDesc& o : m.outputs) {
    out->output_select.push_back(selects(o.select));
  }
  return out;
}

/// A mapping bound to one set of group constants, with the values of the
/// lets those constants decide.
struct BoundEntry {
  std::shared_ptr<const BoundMapping> bound;
  std::vector<std::pair<int32_t, int64_t>> let_values;
  std::weak_ptr<const void> lifetime;  // the mapping's formulas: expired once the description is freed
};

/// The values BindMapping folds into the formulas: every group variable a
/// let does not assign (the others INT64_MIN). A mapping's binding is a
/// function of them alone. Into *key, whose storage is reused.
void BindKey(const FamilyDesc& desc, const MappingDesc& m, const std::vector<int64_t>& vars,
             std::vector<int64_t>* key) {
  key->assign(desc.variables.size(), INT64_MIN);
  for (size_t v = 0; v < key->size(); ++v)
    if (GroupVariable(static_cast<int32_t>(v))) (*key)[v] = vars[v];
  for (const LetDesc& l : m.lets) (*key)[static_cast<size_t>(l.var)] = INT64_MIN;
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
  if (lifetime.expired()) lifetime = m.offset.Lifetime();
  if (lifetime.expired()) return BindMapping(desc, m, vars);  // nothing to tell its formulas apart by
  using Key = std::pair<const MappingDesc*, std::vector<int64_t>>;
  thread_local std::unordered_map<Key, BoundEntry, BindKeyHash> cache;
  thread_local Key key;  // the lookup's, its storage reused: a hit allocates nothing
  constexpr size_t kMaxEntries = 4096;
  key.first = &m;
  BindKey(desc, m, *vars, &key.second);
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
    case TailFrom::kRealTokens:
      break;
  }
  return batch.num_real_tokens();
}

std::vector<int32_t> OwnersOf(const MappingDesc& mapping, const Batch& batch, int64_t mapped_end) {
  std::vector<int32_t> owner(static_cast<size_t>(batch.num_tokens), -1);
  const int32_t R = batch.num_reqs();
  for (int32_t r = 0; r < R; ++r)
    for (int64_t t = batch.query_start_loc[r]; t < batch.query_start_loc[r + 1]; ++t) owner[t] = r;
  if (mapping.owner == OwnerRule::kLastRequest && R > 0)
    for (int64_t t = batch.num_real_tokens(); t < mapped_end; ++t) owner[t] = R - 1;
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
  return true;
}

namespace {

/// The per-token loop, with the plan's variables as its own copy.
class Run {
 public:
  Run(const GroupPlan& plan, const Batch& batch, const BlockTable& table, const int64_t* linked, bool facts,
      Interpretation* out)
      : plan_(plan), m_(*plan.mapping), v_(plan.vars), bound_(Bound(*plan.desc, m_, &v_)), prog_(*bound_),
        b_(batch), table_(table), linked_(linked), facts_(facts),
        out_(out) {}

  bool Go(std::string* err) {
    const size_t n = static_cast<size_t>(b_.num_tokens);
    const int outputs = plan_.outputs();
    out_->slots.resize(outputs);
    for (auto& s : out_->slots) s.assign(n, m_.pad_value);
    mapped_.assign(static_cast<size_t>(outputs), std::vector<uint8_t>(n, 0));
    out_->facts.resize(facts_ ? outputs : 0);
    for (auto& f : out_->facts) f.assign(n, 0);
    out_->owner = OwnersOf(m_, b_, plan_.mapped_end);
    // The tail.
    for (int64_t t = plan_.mapped_end; t < b_.num_tokens; ++t) {
      const int64_t value = m_.tail_value == TailValue::kSlotMappingIn ? b_.slot_mapping_in[t]
                            : m_.tail_value == TailValue::kNullSlot   ? 0
                                                                       : m_.pad_value;
      for (int o = 0; o < outputs; ++o) out_->slots[o][t] = value;
      if (m_.null_page == NullPage::kSink) AllFacts(t, kFactSinkOk);  // a padding token owns no state
    }
    const bool sink = m_.null_page == NullPage::kSink;
    // Tokens before the tail, by owner: a run of tokens of one request at a time.
    const std::vector<int32_t>& owner = out_->owner;
    for (int64_t t = 0; t < plan_.mapped_end;) {
      const int32_t r = owner[t];
      int64_t end = t + 1;
      while (end < plan_.mapped_end && owner[end] == r) ++end;
      if (r < 0) {
        if (facts_ && sink)
          for (int o = 0; o < outputs; ++o)
            for (int64_t u = t; u < end; ++u) out_->facts[o][u] |= kFactSinkOk;
      } else if (!Request(r, t, end, err)) {
        return false;
      }
      t = end;
    }
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
  bool Fail(const char* knob, const Expr& e, ExprError error, int64_t t, int32_t r, std::string* err) {
    *err = "token " + std::to_string(t) + " (request " + std::to_string(r) + "): the description's '" + knob +
           "' (" + e.text() + "): " + ExprErrorText(error);
    return false;
  }
  bool Eval(const Step& s, const char* knob, int64_t* value, int64_t t, int32_t r, std::string* err) {
    ExprError error = ExprError::kNone;
    if (s.expr.Evaluate(v_.data(), value, &error)) return true;
    return Fail(knob, s.expr, error, t, r, err);
  }
  /// The lets of one level (per request, or per token).
  bool Lets(bool per_token, int64_t t, int32_t r, std::string* err) {
    for (const BoundLet& let : prog_.lets)
      if (!let.constant && let.step.per_token == per_token &&
          !Eval(let.step, let.name->c_str(), &v_[let.var], t, r, err))
        return false;
    return true;
  }
  /// Whether every select of one level holds.
  bool Selects(const std::vector<Step>& steps, bool per_token, bool* holds, int64_t t, int32_t r, std::string* err) {
    for (const Step& s : steps) {
      if (s.per_token != per_token) continue;
      int64_t value;
      if (!Eval(s, "select", &value, t, r, err)) return false;
      if (value == 0) {
        *holds = false;
        return true;
      }
    }
    return true;
  }
  void Fact(int o, int64_t t, uint8_t bit) {
    if (facts_) out_->facts[o][t] |= bit;
  }
  void AllFacts(int64_t t, uint8_t bit) {
    if (facts_)
      for (auto& f : out_->facts) f[t] |= bit;
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
    const int64_t qb = b_.query_start_loc[r], qe = b_.query_start_loc[r + 1];
    v_[FamilyDesc::kWidth] = has_row ? table_.row_width(row) : 0;
    v_[FamilyDesc::kRows] = table_.rows;
    // An output owns no state for this request when the request reads no
    // row, or is a dummy its dummy rule pads: its tokens stay unmapped there.
    const int outputs = plan_.outputs();
    std::vector<uint8_t> owns_none(static_cast<size_t>(outputs), 0);
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
    if (!Lets(false, begin, r, err)) return false;
    bool request_holds = true;
    if (!Selects(prog_.select, false, &request_holds, begin, r, err)) return false;
    if (!request_holds) return true;  // every token PAD, nothing addressed
    const int64_t width = v_[FamilyDesc::kWidth];
    for (int64_t t = begin; t < end; ++t) {
      v_[FamilyDesc::kT] = t;
      const int64_t i = t - qb;
      v_[FamilyDesc::kI] = i;
      v_[FamilyDesc::kPos] = b_.positions[t];
      int64_t lp;
      if (__builtin_sub_overflow(b_.seq_lens[r], qe - qb, &lp) || __builtin_add_overflow(lp, i, &lp))
        return Fail("lp", m_.column, ExprError::kOverflow, t, r, err);
      v_[FamilyDesc::kLp] = lp;
      if (!Lets(true, t, r, err)) return false;
      bool holds = true;
      if (!Selects(prog_.select, true, &holds, t, r, err)) return false;
      if (!holds) continue;
      int64_t col;
      if (!Eval(prog_.column, "column", &col, t, r, err)) return false;
      if (col < 0) continue;  // addresses no column
      int64_t entry;
      if (col < width) {
        entry = table_.at(row, static_cast<int32_t>(col));
      } else if (m_.range == RangeRule::kClamp && width > 0) {
        entry = table_.at(row, static_cast<int32_t>(width - 1));
      } else if (m_.range == RangeRule::kNone && m_.rows == RowsRule::kCsr) {
        if (!PackedEntry(row, col, &entry)) continue;  // past the packed indices too
      } else {
        continue;  // pad; a read past a table's row is PAD here, and row_bounds judges the kernel's
      }
      v_[FamilyDesc::kEntry] = entry;
      if (!prog_.entry_map.empty()) {
        // The caller's transform of the table (a clamp) before the kernel reads it.
        if (!Eval(prog_.entry_map, "entry_map", &entry, t, r, err)) return false;
        v_[FamilyDesc::kEntry] = entry;
      }
      const bool null_id = HasNullBlock(m_.null_page) && entry < plan_.null_entries;
      if (!prog_.pad_entry.empty()) {
        if (null_id) AllFacts(t, kFactMustPad);
        int64_t pad;
        if (!Eval(prog_.pad_entry, "pad_entry", &pad, t, r, err)) return false;
        if (pad) continue;
      }
      if (m_.gate.present()) {
        if (linked_) {
          v_[FamilyDesc::kLinked] = linked_[t];
          int64_t pad;
          ExprError error = ExprError::kNone;
          if (!prog_.gate.expr.Evaluate(v_.data(), &pad, &error)) return Fail("gate", prog_.gate.expr, error, t, r, err);
          if (pad) continue;
        } else if (m_.gate.absent == GateAbsent::kPadDummies && (dummy || t >= b_.num_real_tokens())) {
          continue;
        }
      }
      int64_t offset, slot;
      if (!Eval(prog_.offset, "offset", &offset, t, r, err)) return false;
      if (__builtin_mul_overflow(entry, plan_.page, &slot) || __builtin_add_overflow(slot, offset, &slot))
        return Fail("offset", m_.offset, ExprError::kOverflow, t, r, err);
      const bool live = !dummy && !null_id && offset >= 0 && offset < plan_.page;
      for (int o = 0; o < outputs; ++o) {
        if (owns_none[o]) continue;
        bool selected = true;
        if (!Selects(prog_.output_select[o], false, &selected, t, r, err) ||
            (selected && !Selects(prog_.output_select[o], true, &selected, t, r, err)))
          return false;
        if (!selected) continue;
        out_->slots[o][t] = slot;
        mapped_[o][t] = 1;
        if (live) Fact(o, t, kFactLiveTarget);
      }
    }
    return true;
  }

  const GroupPlan& plan_;
  const MappingDesc& m_;
  std::vector<int64_t> v_;
  const std::shared_ptr<const BoundMapping> bound_;
  const BoundMapping& prog_;
  const Batch& b_;
  const BlockTable& table_;
  const int64_t* linked_;
  const bool facts_;
  Interpretation* out_;
  std::vector<std::vector<uint8_t>> mapped_;  // per output: the tokens the description maps
};

}  // namespace

void SetRequestVars(const Batch& batch, int32_t r, int64_t* v) {
  const int64_t qb = batch.query_start_loc[r], qe = batch.query_start_loc[r + 1];
  v[FamilyDesc::kR] = r;
  v[FamilyDesc::kQ] = qe - qb;
  v[FamilyDesc::kQslBegin] = qb;
  v[FamilyDesc::kQslEnd] = qe;
  v[FamilyDesc::kSeqLen] = batch.seq_lens[r];
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
      if (r >= 0) {
        SetRequestVars(batch, r, v.data());
        const int64_t i = t - batch.query_start_loc[r];
        v[FamilyDesc::kI] = i;
        int64_t lp = 0;
        if (__builtin_sub_overflow(batch.seq_lens[r], v[FamilyDesc::kQ], &lp) || __builtin_add_overflow(lp, i, &lp))
          continue;
        v[FamilyDesc::kLp] = lp;
      } else {
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

/// ForEachAddress's walk, handing fn the token's variables too (its lets
/// evaluated; `ok` false when a formula failed on it) and the bound mapping.
template <typename Fn>
void WalkAddresses(const GroupPlan& plan, const Batch& batch, Fn&& fn) {
  const MappingDesc& m = *plan.mapping;
  std::vector<int64_t> v = plan.vars;
  const std::shared_ptr<const BoundMapping> bound = Bound(*plan.desc, m, &v);
  const std::vector<int32_t> owner = OwnersOf(m, batch, plan.mapped_end);
  ExprError error = ExprError::kNone;
  auto holds = [&](const std::vector<Step>& steps, bool per_token) {
    for (const Step& s : steps) {
      if (s.per_token != per_token) continue;
      int64_t x;
      if (!s.expr.Evaluate(v.data(), &x, &error) || x == 0) return false;
    }
    return true;
  };
  auto lets = [&](bool per_token) {
    for (const BoundLet& let : bound->lets)
      if (!let.constant && let.step.per_token == per_token && !let.step.expr.Evaluate(v.data(), &v[let.var], &error))
        return false;
    return true;
  };
  const std::vector<Step> none;
  const std::vector<Step>& first_output = bound->output_select.empty() ? none : bound->output_select[0];
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
    const int64_t qb = batch.query_start_loc[r];
    const bool request_ok = lets(false);
    const bool request_selected = request_ok && holds(bound->select, false) && holds(first_output, false);
    for (; t < end; ++t) {
      v[FamilyDesc::kT] = t;
      v[FamilyDesc::kI] = t - qb;
      v[FamilyDesc::kPos] = batch.positions[t];
      int64_t lp;
      int64_t col = INT64_MIN;
      bool selected = false, ok = false;
      if (request_ok && !__builtin_sub_overflow(batch.seq_lens[r], v[FamilyDesc::kQ], &lp) &&
          !__builtin_add_overflow(lp, t - qb, &lp)) {
        v[FamilyDesc::kLp] = lp;
        if (lets(true)) {
          selected = request_selected && holds(bound->select, true) && holds(first_output, true);
          ok = bound->column.expr.Evaluate(v.data(), &col, &error);
          if (!ok) col = INT64_MIN;
        }
      }
      fn(t, r, selected, col, ok, v.data(), *bound);
    }
  }
}

}  // namespace

void ForEachAddress(const GroupPlan& plan, const Batch& batch,
                    const std::function<void(int64_t t, int32_t r, bool selected, int64_t column)>& fn) {
  WalkAddresses(plan, batch, [&](int64_t t, int32_t r, bool selected, int64_t col, bool, const int64_t*,
                                 const BoundMapping&) { fn(t, r, selected, col); });
}

std::vector<ReadWindow> ReadWindows(const GroupPlan& plan, const Batch& batch) {
  std::vector<ReadWindow> windows;
  if (plan.mapping->reads_from.empty()) return windows;
  WalkAddresses(plan, batch, [&](int64_t t, int32_t r, bool selected, int64_t, bool ok, const int64_t* v,
                                 const BoundMapping& bound) {
    ReadWindow w;
    w.t = t;
    w.r = r;
    w.selected = selected;
    ExprError error = ExprError::kNone;
    w.ok = ok && bound.reads_from.expr.Evaluate(v, &w.from, &error) && bound.reads_to.expr.Evaluate(v, &w.to, &error);
    windows.push_back(w);
  });
  return windows;
}

int64_t FarthestColumn(const GroupPlan& plan, const Batch& batch) {
  // What a kernel without its guards reads: every token's column formula,
  // whatever its selects and the row's width say.
  int64_t farthest = -1;
  ForEachAddress(plan, batch, [&](int64_t, int32_t, bool, int64_t col) { farthest = std::max(farthest, col); });
  return farthest;
}

}  // namespace slotguard
