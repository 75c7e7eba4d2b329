#include "prove/enumeration.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "family/family_plan.h"
#include "family/request_plan.h"
#include "prove/boundaries.h"
#include "registry/families.h"
#include "family/group_model.h"
#include "family/shape_lists.h"

namespace slotguard {
namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
/// The farthest column counted: past it a row is too wide to lay out anyway.
constexpr int64_t kFarColumn = int64_t{1} << 40;
/// The "before reduction" count's budgets: states times steps of its DP,
/// per cell and over the whole scope (past either the claim says
/// "uncounted", and no later cell is counted).
constexpr int64_t kBeforeCellBudget = int64_t{1} << 23;
constexpr int64_t kBeforeBudget = int64_t{1} << 25;
/// The longest fresh prefill a scope's fresh_prefills give (tokens).
constexpr int32_t kMaxFreshPrefill = 8192;

/// Whether a group's rows may be narrower than what its requests address
/// (a range guard pads past them; a per-request kind's live request must
/// find its columns), and whether they are ragged (CSR): its kind's model.
bool Guarded(const Group& g) { return FamilyModel(g.family).rows_guarded(); }
bool Csr(const Group& g) { return FamilyModel(g.family).ragged_rows(); }

/// num_actual_tokens of a batch of `real` tokens (qsl[R]) and `num_tokens`.
int64_t NumActualTokens(NumActual actual, int64_t real, int64_t num_tokens) {
  switch (actual) {
    case NumActual::kRealTokens: return real;
    case NumActual::kNumTokens: return num_tokens;
    case NumActual::kBeforeLast: return real - 1;
    case NumActual::kInside: return real + 1;
  }
  return real;
}

/// The tokens past the real ones (`real`: qsl[R]) at the shape lists'
/// clamp positions, past int32, in turn.
void SetClampPositions(Batch* b, int64_t real) {
  const std::vector<int64_t>& far = ClampPositions();
  for (size_t t = static_cast<size_t>(real); t < b->positions.size(); ++t)
    b->positions[t] = far[(t - static_cast<size_t>(real)) % far.size()];
}

/// One request of `tokens` tokens after `context`, then `padding` padding
/// tokens, num_actual_tokens as `actual` says: the batch the column walks
/// below read a request's columns from.
Batch OneRequestBatch(int32_t tokens, int64_t context, int32_t padding, NumActual actual, bool clamp_far = false) {
  Batch b;
  b.query_start_loc = {0, tokens};
  b.seq_lens = {context + tokens};
  b.positions.assign(static_cast<size_t>(tokens) + static_cast<size_t>(padding), 0);
  for (int32_t i = 0; i < tokens; ++i) b.positions[static_cast<size_t>(i)] = context + i;
  if (clamp_far) SetClampPositions(&b, tokens);
  b.num_tokens = tokens + padding;
  b.num_actual_tokens = NumActualTokens(actual, tokens, b.num_tokens);
  b.idx_mapping = {0};
  b.slot_mapping_in.assign(static_cast<size_t>(b.num_tokens), kPadSlot);
  return b;
}

/// The columns a request of `tokens` tokens after `context` reads in `g`:
/// the farthest any of its tokens' column formula gives, + 1 (0: none);
/// -1 when the group's formulas cannot be bound.
/// As the last request of a batch with `padding` padding tokens and
/// num_actual_tokens `actual` (an owner rule may give it tokens past qsl[R]).
int64_t NeededColumns(const Group& g, int32_t tokens, int64_t context, int32_t padding = 0,
                      NumActual actual = NumActual::kRealTokens, bool clamp_far = false) {
  const Batch b = OneRequestBatch(tokens, context, padding, actual, clamp_far);
  std::vector<int64_t> needed;
  if (!GroupModel(g).NeededColumns(b, kFarColumn, &needed)) return -1;
  return needed[0];
}

/// Whether `g` is a block operation kind with sources and one entry per
/// manager block: its live requests may hold the null block where an
/// operation reads (a state block freed two steps ago, a prefix hit's null
/// columns), a state of the engine the enumeration gives its own symbol.
bool NullSourceGroup(const Group& g) {
  return FamilyModel(g.family).reads_source_columns() && NullEntries(g) == 1;
}

/// The source columns in [0, n) of a request of `tokens` tokens after
/// `context` in `g` with rows `width` wide (as the last request of a batch
/// with `padding` padding tokens and num_actual_tokens `actual`).
std::vector<int64_t> SourceColumns(const Group& g, int32_t tokens, int64_t context, int64_t width, int64_t n,
                                   int32_t padding = 0, NumActual actual = NumActual::kRealTokens,
                                   bool clamp_far = false) {
  const Batch b = OneRequestBatch(tokens, context, padding, actual, clamp_far);
  std::vector<int64_t> cols;
  GroupModel(g).ForEachColumn(b, width, [&](int32_t, int64_t col, bool source, bool) {
    if (source && col >= 0 && col < n) cols.push_back(col);
  });
  std::sort(cols.begin(), cols.end());
  cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
  return cols;
}

/// Per request of `batch`: the columns its tokens read in `g` (as NeededColumns).
std::vector<int64_t> NeededInBatch(const Group& g, const Batch& batch) {
  std::vector<int64_t> needed;
  if (!GroupModel(g).NeededColumns(batch, kFarColumn, &needed)) needed.assign(static_cast<size_t>(batch.num_reqs()), 0);
  return needed;
}

std::string ParamsText(const Group& g) {
  const std::vector<ParamDesc>& params = FamilyModel(g.family).params();
  std::string text;
  for (size_t p = 0; p < params.size(); ++p) {
    const ParamDesc& param = params[p];
    std::string value;
    if (param.type == ParamType::kGroup)
      value = g.links[p].empty() ? "absent" : g.links[p];
    else if (param.type == ParamType::kBool)
      value = g.params[p] ? "true" : "false";
    else
      value = std::to_string(g.params[p]);
    text += (text.empty() ? "" : ", ") + param.name + "=" + value;
  }
  return std::string(GetFamily(g.family).name) + "(" + text + ")";
}

int64_t RoundUp(int64_t n, int64_t to) { return (n + to - 1) / to * to; }

/// A dummy run's rows for the scope's stale rows: zeros for null, a
/// finished request's blocks for fresh, reused and mixed (no live request
/// to reuse from: its own blocks), none for minus_one (an engine's dummy
/// run leaves zeros or stale blocks, docs/prove.md).
std::vector<StaleRow> DummyRunStales(const std::vector<StaleRow>& listed) {
  std::vector<StaleRow> out;
  for (StaleRow stale : listed) {
    const StaleRow as = stale == StaleRow::kNull ? StaleRow::kNull
                        : stale == StaleRow::kMinusOne ? StaleRow::kMinusOne
                                                       : StaleRow::kFresh;
    if (as != StaleRow::kMinusOne && std::find(out.begin(), out.end(), as) == out.end()) out.push_back(as);
  }
  if (out.empty()) out.push_back(StaleRow::kNull);
  return out;
}

/// Every element of every input the groups' families declare the pick-th
/// value of its own shape list (InputValueList; its last where the list is
/// shorter). An input two groups share is set once.
void SweepInputs(const std::vector<Group>& groups, int32_t pick, Batch* b) {
  for (const Group& g : groups) {
    const GroupModel model(g);
    const std::vector<InputDesc>& inputs = model.inputs();
    if (inputs.empty()) continue;
    std::vector<std::vector<int64_t>> defaults;
    std::string unused;
    if (!model.InputValues(*b, &defaults, &unused)) continue;
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (b->inputs.count(inputs[k].name)) continue;
      BatchInput input;
      input.per_token = inputs[k].per_token();
      const std::vector<int32_t> owner =
          input.per_token ? OwnersOf(model.mapping(), *b, b->num_tokens) : std::vector<int32_t>();
      input.values = defaults[k];
      for (size_t e = 0; e < input.values.size(); ++e) {
        const int32_t r = input.per_token ? owner[e] : static_cast<int32_t>(e);
        const std::vector<int64_t> list = ElementValueList(g, k, defaults[k][e], *b, r);
        input.values[e] = list[std::min(static_cast<size_t>(pick), list.size() - 1)];
      }
      b->inputs.emplace(inputs[k].name, std::move(input));
    }
  }
}

}  // namespace

bool Enumeration::Build(const Scope& scope, const EnumerationOptions& options, std::string* err) {
  scope_ = scope;
  options_ = options;
  configs_.clear();
  spans_.clear();
  cells_.clear();
  alphabets_.clear();
  alphabet_index_.clear();
  last_shapes_.clear();
  last_shape_index_.clear();
  tuple_starts_.clear();
  count_ = 0;
  before_ = 0;
  before_work_ = 0;
  for (size_t part = 0; part < scope.parts.size(); ++part)
    for (Family family : options.families)
      if (!AddFamily(part, family, err)) return false;
  if (count_ == 0) {
    *err = "scope " + scope.name + " holds no batch for these families";
    return false;
  }
  if (count_ == kSaturated) {
    *err = "scope " + scope.name + " holds more batches than a 64-bit count (2^63 - 1); expected a smaller scope";
    return false;
  }
  if (!options.reduce && count_ > kMaxFullSpace) {
    *err = "scope " + scope.name + " holds " + std::to_string(count_) +
           " batches before reduction; expected at most " + std::to_string(kMaxFullSpace) +
           " to enumerate them all (the full space is for small scopes)";
    return false;
  }
  if (!options.reduce) before_ = static_cast<long double>(count_);
  return true;
}

namespace {

/// Sets parameter `name` of a linked group to `value`, and the parameter it
/// must divide to `value` as well where `value` does not divide it (so a
/// kernel block equal to a derived group's logical block keeps a manager
/// block it divides); false
/// when the group's ranges or constraints then fail.
bool TakeValue(Group* g, const std::string& name, int64_t value) {
  const FamilyModel model(g->family);
  const int32_t q = model.FindParam(name);
  if (q < 0) return false;
  g->params[static_cast<size_t>(q)] = value;
  const std::string& divides = model.params()[static_cast<size_t>(q)].divides;
  if (!divides.empty() && value > 0 && ParamOf(*g, divides) % value != 0) SetParam(g, divides, value);
  for (size_t p = 0; p < model.params().size(); ++p)
    if (model.params()[p].is_int() &&
        (g->params[p] < model.params()[p].min || g->params[p] > ParamMax(*g, p)))
      return false;
  return GroupModel(*g).ConstraintsHold();
}

}  // namespace

bool Enumeration::AddFamily(size_t part, Family family, std::string* err) {
  const std::vector<ParamDesc>& family_params = FamilyModel(family).params();
  const ScopePart& scope_part = scope_.parts[part];
  for (const std::vector<int64_t>& params : ParamTuples(family, scope_part)) {
    Group main = ExampleGroup(family, GetFamily(family).name);
    main.params = params;
    // Each link: a group of the family it names (at its examples), or
    // none, as the scope says. A family that itself reads another group
    // is not linked to (the engines wire a gate to a plain group).
    std::vector<size_t> link_params;
    std::vector<std::vector<Group>> choices;  // per link: the groups it may name (an empty name: none)
    for (size_t p = 0; p < family_params.size(); ++p) {
      if (family_params[p].type != ParamType::kGroup) continue;
      link_params.push_back(p);
      std::vector<Group> these;
      Family target;
      std::string unused;
      const bool can = FindFamily(family_params[p].family, &target, &unused) && !ReadsAnotherGroup(target);
      for (LinkMode mode : scope_part.links) {
        if (mode == LinkMode::kAbsent) these.push_back(Group());
        if (mode == LinkMode::kPresent && can) these.push_back(ExampleGroup(target, GetFamily(target).name));
      }
      if (these.empty()) these.push_back(Group());  // present asked, no such family: none
      choices.push_back(these);
    }
    std::vector<size_t> pick(choices.size(), 0);
    for (;;) {
      ProveConfig config;
      config.part = static_cast<int32_t>(part);
      Group g = main;
      bool linked_ok = true;
      for (size_t l = 0; l < choices.size(); ++l) {
        Group linked = choices[l][pick[l]];
        if (linked.name.empty()) continue;
        // A name no other group of the batch has.
        std::string name = linked.name;
        for (int k = 1; name == g.name || std::any_of(config.groups.begin(), config.groups.end(),
                                                       [&](const Group& o) { return o.name == name; });
             ++k)
          name = linked.name + "_" + std::to_string(k);
        linked.name = name;
        g.links[link_params[l]] = name;
        // A parameter that equals the linked group's: the linked group takes
        // this group's value (and the parameters it divides take it too).
        for (size_t p = 0; p < family_params.size(); ++p)
          if (family_params[p].equals_link == static_cast<int32_t>(link_params[l]))
            linked_ok = linked_ok && TakeValue(&linked, family_params[p].equals_param, g.params[p]);
        config.groups.push_back(linked);
      }
      // A derived group without its source derives nothing: no batch.
      const int32_t source = FamilyModel(family).derived_from();
      if (source >= 0 && g.links[static_cast<size_t>(source)].empty()) linked_ok = false;
      config.groups.push_back(g);
      config.main = config.groups.size() - 1;
      config.label = (scope_.parts.size() > 1 ? "part " + std::to_string(part + 1) + ": " : std::string()) + ParamsText(g);
      if (linked_ok && !AddConfig(std::move(config), err)) return false;
      size_t l = 0;
      while (l < pick.size() && ++pick[l] == choices[l].size()) pick[l++] = 0;
      if (l == pick.size()) break;
    }
  }
  return true;
}

bool Enumeration::AddConfig(ProveConfig config, std::string* err) {
  const ScopePart& s = scope_.parts[static_cast<size_t>(config.part)];
  // Contexts: the scope's, and each formula boundary of every group moved
  // by the scope's offsets.
  // With past_int32 contexts, 2^31 is a boundary of each group whose
  // columns there fit a row (a large page), for a provider that reads
  // seq_lens as int64 (family/shape_lists.h).
  const bool far_contexts = options_.int64_seq_lens && std::count(s.past_int32.begin(), s.past_int32.end(),
                                                                   PastInt32::kContexts) > 0;
  std::vector<int64_t> contexts = s.contexts;
  for (const Group& g : config.groups) {
    std::vector<int64_t> boundaries = FormulaBoundaries(g);
    if (far_contexts && MeetsPastInt32(g, kMaxProveWidth)) boundaries.push_back(kPastInt32Position);
    for (int64_t b : boundaries)
      for (int64_t o : s.boundary_offsets)
        if (b + o >= 0 && b + o <= kMaxPosition - 65536) contexts.push_back(b + o);
  }
  std::sort(contexts.begin(), contexts.end());
  contexts.erase(std::unique(contexts.begin(), contexts.end()), contexts.end());
  config.contexts = contexts;
  // The requests' spans: tokens and context, with the columns they read.
  bool one_token = false;
  for (const Group& g : config.groups) one_token |= FamilyModel(g.family).one_token_per_request();
  // Each request shape (tokens, context): the scope's tokens after every
  // context, and the fresh prefills longer than a block (at context 0).
  std::vector<std::pair<int32_t, int64_t>> shapes;
  for (int32_t q : s.tokens)
    for (int64_t ctx : contexts) shapes.emplace_back(q, ctx);
  for (int32_t k : s.fresh_prefills)
    for (const Group& g : config.groups)
      for (int32_t q : FreshPrefillTokens(g, kMaxFreshPrefill / k))
        shapes.emplace_back(static_cast<int32_t>((q - 1) * k + 1), 0);
  std::sort(shapes.begin(), shapes.end());
  shapes.erase(std::unique(shapes.begin(), shapes.end()), shapes.end());
  std::vector<Span> spans;
  for (const auto& [q, ctx] : shapes) {
    if (one_token && q != 1) continue;
    {
      if (!options_.int64_seq_lens && ctx + q > kInt32Max) continue;
      Span span{q, ctx, {}};
      bool ok = true;
      for (const Group& g : config.groups) {
        const int64_t n = NeededColumns(g, q, ctx);
        // A row too wide to lay out: only a group whose range rule pads
        // past the row may read past it.
        ok = ok && n >= 0 && (Guarded(g) || n <= kMaxProveWidth);
        span.needed.push_back(n);
      }
      if (ok) spans.push_back(std::move(span));
    }
  }
  const size_t c = configs_.size();
  config.first = count_;
  configs_.push_back(std::move(config));
  spans_.push_back(std::move(spans));
  const ProveConfig& cfg = configs_.back();
  bool guarded = false, csr = false;
  for (const Group& g : cfg.groups) {
    guarded |= Guarded(g);
    csr |= Csr(g);
  }
  std::vector<TableLayoutKind> layouts = s.layouts;
  if (options_.layout) layouts = {*options_.layout};
  // The cells, in the scope's order of dimensions.
  // Clamp tokens past int32: a cell of its own for a batch with padding.
  const bool clamp_cells = options_.int64_seq_lens && std::count(s.past_int32.begin(), s.past_int32.end(),
                                                                  PastInt32::kClampTokens) > 0;
  // The inputs' cells: the defaults', and one per place of their lists.
  std::vector<int32_t> picks;
  const int32_t sweep = std::count(s.inputs.begin(), s.inputs.end(), InputMode::kSweep) ? InputPicks(cfg) : 0;
  if (sweep == 0 || std::count(s.inputs.begin(), s.inputs.end(), InputMode::kDefaults)) picks.push_back(-1);
  for (int32_t p = 0; p < sweep; ++p) picks.push_back(p);
  for (int32_t R : s.requests)
    for (int32_t padding : s.padding)
      for (int clamp = 0; clamp < (clamp_cells && padding > 0 ? 2 : 1); ++clamp)
      for (NumActual actual : s.num_actual) {
        if (actual == NumActual::kNumTokens && padding == 0) continue;  // the same as real_tokens
        if (actual == NumActual::kBeforeLast && R == 0) continue;
        if (actual == NumActual::kInside && padding < 2) continue;  // nothing strictly inside
        for (SlotMappingIn smi : s.slot_mapping_in) {
          // Only a token past num_actual_tokens shows slot_mapping_in (a
          // family's tail copies it).
          if (smi == SlotMappingIn::kRecognisable && padding == 0 && actual != NumActual::kBeforeLast) continue;
          for (TableMode mode : s.tables) {
            if (mode != TableMode::kPerRequest && csr) continue;  // ragged rows are per request
            // A table whose rows follow its live requests needs one.
            if ((mode == TableMode::kPersistentPermuted || mode == TableMode::kPersistentRotated ||
                 mode == TableMode::kPersistentExact || mode == TableMode::kDummyRun) &&
                R == 0)
              continue;
            // An implementation cannot see batch.dummy_run: a dummy run is
            // a live batch to it, which the reference judges otherwise.
            if (mode == TableMode::kDummyRun && !options_.dummy_runs) continue;
            for (size_t wi = 0; wi < s.widths.size() + s.ahead.size(); ++wi) {
              // A width shapes only groups with a range rule, and a table
              // with rows. Past the scope's widths, its ahead values: rows
              // as wide as their requests read plus a columns allocated
              // ahead (AlphabetFor's width -1 - a), in every group.
              const bool ahead = wi >= s.widths.size();
              if (!ahead && wi > 0 && (!guarded || (mode == TableMode::kPerRequest && R == 0))) continue;
              if (ahead && mode == TableMode::kPerRequest && R == 0) continue;
              const int32_t width = ahead ? -1 - s.ahead[wi - s.widths.size()] : s.widths[wi];
              const int32_t alphabet = AlphabetFor(c, mode, width);
              const Alphabet& a = alphabets_[static_cast<size_t>(alphabet)];
              const bool rows_empty = std::all_of(a.widths.begin(), a.widths.end(), [](int32_t w) { return w == 0; });
              std::vector<StaleRow> stales = {StaleRow::kNull};
              if (mode != TableMode::kPerRequest && !options_.inconsistent && !rows_empty) stales = s.stale_rows;
              if (mode == TableMode::kDummyRun) stales = DummyRunStales(stales);
              for (StaleRow stale : stales)
                for (BlockIds ids : s.block_ids)
                  for (TableLayoutKind layout : layouts)
                  for (int32_t pick : picks) {
                    const int32_t rows =
                        R + (mode == TableMode::kPerRequest || mode == TableMode::kPersistentExact ? 0 : 1);
                    // A layout shows only past a row: tight differs from
                    // padded with a second row, strided with any.
                    if (layout == TableLayoutKind::kTight && rows < 2) continue;
                    if (layout == TableLayoutKind::kStrided && rows < 1) continue;
                    if (layout != TableLayoutKind::kPadded && rows_empty) continue;
                    Cell cell;
                    cell.config = static_cast<int32_t>(c);
                    cell.alphabet = alphabet;
                    cell.requests = R;
                    cell.padding = padding;
                    cell.width = width;
                    cell.clamp_far = clamp == 1;
                    cell.actual = actual;
                    cell.slot_mapping_in = smi;
                    cell.mode = mode;
                    cell.stale = stale;
                    cell.ids = ids;
                    cell.layout = layout;
                    cell.last_shape = LastShapeFor(cell);
                    cell.input_pick = pick;
                    const TupleSpace tuples = TuplesOf(cell, options_.reduce);
                    cell.content = ContentOf(cell, options_.reduce);
                    int64_t count;
                    if (!options_.reduce && !options_.inconsistent) {
                      // Every labeling of each tuple's blocks: counted tuple by tuple.
                      std::vector<int64_t> starts;
                      const int64_t tuples_count = tuples.Count();
                      if (tuples_count > kMaxFullSpace) {
                        count = kSaturated;
                      } else {
                        count = 0;
                        std::vector<int32_t> tuple;
                        for (int64_t t = 0; t < tuples_count && count != kSaturated; ++t) {
                          tuples.Unrank(t, &tuple);
                          starts.push_back(count);
                          std::vector<int64_t> labels;
                          Make(cell, tuple, -1, &labels);
                          int64_t labelings = 1;
                          for (int64_t n : labels) {
                            const long double f = Factorial(n);
                            labelings = f > static_cast<long double>(kSaturated) ? kSaturated
                                                                                  : SatMul(labelings, static_cast<int64_t>(f));
                          }
                          count = SatAdd(count, labelings);
                        }
                      }
                      tuple_starts_.resize(cells_.size() + 1);
                      tuple_starts_[cells_.size()] = std::move(starts);
                    } else {
                      count = SatMul(tuples.Count(), cell.content);
                    }
                    if (count == 0) continue;
                    cell.start = count_;
                    cell.count = count;
                    if (options_.reduce && before_ >= 0) {
                      const long double before = BeforeOf(cell);
                      // Past a long double's range (a row of thousands of blocks): uncounted.
                      before_ = before < 0 || before_ < 0 || std::isinf(before) ? -1 : before_ + before;
                    }
                    count_ = SatAdd(count_, count);
                    if (!options_.reduce && !options_.inconsistent) tuple_starts_.resize(cells_.size() + 1);
                    cells_.push_back(cell);
                    if (count_ == kSaturated) {
                      *err = "scope " + scope_.name + " holds more batches than a 64-bit count (2^63 - 1)" +
                             std::string(options_.reduce ? "" : " before reduction") + "; expected a smaller scope";
                      return false;
                    }
                  }
            }
          }
        }
      }
  configs_[c].count = count_ - configs_[c].first;
  tuple_starts_.resize(cells_.size());
  return true;
}

int32_t Enumeration::AlphabetFor(size_t config, TableMode mode, int32_t width) {
  const int64_t table_kind = mode == TableMode::kPerRequest ? 0 : (mode == TableMode::kDummyRun ? 2 : 1);
  const std::vector<int64_t> key = {static_cast<int64_t>(config), table_kind, width};
  if (const auto it = alphabet_index_.find(key); it != alphabet_index_.end()) return it->second;
  const ProveConfig& cfg = configs_[config];
  const std::vector<Span>& spans = spans_[config];
  Alphabet a;
  // The table widths: a group with a range rule as the scope says (at
  // least its min_width); one without, as wide as any request reads.
  // A width below 0 is -1 - a: every group's rows as wide as its requests
  // read, plus a columns of real blocks allocated ahead.
  const int64_t ahead = width < 0 ? -1 - static_cast<int64_t>(width) : 0;
  bool hybrid = false;
  for (size_t gi = 0; gi < cfg.groups.size(); ++gi) {
    const Group& g = cfg.groups[gi];
    int64_t w = std::max<int64_t>(width, MinWidth(g));
    if (!Guarded(g) || width < 0) {
      w = MinWidth(g);
      for (const Span& s : spans) w = std::max(w, std::min(s.needed[gi], kMaxProveWidth));
      if (ahead > 0) w = RoundUp(w + ahead, NullEntries(g));
    }
    a.widths.push_back(static_cast<int32_t>(std::min<int64_t>(w, kMaxProveWidth)));
    hybrid |= NullEntries(g) > 1 && a.widths.back() >= 2;
  }
  const bool rows_empty = std::all_of(a.widths.begin(), a.widths.end(), [](int32_t w) { return w == 0; });
  std::vector<int32_t> states = {0, 1};  // inconsistent, and a persistent table's live and dummy
  if (!options_.inconsistent && mode == TableMode::kPerRequest) {
    // A dummy's rows hold one kind of null entry (its rows empty: one kind).
    states = {0};
    for (NullEntry kind : scope_.parts[static_cast<size_t>(cfg.part)].null_entries) {
      if (kind == NullEntry::kHybrid && !hybrid) continue;
      if (rows_empty && states.size() > 1) break;
      states.push_back(1 + static_cast<int32_t>(kind));
    }
  }
  // A block operation kind's live request whose source columns hold the
  // null block (consistent batches: an engine hands them out so).
  const bool null_sources =
      !options_.inconsistent && std::any_of(cfg.groups.begin(), cfg.groups.end(), NullSourceGroup);
  if (null_sources) states.insert(states.begin() + 1, kLiveNullSources);
  if (mode == TableMode::kDummyRun) {
    // Every request a dummy at positions 0: a request is its token count.
    std::vector<int32_t> lengths;
    for (const Span& s : spans)
      if (std::find(lengths.begin(), lengths.end(), s.tokens) == lengths.end()) lengths.push_back(s.tokens);
    for (int32_t q : lengths) {
      a.symbols.push_back({q, 0, 1});
      a.columns.emplace_back(cfg.groups.size(), 0);
      a.blocks.emplace_back(cfg.groups.size(), 0);
      a.live.push_back(false);
      a.real.push_back(false);
    }
    alphabets_.push_back(std::move(a));
    return alphabet_index_[key] = static_cast<int32_t>(alphabets_.size() - 1);
  }
  for (const Span& s : spans)
    for (int32_t state : states) {
      std::vector<int32_t> columns, blocks;
      bool real = false, nulled = false;
      for (size_t gi = 0; gi < cfg.groups.size(); ++gi) {
        const Group& g = cfg.groups[gi];
        const int64_t bpk = NullEntries(g);
        const int64_t n =
            state <= 0 ? std::min<int64_t>(a.widths[gi], RoundUp(s.needed[gi] + (s.needed[gi] > 0 ? ahead : 0), bpk))
                       : 0;
        int64_t b = (n + bpk - 1) / bpk;
        if (state == kLiveNullSources && NullSourceGroup(g)) {
          const int64_t sources = static_cast<int64_t>(SourceColumns(g, s.tokens, s.context, a.widths[gi], n).size());
          b -= sources;
          nulled |= sources > 0;
        }
        columns.push_back(static_cast<int32_t>(n));
        blocks.push_back(static_cast<int32_t>(b));
        real |= b > 0;
      }
      if (state == kLiveNullSources && !nulled) continue;  // no source to null: the live symbol
      a.symbols.push_back({s.tokens, s.context, state});
      a.columns.push_back(columns);
      a.blocks.push_back(blocks);
      a.live.push_back(state <= 0);
      a.real.push_back(state <= 0 && real && !options_.inconsistent);
    }
  alphabets_.push_back(std::move(a));
  return alphabet_index_[key] = static_cast<int32_t>(alphabets_.size() - 1);
}

int32_t Enumeration::LastShapeFor(const Cell& cell) {
  if (cell.actual == NumActual::kRealTokens) return -1;
  const std::vector<int64_t> key = {cell.alphabet, cell.padding, static_cast<int64_t>(cell.actual), cell.clamp_far};
  if (const auto it = last_shape_index_.find(key); it != last_shape_index_.end()) return it->second;
  const Alphabet& a = alphabets_[static_cast<size_t>(cell.alphabet)];
  const ProveConfig& cfg = configs_[static_cast<size_t>(cell.config)];
  LastShape shape;
  for (size_t v = 0; v < a.symbols.size(); ++v) {
    const RequestSymbol& sym = a.symbols[v];
    std::vector<int32_t> blocks;
    bool real = false;
    for (size_t gi = 0; gi < cfg.groups.size(); ++gi) {
      const Group& g = cfg.groups[gi];
      const int64_t bpk = NullEntries(g);
      const int64_t needed =
          sym.state <= 0 ? NeededColumns(g, sym.tokens, sym.context, cell.padding, cell.actual, cell.clamp_far) : 0;
      const int64_t n = std::min<int64_t>(a.widths[gi], RoundUp(std::max<int64_t>(needed, a.columns[v][gi]), bpk));
      int64_t b = (n + bpk - 1) / bpk;
      if (sym.state == kLiveNullSources && NullSourceGroup(g))
        b -= static_cast<int64_t>(
            SourceColumns(g, sym.tokens, sym.context, a.widths[gi], n, cell.padding, cell.actual, cell.clamp_far)
                .size());
      blocks.push_back(static_cast<int32_t>(b));
      real |= b > 0;
    }
    shape.blocks.push_back(blocks);
    shape.real.push_back(sym.state <= 0 && real && !options_.inconsistent);
  }
  last_shapes_.push_back(std::move(shape));
  return last_shape_index_[key] = static_cast<int32_t>(last_shapes_.size() - 1);
}

bool Enumeration::FreshStale(const Cell& cell) const {
  if (cell.mode == TableMode::kPerRequest || cell.stale != StaleRow::kFresh) return false;
  const Alphabet& a = alphabets_[static_cast<size_t>(cell.alphabet)];
  return std::any_of(a.widths.begin(), a.widths.end(), [](int32_t w) { return w > 0; });
}

bool Enumeration::FreshIn(const Cell& cell, const Group& g) const {
  if (!FreshStale(cell)) return false;
  return cell.mode != TableMode::kDummyRun || DummyRunRowsOf(g).back() == DummyRunRows::kStale;
}

int32_t Enumeration::InputPicks(const ProveConfig& config) const {
  // The lists grow with the request's tokens (values up to q + 1): the
  // longest is its list at the most tokens a request has, plus the
  // min, min + 1, default and max it may add.
  // (A fresh prefill's longer list is swept as far as the scope's tokens'.)
  int32_t longest = 0;
  int64_t most = 0;
  for (int32_t q : scope_.parts[static_cast<size_t>(config.part)].tokens) most = std::max<int64_t>(most, q);
  int32_t most_requests = 0;
  for (int32_t R : scope_.parts[static_cast<size_t>(config.part)].requests) most_requests = std::max(most_requests, R);
  for (const Group& g : config.groups) {
    const GroupModel model(g);
    for (size_t k = 0; k < model.inputs().size(); ++k) {
      const size_t n = static_cast<int32_t>(k) == model.OwnerInput() ? OwnerValueList(g, k, 0, most_requests).size()
                                                                      : InputValueList(g, k, 0, most).size();
      longest = std::max(longest, static_cast<int32_t>(n) + 1);
    }
  }
  return longest;
}

TupleSpace Enumeration::TuplesOf(const Cell& cell, bool reduced) const {
  const Alphabet& a = alphabets_[static_cast<size_t>(cell.alphabet)];
  TupleSpace t;
  t.n = cell.requests;
  t.k = static_cast<int32_t>(a.symbols.size());
  for (int32_t v = 0; v < t.k; ++v)
    if (cell.actual != NumActual::kBeforeLast || a.symbols[static_cast<size_t>(v)].tokens >= 1) t.last.push_back(v);
  // Reduction: the requests are interchangeable unless num_actual_tokens
  // sets the last one apart (tokens past qsl[R] are the last request's
  // under a last_request owner; before_last cuts its tokens) or the table
  // gives each live request a row by its place (permuted).
  if (!reduced || cell.mode == TableMode::kPersistentPermuted || cell.mode == TableMode::kPersistentRotated)
    t.order = TupleOrder::kSequence;
  else if (cell.actual != NumActual::kRealTokens)
    t.order = TupleOrder::kLastApart;
  else
    t.order = TupleOrder::kMultiset;
  // What a batch must hold for a dimension to show: a live request for a
  // permuted table (with none it is the plain one) and for reused stale
  // rows; a real block for ids other than small.
  const bool last_apart = cell.actual != NumActual::kRealTokens && cell.requests > 0;
  if (cell.mode == TableMode::kPersistentPermuted || cell.mode == TableMode::kPersistentRotated ||
      ((cell.stale == StaleRow::kReused || cell.stale == StaleRow::kMixed) && !options_.inconsistent)) {
    t.required.push_back(a.live);
    if (last_apart) t.required_last.push_back(a.live);
  }
  if (cell.ids != BlockIds::kSmall && !options_.inconsistent && !FreshStale(cell)) {
    t.required.push_back(a.real);
    if (last_apart) t.required_last.push_back(LastOf(cell).real);
  }
  t.Prepare();
  return t;
}

std::vector<int32_t> Enumeration::NullSymbols(const Cell& cell, const Group& g) const {
  std::vector<int32_t> values;  // the entries of the null symbols, in the scope's order
  const ScopePart& part = scope_.parts[static_cast<size_t>(configs_[static_cast<size_t>(cell.config)].part)];
  for (NullEntry kind : part.null_entries) switch (kind) {
      case NullEntry::kZero: values.push_back(0); break;
      case NullEntry::kMinusOne: values.push_back(-1); break;
      case NullEntry::kHybrid:
        if (NullEntries(g) > 1) values.push_back(static_cast<int32_t>(NullEntries(g) - 1));
        break;
    }
  return values;
}

int64_t Enumeration::ContentOf(const Cell& cell, bool reduced) const {
  if (!options_.inconsistent) return 1;
  const Alphabet& a = alphabets_[static_cast<size_t>(cell.alphabet)];
  const ProveConfig& cfg = configs_[static_cast<size_t>(cell.config)];
  int64_t all = 1, none = 1;
  for (size_t gi = 0; gi < cfg.groups.size(); ++gi) {
    const StringSpace strings(Rows(cell) * a.widths[gi], static_cast<int32_t>(NullSymbols(cell, cfg.groups[gi]).size()),
                              reduced);
    all = SatMul(all, strings.Count(false));
    none = SatMul(none, strings.AllNull());
  }
  if (cell.ids == BlockIds::kSmall) return all;
  return all == kSaturated ? kSaturated : all - none;
}

long double Enumeration::BeforeOf(const Cell& cell) const {
  // The full space of the cell: every order of its requests (a sequence
  // with the same masks), every labeling of its blocks.
  const TupleSpace sequences = TuplesOf(cell, false);
  if (options_.inconsistent) {
    const int64_t tuples = sequences.Count();
    const int64_t content = ContentOf(cell, false);
    if (tuples == kSaturated || content == kSaturated) return static_cast<long double>(tuples) * content;
    return static_cast<long double>(tuples) * static_cast<long double>(content);
  }
  // Consistent: sum over the sequences of the product over groups of
  // (blocks)!, by a DP over positions whose state is each group's blocks
  // so far, the live requests so far and the masks met.
  const Alphabet& a = alphabets_[static_cast<size_t>(cell.alphabet)];
  const size_t groups = a.widths.size();
  const bool fresh = FreshStale(cell);
  const bool last_apart = cell.actual != NumActual::kRealTokens;
  std::map<std::vector<int64_t>, long double> states;  // (blocks per group..., live, masks) -> sequences
  states[std::vector<int64_t>(groups + 2, 0)] = 1;
  const int32_t n = cell.requests;
  int64_t& work = before_work_;
  int64_t cell_work = 0;
  for (int32_t i = 0; i < n; ++i) {
    std::map<std::vector<int64_t>, long double> next;
    const bool is_last = i == n - 1;
    const std::vector<int32_t>& last = sequences.last;
    const int32_t choices = is_last ? static_cast<int32_t>(last.size()) : sequences.k;
    for (const auto& [state, ways] : states)
      for (int32_t c = 0; c < choices; ++c) {
        if (++work > kBeforeBudget || ++cell_work > kBeforeCellBudget) return -1;
        const int32_t v = is_last ? last[static_cast<size_t>(c)] : c;
        std::vector<int64_t> to = state;
        const std::vector<int32_t>& blocks =
            is_last && last_apart ? LastOf(cell).blocks[static_cast<size_t>(v)] : a.blocks[static_cast<size_t>(v)];
        for (size_t gi = 0; gi < groups; ++gi) to[gi] += blocks[gi];
        to[groups] += a.live[static_cast<size_t>(v)] ? 1 : 0;
        const std::vector<std::vector<bool>>& masks =
            is_last && !sequences.required_last.empty() ? sequences.required_last : sequences.required;
        for (size_t m = 0; m < masks.size(); ++m)
          if (masks[m][static_cast<size_t>(v)]) to[groups + 1] |= int64_t{1} << m;
        next[to] += ways;
      }
    states = std::move(next);
  }
  const int64_t all_masks = (int64_t{1} << sequences.required.size()) - 1;
  const int32_t rows = Rows(cell);
  long double total = 0;
  for (const auto& [state, ways] : states) {
    if (state[groups + 1] != all_masks) continue;
    long double labelings = 1;
    for (size_t gi = 0; gi < groups; ++gi) {
      int64_t blocks = state[gi];
      const Group& group = configs_[static_cast<size_t>(cell.config)].groups[gi];
      if (fresh && FreshIn(cell, group)) {  // the rows no live request reads hold blocks of their own
        const int64_t bpk = NullEntries(group);
        blocks += (rows - state[groups]) * ((a.widths[gi] + bpk - 1) / bpk);
      }
      labelings *= Factorial(blocks);
    }
    total += ways * labelings;
  }
  return total;
}

size_t Enumeration::ConfigOf(int64_t index) const {
  const auto it = std::upper_bound(configs_.begin(), configs_.end(), index,
                                   [](int64_t i, const ProveConfig& c) { return i < c.first; });
  return static_cast<size_t>(it - configs_.begin()) - 1;
}

size_t Enumeration::CellOf(int64_t index) const {
  const auto it = std::upper_bound(cells_.begin(), cells_.end(), index,
                                   [](int64_t i, const Cell& c) { return i < c.start; });
  return static_cast<size_t>(it - cells_.begin()) - 1;
}

std::string Enumeration::Describe(int64_t index) const {
  size_t ci;
  std::vector<int32_t> tuple;
  int64_t content;
  Locate(index, &ci, &tuple, &content);
  const Cell& cell = cells_[ci];
  const Alphabet& a = alphabets_[static_cast<size_t>(cell.alphabet)];
  std::string requests;
  for (int32_t v : tuple) {
    const RequestSymbol& sym = a.symbols[static_cast<size_t>(v)];
    std::string state;
    if (options_.inconsistent)
      state = sym.state ? "idx_mapping -1" : "reading its row";
    else if (sym.state == 0)
      state = "live";
    else if (sym.state == kLiveNullSources)
      state = "live, null blocks where its operations read";
    else if (cell.mode == TableMode::kPerRequest)
      state = "dummy on " + NullEntryNames()[static_cast<size_t>(sym.state - 1)] + " rows";
    else
      state = "dummy";
    requests += (requests.empty() ? "" : ", ") + std::to_string(sym.tokens) + " token" +
                (sym.tokens == 1 ? "" : "s") + " after " + std::to_string(sym.context) + " " + state;
  }
  std::string text = "batch " + std::to_string(index) + " of " + std::to_string(count_) + ": " +
                     configs_[static_cast<size_t>(cell.config)].label + "; " + std::to_string(cell.requests) +
                     " request" + (cell.requests == 1 ? "" : "s") + (requests.empty() ? "" : " (" + requests + ")") +
                     "; padding " + std::to_string(cell.padding) + ", num_actual_tokens " +
                     NumActualNames()[static_cast<size_t>(cell.actual)] + ", slot_mapping_in " +
                     SlotMappingInNames()[static_cast<size_t>(cell.slot_mapping_in)] + ", table " +
                     TableModeNames()[static_cast<size_t>(cell.mode)];
  if (cell.mode != TableMode::kPerRequest && !options_.inconsistent)
    text += " (stale rows " + StaleRowNames()[static_cast<size_t>(cell.stale)] + ")";
  if (cell.input_pick >= 0)
    text += ", inputs: every element the value at place " + std::to_string(cell.input_pick) + " of its list";
  if (cell.clamp_far) text += ", tokens past qsl[R] at positions past int32";
  text += ", width " + (cell.width >= 0 ? std::to_string(cell.width)
                                         : "as read + " + std::to_string(-1 - cell.width) + " allocated ahead") +
          ", block ids " + BlockIdsNames()[static_cast<size_t>(cell.ids)] +
          ", layout " + TableLayoutName(cell.layout);
  return text;
}

void Enumeration::Locate(int64_t index, size_t* cell_index, std::vector<int32_t>* tuple, int64_t* content) const {
  const size_t ci = CellOf(index);
  const Cell& cell = cells_[ci];
  const int64_t offset = index - cell.start;
  const TupleSpace tuples = TuplesOf(cell, options_.reduce);
  *cell_index = ci;
  if (!options_.reduce && !options_.inconsistent) {
    const std::vector<int64_t>& starts = tuple_starts_[ci];
    const size_t t = static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), offset) - starts.begin()) - 1;
    tuples.Unrank(static_cast<int64_t>(t), tuple);
    *content = offset - starts[t];
    return;
  }
  tuples.Unrank(offset / cell.content, tuple);
  *content = options_.inconsistent ? offset % cell.content : -1;
}

Scenario Enumeration::At(int64_t index) const {
  size_t ci;
  std::vector<int32_t> tuple;
  int64_t content;
  Locate(index, &ci, &tuple, &content);
  return Make(cells_[ci], tuple, content);
}

Scenario Enumeration::Make(const Cell& cell, const std::vector<int32_t>& tuple, int64_t content,
                           std::vector<int64_t>* labels_out) const {
  const ProveConfig& cfg = configs_[static_cast<size_t>(cell.config)];
  const Alphabet& a = alphabets_[static_cast<size_t>(cell.alphabet)];
  Scenario s;
  s.name = "prove";
  s.table_layout = cell.layout;
  Batch& b = s.batch;
  const int32_t R = cell.requests;
  b.query_start_loc.assign(1, 0);
  b.seq_lens.resize(static_cast<size_t>(R));
  b.idx_mapping.resize(static_cast<size_t>(R));
  std::vector<bool> live(static_cast<size_t>(R));
  for (int32_t r = 0; r < R; ++r) {
    const RequestSymbol& sym = a.symbols[static_cast<size_t>(tuple[static_cast<size_t>(r)])];
    b.query_start_loc.push_back(b.query_start_loc.back() + sym.tokens);
    b.seq_lens[static_cast<size_t>(r)] = sym.context + sym.tokens;
    live[static_cast<size_t>(r)] = a.live[static_cast<size_t>(tuple[static_cast<size_t>(r)])];
  }
  const int64_t real = b.query_start_loc.back();
  b.num_tokens = real + cell.padding;
  b.num_actual_tokens = NumActualTokens(cell.actual, real, b.num_tokens);
  b.positions.assign(static_cast<size_t>(b.num_tokens), 0);
  for (int32_t r = 0; r < R; ++r) {
    const int64_t q = b.query_start_loc[static_cast<size_t>(r) + 1] - b.query_start_loc[static_cast<size_t>(r)];
    for (int64_t i = 0; i < q; ++i)
      b.positions[static_cast<size_t>(b.query_start_loc[static_cast<size_t>(r)] + i)] =
          b.seq_lens[static_cast<size_t>(r)] - q + i;
  }
  if (cell.mode == TableMode::kDummyRun) {
    // vLLM's v2 dummy run (InputBatch.make_dummy): every position 0, seq_len
    // the request's tokens, idx_mapping arange (below).
    b.dummy_run = true;
    std::fill(b.positions.begin(), b.positions.begin() + real, 0);
    for (int32_t r = 0; r < R; ++r)
      b.seq_lens[static_cast<size_t>(r)] = b.query_start_loc[static_cast<size_t>(r) + 1] - b.query_start_loc[static_cast<size_t>(r)];
  }
  if (cell.clamp_far) SetClampPositions(&b, real);
  b.slot_mapping_in.assign(static_cast<size_t>(b.num_tokens), kPadSlot);
  if (cell.slot_mapping_in == SlotMappingIn::kRecognisable)
    for (int64_t t = 0; t < b.num_tokens; ++t) b.slot_mapping_in[static_cast<size_t>(t)] = 1000000 + t;
  if (cell.input_pick >= 0) SweepInputs(cfg.groups, cell.input_pick, &b);
  // Rows: a persistent table has a spare row; the live requests read
  // theirs in place (persistent) or from the end backwards (permuted).
  const int32_t rows = Rows(cell);
  b.table_rows = cell.mode == TableMode::kPerRequest ? TableRows::kRequest : TableRows::kIdxMapping;
  std::vector<int32_t> reader(static_cast<size_t>(rows), -1);  // the request reading each row
  const int32_t live_count = static_cast<int32_t>(std::count(live.begin(), live.end(), true));
  int32_t live_seen = 0;
  for (int32_t r = 0; r < R; ++r) {
    int32_t row = r;
    if (cell.mode == TableMode::kPersistentPermuted && live[static_cast<size_t>(r)]) row = R - live_seen;
    // Rotated: the i-th live request reads row i + 1, the last one row 0.
    if (cell.mode == TableMode::kPersistentRotated && live[static_cast<size_t>(r)])
      row = live_seen == live_count - 1 ? 0 : live_seen + 1;
    if (live[static_cast<size_t>(r)]) ++live_seen;
    b.idx_mapping[static_cast<size_t>(r)] = live[static_cast<size_t>(r)] ? row : (cell.mode == TableMode::kDummyRun ? r : -1);
    if (live[static_cast<size_t>(r)] || cell.mode == TableMode::kPerRequest) reader[static_cast<size_t>(row)] = r;
  }
  // Reused stale rows copy the row of the live request of the largest
  // symbol (the last of them in batch order): a choice request order
  // cannot change.
  int32_t source = -1;
  for (int32_t r = 0; r < R; ++r)
    if (live[static_cast<size_t>(r)] &&
        (source < 0 || tuple[static_cast<size_t>(r)] >= tuple[static_cast<size_t>(source)]))
      source = r;
  // Mixed stale rows take every other column from the live request of the
  // smallest symbol (the first of them): with one live request, its blocks alone.
  int32_t second = -1;
  for (int32_t r = 0; r < R; ++r)
    if (live[static_cast<size_t>(r)] && r != source &&
        (second < 0 || tuple[static_cast<size_t>(r)] < tuple[static_cast<size_t>(second)]))
      second = r;
  if (second < 0) second = source;
  // Inconsistent: the block-id strings of every group, from the content rank.
  std::vector<std::vector<int32_t>> strings(cfg.groups.size());
  std::vector<int64_t> label_pool(cfg.groups.size(), 0);  // ids a group's labels are named from
  if (options_.inconsistent) {
    std::vector<StringSpace> spaces;
    for (size_t gi = 0; gi < cfg.groups.size(); ++gi)
      spaces.emplace_back(rows * a.widths[gi], static_cast<int32_t>(NullSymbols(cell, cfg.groups[gi]).size()),
                          options_.reduce);
    const bool need_label = cell.ids != BlockIds::kSmall;
    int64_t rank = content;
    bool have = false;
    for (size_t gi = 0; gi < spaces.size(); ++gi) {
      int64_t rest_all = 1, rest_none = 1;  // completions of the later groups
      for (size_t h = gi + 1; h < spaces.size(); ++h) {
        rest_all = SatMul(rest_all, spaces[h].Count(false));
        rest_none = SatMul(rest_none, spaces[h].AllNull());
      }
      if (!need_label || have) {
        spaces[gi].Unrank(rank / rest_all, &strings[gi]);
        rank %= rest_all;
        continue;
      }
      const int64_t labelled = SatMul(spaces[gi].WithLabel(), rest_all);
      if (rank < labelled) {
        spaces[gi].Unrank(rank / rest_all, &strings[gi]);
        rank %= rest_all;
        have = true;
      } else {
        rank -= labelled;
        const int64_t rest_need = rest_all - rest_none;
        spaces[gi].Unrank(spaces[gi].WithLabel() + rank / rest_need, &strings[gi]);
        rank %= rest_need;
      }
    }
    if (!options_.reduce)
      for (size_t gi = 0; gi < spaces.size(); ++gi) label_pool[gi] = rows * a.widths[gi];
  }
  // The groups' tables. An entry first holds its block's label (-1: a
  // null entry, whose value is already in the table).
  std::vector<std::vector<int64_t>> keys;
  std::vector<int64_t> label_counts;
  if (labels_out) labels_out->clear();
  s.groups = cfg.groups;
  for (size_t gi = 0; gi < s.groups.size(); ++gi) {
    Group& g = s.groups[gi];
    const int64_t bpk = NullEntries(g);
    int32_t W = a.widths[gi];
    std::vector<int64_t> needed;
    if (!options_.inconsistent) {
      needed = NeededInBatch(g, b);
      // A group without a range rule reads every column its tokens address.
      if (!Guarded(g))
        for (int64_t n : needed) W = static_cast<int32_t>(std::max<int64_t>(W, std::min(n, kMaxProveWidth)));
    }
    if (rows == 0) W = 0;
    BlockTable& t = g.table;
    t.rows = rows;
    t.width = W;
    t.entries.assign(static_cast<size_t>(rows) * static_cast<size_t>(W), 0);
    if (Csr(g)) t.lengths.assign(static_cast<size_t>(rows), W);
    // key[i] >= 0: entry i is a kernel block of a real block, named by
    // the row and manager column that first hold it (consistent) or its
    // string label; -1: a null entry, its value already in t.entries.
    std::vector<int64_t> key(t.entries.size(), -1);
    int64_t labels = 0;
    if (options_.inconsistent) {
      const std::vector<int32_t> nulls = NullSymbols(cell, g);
      const int32_t k0 = static_cast<int32_t>(nulls.size());
      for (size_t i = 0; i < t.entries.size(); ++i) {
        const int32_t sym = strings[gi][i];
        if (sym < k0) {
          t.entries[i] = nulls[static_cast<size_t>(sym)];
        } else {
          key[i] = sym - k0;  // the label itself
          labels = std::max<int64_t>(labels, sym - k0 + 1);
        }
      }
      if (!options_.reduce) labels = label_pool[gi];
    } else {
      auto fill_real = [&](int32_t row, int64_t n, int32_t owner_row) {
        for (int64_t col = 0; col < n; ++col)
          key[static_cast<size_t>(row) * W + col] = static_cast<int64_t>(owner_row) * W + col / bpk * bpk;
      };
      for (int32_t row = 0; row < rows; ++row) {
        const int32_t r = reader[static_cast<size_t>(row)];
        if (r >= 0 && live[static_cast<size_t>(r)]) {
          const int64_t n = std::min<int64_t>(
              W, RoundUp(std::max<int64_t>(needed[static_cast<size_t>(r)],
                                           a.columns[static_cast<size_t>(tuple[static_cast<size_t>(r)])][gi]),
                         bpk));
          fill_real(row, n, row);
        } else if (r >= 0) {  // a dummy's row (per request)
          const NullEntry kind =
              static_cast<NullEntry>(a.symbols[static_cast<size_t>(tuple[static_cast<size_t>(r)])].state - 1);
          for (int32_t col = 0; col < W; ++col)
            t.entries[static_cast<size_t>(row) * W + col] =
                kind == NullEntry::kMinusOne ? -1 : (kind == NullEntry::kHybrid ? static_cast<int32_t>(col % bpk) : 0);
        } else {  // a row no live request reads
          switch (cell.stale) {
            case StaleRow::kNull: break;
            case StaleRow::kMinusOne:
              for (int32_t col = 0; col < W; ++col) t.entries[static_cast<size_t>(row) * W + col] = -1;
              break;
            case StaleRow::kFresh:
              if (FreshIn(cell, g)) fill_real(row, W, row);
              break;
            case StaleRow::kMixed:
              if (source >= 0) {
                // Even columns as the source's row holds them, odd ones as the second's.
                for (int32_t turn = 0; turn < 2; ++turn) {
                  const int32_t owner = turn == 0 ? source : second;
                  const int32_t from = b.idx_mapping[static_cast<size_t>(owner)];
                  const int64_t n = std::min<int64_t>(
                      W, RoundUp(std::max<int64_t>(needed[static_cast<size_t>(owner)],
                                                   a.columns[static_cast<size_t>(tuple[static_cast<size_t>(owner)])][gi]),
                                 bpk));
                  for (int64_t col = 0; col < n; ++col)
                    if ((col / bpk) % 2 == turn)
                      key[static_cast<size_t>(row) * W + col] = static_cast<int64_t>(from) * W + col / bpk * bpk;
                }
              }
              break;
            case StaleRow::kReused:
              if (source >= 0) {
                const int32_t from = b.idx_mapping[static_cast<size_t>(source)];
                // Its blocks, as that row will hold them (filled below if later).
                const int64_t n = std::min<int64_t>(
                    W, RoundUp(std::max<int64_t>(needed[static_cast<size_t>(source)],
                                                 a.columns[static_cast<size_t>(tuple[static_cast<size_t>(source)])][gi]),
                               bpk));
                fill_real(row, n, from);
              }
              break;
          }
        }
      }
      // Live requests of the null-source symbol: the null block where
      // their operations read (a stale row reusing one's blocks reuses
      // them as it holds them).
      if (NullSourceGroup(g)) {
        std::vector<std::vector<int64_t>> nulled(static_cast<size_t>(R));
        bool any = false;
        for (int32_t r = 0; r < R; ++r)
          if (a.symbols[static_cast<size_t>(tuple[static_cast<size_t>(r)])].state == kLiveNullSources) any = true;
        if (any) {
          GroupModel(g).ForEachColumn(b, W, [&](int32_t r, int64_t col, bool src, bool) {
            if (src && col >= 0 && col < W &&
                a.symbols[static_cast<size_t>(tuple[static_cast<size_t>(r)])].state == kLiveNullSources)
              nulled[static_cast<size_t>(r)].push_back(col);
          });
          for (int32_t row = 0; row < rows; ++row) {
            int32_t r = reader[static_cast<size_t>(row)];
            if (r < 0 && (cell.stale == StaleRow::kReused || cell.stale == StaleRow::kMixed)) r = source;
            if (r < 0 || !live[static_cast<size_t>(r)]) continue;
            for (int64_t col : nulled[static_cast<size_t>(r)]) {
              key[static_cast<size_t>(row) * W + col] = -1;
              t.entries[static_cast<size_t>(row) * W + col] = 0;
            }
          }
        }
      }
      // Labels in order of first appearance, row by row.
      std::map<int64_t, int64_t> label_by_key;
      for (int64_t& k : key)
        if (k >= 0) k = label_by_key.emplace(k, static_cast<int64_t>(label_by_key.size())).first->second;
      labels = static_cast<int64_t>(label_by_key.size());
    }
    if (labels_out) labels_out->push_back(labels);
    keys.push_back(std::move(key));
    label_counts.push_back(labels);
  }
  // Naming: label l of a group is block first + l, or, in the full space,
  // first + the labeling's image of l. The labeling's rank is a digit per
  // group (labels! labelings each), the last group the least significant.
  std::vector<std::vector<int32_t>> images(s.groups.size());
  if (!options_.reduce && !options_.inconsistent && content >= 0) {
    int64_t rank = content;
    for (size_t gi = s.groups.size(); gi-- > 0;) {
      const int64_t radix = static_cast<int64_t>(Factorial(label_counts[gi]));
      UnrankPermutation(label_counts[gi], rank % radix, &images[gi]);
      rank /= radix;
    }
  }
  int64_t max_block = 0;
  for (size_t gi = 0; gi < s.groups.size(); ++gi) {
    Group& g = s.groups[gi];
    BlockTable& t = g.table;
    const int64_t bpk = NullEntries(g);
    const int64_t first = FirstBlockId(g, cell.ids, std::max<int64_t>(label_counts[gi], 1));
    for (size_t i = 0; i < t.entries.size(); ++i) {
      const int64_t label = keys[gi][i];
      if (label < 0) continue;
      const int64_t col = static_cast<int64_t>(i % static_cast<size_t>(t.width));
      const int64_t block = first + (images[gi].empty() ? label : images[gi][static_cast<size_t>(label)]);
      max_block = std::max(max_block, block);
      t.entries[i] = static_cast<int32_t>(block * bpk + col % bpk);
    }
  }
  // A derived group reads its source's rows: its table is the source's.
  for (Group& g : s.groups) {
    const int32_t source = FamilyModel(g.family).derived_from();
    const int linked = source >= 0 ? LinkedGroupIndex(s, g, source) : -1;
    if (linked >= 0) g.table = s.groups[static_cast<size_t>(linked)].table;
  }
  s.num_blocks = static_cast<int32_t>(std::min<int64_t>(max_block + 1, kInt32Max));
  return s;
}

}  // namespace slotguard
