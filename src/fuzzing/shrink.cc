#include "fuzzing/shrink.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "family/group_model.h"
#include "scenario/scenario_json.h"

namespace slotguard {
namespace {

/// Removes tokens [begin, end) (all of one request, or its tail).
void EraseTokens(Scenario* s, int64_t begin, int64_t end) {
  Batch& b = s->batch;
  const int64_t n = end - begin;
  b.positions.erase(b.positions.begin() + begin, b.positions.begin() + end);
  b.slot_mapping_in.erase(b.slot_mapping_in.begin() + begin, b.slot_mapping_in.begin() + end);
  // The per-token inputs lose the same tokens.
  for (auto& [name, input] : b.inputs)
    if (input.per_token) input.values.erase(input.values.begin() + begin, input.values.begin() + end);
  for (int32_t& q : b.query_start_loc)
    if (q >= end) q -= static_cast<int32_t>(n);
  b.num_tokens -= n;
  if (b.num_actual_tokens >= end) {
    b.num_actual_tokens -= n;
  } else if (b.num_actual_tokens > begin) {
    b.num_actual_tokens = begin;
  }
}

bool Persistent(const Scenario& s) { return s.batch.table_rows == TableRows::kIdxMapping; }

/// Removes request r: its tokens and, in a per-request table, its row. A
/// persistent table keeps every row (the request's becomes stale; DropRows
/// removes rows no request reads).
Scenario RemoveRequest(const Scenario& in, int32_t r) {
  Scenario s = in;
  Batch& b = s.batch;
  EraseTokens(&s, b.query_start_loc[r], b.query_start_loc[r + 1]);
  b.query_start_loc.erase(b.query_start_loc.begin() + r + 1);
  b.seq_lens.erase(b.seq_lens.begin() + r);
  b.idx_mapping.erase(b.idx_mapping.begin() + r);
  // The per-request inputs lose the request's value.
  for (auto& [name, input] : b.inputs)
    if (!input.per_token) input.values.erase(input.values.begin() + r);
  // An owner input (a token's request) follows the renumbering: a token of
  // r's now has none, a later request's index moves down with it.
  std::map<std::string, int64_t> owner_inputs;  // name -> the value of no request (-1, or R past min)
  for (const Group& g : s.groups) {
    const FamilyModel model(g.family);
    const int32_t k = model.OwnerInput();
    if (k >= 0) owner_inputs[model.inputs()[k].name] = model.inputs()[k].min <= -1 ? -1 : b.num_reqs();
  }
  for (const auto& [name, none] : owner_inputs) {
    auto it = b.inputs.find(name);
    if (it == b.inputs.end() || !it->second.per_token) continue;
    for (int64_t& owner : it->second.values) owner = owner == r ? none : (owner > r ? owner - 1 : owner);
  }
  if (Persistent(s)) return s;
  // A per-request table: only -1 (a dummy) means anything in idx_mapping;
  // the others stay the identity, so every start shrinks to one file.
  for (int32_t q = r; q < b.num_reqs(); ++q)
    if (b.idx_mapping[q] >= 0) b.idx_mapping[q] = q;
  for (Group& g : s.groups) {
    auto row = g.table.entries.begin() + static_cast<size_t>(r) * g.table.width;
    g.table.entries.erase(row, row + g.table.width);
    if (!g.table.lengths.empty()) g.table.lengths.erase(g.table.lengths.begin() + r);
    g.table.rows--;
    if (g.table.rows == 0) g.table.width = 0;
  }
  return s;
}

/// The rows of a persistent table that no request reads.
std::vector<int32_t> UnreadRows(const Scenario& s) {
  if (Persistent(s) == false || s.groups.empty()) return {};
  std::vector<bool> read(static_cast<size_t>(s.groups[0].table.rows), false);
  for (int32_t idx : s.batch.idx_mapping)
    if (idx >= 0 && idx < static_cast<int32_t>(read.size())) read[idx] = true;
  std::vector<int32_t> unread;
  for (size_t row = 0; row < read.size(); ++row)
    if (!read[row]) unread.push_back(static_cast<int32_t>(row));
  return unread;
}

/// Removes `rows` (none of them read) from every group's persistent table
/// and renumbers idx_mapping to the rows that stay.
Scenario DropRows(const Scenario& in, const std::vector<int32_t>& rows) {
  Scenario s = in;
  if (s.groups.empty()) return s;
  const int32_t old_rows = s.groups[0].table.rows;
  std::vector<int32_t> to(static_cast<size_t>(old_rows), 0);
  std::vector<bool> drop(static_cast<size_t>(old_rows), false);
  for (int32_t row : rows) drop[row] = true;
  int32_t next = 0;
  for (int32_t row = 0; row < old_rows; ++row) to[row] = drop[row] ? -1 : next++;
  for (int32_t& idx : s.batch.idx_mapping)
    if (idx >= 0) idx = to[idx];
  for (Group& g : s.groups) {
    BlockTable kept{next, g.table.width, {}};
    kept.entries.reserve(static_cast<size_t>(next) * g.table.width);
    for (int32_t row = 0; row < old_rows; ++row)
      if (!drop[row])
        kept.entries.insert(kept.entries.end(), g.table.entries.begin() + static_cast<size_t>(row) * g.table.width,
                            g.table.entries.begin() + static_cast<size_t>(row + 1) * g.table.width);
    if (next == 0) kept.width = 0;
    g.table = kept;
  }
  return s;
}

/// The persistent table turned into the per-request one (format 1's): row
/// r is the row request r read, a dummy's row holds `null` in every column.
Scenario PerRequestTable(const Scenario& in, int32_t null) {
  Scenario s = in;
  Batch& b = s.batch;
  b.table_rows = TableRows::kRequest;
  const int32_t R = b.num_reqs();
  for (Group& g : s.groups) {
    BlockTable gathered{R, R > 0 ? g.table.width : 0, {}};
    gathered.entries.assign(static_cast<size_t>(R) * gathered.width, null);
    for (int32_t r = 0; r < R; ++r)
      if (b.idx_mapping[r] >= 0)
        std::copy_n(g.table.entries.begin() + static_cast<size_t>(b.idx_mapping[r]) * g.table.width, gathered.width,
                    gathered.entries.begin() + static_cast<size_t>(r) * gathered.width);
    g.table = gathered;
  }
  for (int32_t r = 0; r < R; ++r)
    if (b.idx_mapping[r] >= 0) b.idx_mapping[r] = r;
  return s;
}

Scenario RemoveGroup(const Scenario& in, size_t index) {
  Scenario s = in;
  const std::string name = s.groups[index].name;
  s.groups.erase(s.groups.begin() + index);
  DropUndeclaredInputs(&s);
  for (Group& g : s.groups)
    for (std::string& link : g.links)
      if (link == name) link.clear();
  return s;
}

/// Removes the last `n` padding tokens.
Scenario DropPaddingTokens(const Scenario& in, int64_t n) {
  Scenario s = in;
  EraseTokens(&s, s.batch.num_tokens - n, s.batch.num_tokens);
  return s;
}

/// Shortens request r's context (positions before this step) by `delta`.
Scenario ShiftContext(const Scenario& in, int32_t r, int64_t delta) {
  Scenario s = in;
  Batch& b = s.batch;
  b.seq_lens[r] -= delta;
  for (int64_t t = b.query_start_loc[r]; t < b.query_start_loc[r + 1]; ++t) b.positions[t] -= delta;
  return s;
}

/// Keeps the first `width` columns of group `index`'s table.
Scenario TrimColumns(const Scenario& in, size_t index, int32_t width) {
  Scenario s = in;
  BlockTable& t = s.groups[index].table;
  BlockTable trimmed{t.rows, width, {}, t.lengths};
  trimmed.entries.reserve(static_cast<size_t>(t.rows) * width);
  for (int32_t r = 0; r < t.rows; ++r)
    for (int32_t c = 0; c < width; ++c) trimmed.entries.push_back(t.at(r, c));
  for (int32_t& length : trimmed.lengths) length = std::min(length, trimmed.width);
  t = trimmed;
  return s;
}

/// Renumbers the real blocks of every group to small ids, keeping their
/// order, 0 and -1 (and for hybrid paged groups, kernel blocks within their
/// manager block), then shrinks num_blocks to fit.
Scenario RenumberBlocks(const Scenario& in) {
  Scenario s = in;
  std::set<int64_t> managers;
  for (const Group& g : s.groups) {
    const int64_t bpk = NullEntries(g);
    for (int32_t e : g.table.entries)
      if (e >= bpk) managers.insert(e / bpk);
  }
  std::map<int64_t, int64_t> to;
  int64_t next = 1;
  for (int64_t m : managers) to[m] = next++;
  for (Group& g : s.groups) {
    const int64_t bpk = NullEntries(g);
    for (int32_t& e : g.table.entries)
      if (e >= bpk) e = static_cast<int32_t>(to[e / bpk] * bpk + e % bpk);
  }
  s.num_blocks = static_cast<int32_t>(next);
  return s;
}

/// The period of every ring in the scenario (the lcm of their capacities
/// and ring pages), or 0 when it passes 2^40: shifting a context by a
/// multiple of it keeps every ring slot.
int64_t RingPeriod(const Scenario& s) {
  int64_t period = 1;
  for (const Group& g : s.groups)
    for (int64_t size : GroupDivisors(g)) {
      if (size <= 0) continue;
      period = period / std::gcd(period, size) * size;
      if (period > (int64_t{1} << 40)) return 0;
    }
  return period;
}

/// Halves parameter p of group `index` (a ring's capacity) towards its minimum.
Scenario HalveParam(const Scenario& in, size_t index, size_t p) {
  Scenario s = in;
  int64_t& value = s.groups[index].params[p];
  value = std::max<int64_t>(FamilyModel(s.groups[index].family).params()[p].min, value / 2);
  return s;
}

/// True when another group reads group `index`'s output (a gate or writer
/// gate names it): removing it would change what that group computes, not
/// shrink the finding.
bool ReadByAnotherGroup(const Scenario& s, size_t index) {
  for (const Group& g : s.groups)
    for (const std::string& link : g.links)
      if (link == s.groups[index].name) return true;
  return false;
}

/// The candidate as the loader sees it, or false when it is invalid.
bool Canonical(const Scenario& candidate, Scenario* out) {
  std::string err;
  return ParseScenario(WriteScenarioJson(candidate), "candidate", LoadLimits(), out, &err);
}

/// Removes request r's last `n` tokens (its context stays: seq_len drops by n).
Scenario DropLastTokens(const Scenario& in, int32_t r, int64_t n) {
  Scenario s = in;
  const int64_t end = s.batch.query_start_loc[r + 1];
  EraseTokens(&s, end - n, end);
  s.batch.seq_lens[r] -= n;
  return s;
}

/// Removes request r's first `n` tokens: the others keep their positions
/// (seq_len - q + i is unchanged when q and i both drop by n).
Scenario DropFirstTokens(const Scenario& in, int32_t r, int64_t n) {
  Scenario s = in;
  const int64_t begin = s.batch.query_start_loc[r];
  EraseTokens(&s, begin, begin + n);
  return s;
}

}  // namespace

Scenario Shrink(const Scenario& failing, const StillFails& still_fails, int max_attempts, const ShrinkStop& stop,
                bool* cut_short) {
  ShrinkOptions options;
  options.max_attempts = max_attempts;
  options.stop = stop;
  return Shrink(failing, still_fails, options, cut_short);
}

Scenario Shrink(const Scenario& failing, const StillFails& still_fails, const ShrinkOptions& options, bool* cut_short) {
  const int max_attempts = options.max_attempts;
  const ShrinkStop& stop = options.stop;
  int attempts = 0;  // valid candidates tried
  Scenario best = failing;
  auto Try = [&](const Scenario& candidate) {
    if (attempts >= max_attempts) return false;
    if (stop && stop()) {
      if (cut_short) *cut_short = true;
      attempts = max_attempts;  // no candidate more: the loops below end
      return false;
    }
    Scenario canonical;
    if (!Canonical(candidate, &canonical)) return false;
    ++attempts;
    const bool fails = still_fails(canonical);
    if (fails) best = std::move(canonical);
    if (options.on_attempt) options.on_attempt(best, attempts);
    return fails;
  };
  // The smallest size n in [0, current] at which make(n) still fails, by
  // binary search: make(current) is `best` as it is, and `make` builds its
  // candidates from a copy of it (Try replaces `best`). Ends with best =
  // make(n); true when n < current. A size the finding does not depend on
  // goes in one candidate (n = 0 first tried on the way down); one it does
  // ends at the boundary: make(n) fails, make(n - 1) did not.
  auto Bisect = [&](int64_t current, const std::function<Scenario(const Scenario&, int64_t)>& make) {
    const Scenario base = best;
    int64_t lo = -1, hi = current;  // make(hi) fails; make(lo) did not (or is not tried yet)
    for (int64_t first = 0; hi - lo > 1 && attempts < max_attempts; first = -1) {
      // Nothing at all first: most sizes do not matter to a finding.
      const int64_t mid = first == 0 ? 0 : lo + (hi - lo) / 2;
      if (Try(make(base, mid))) hi = mid;
      else lo = mid;
    }
    return hi < current;
  };
  bool progress = true;
  while (progress && attempts < max_attempts) {
    progress = false;
    // Shape: requests (halves, quarters, ... of an engine-scale batch first,
    // then one at a time from the last), groups, tokens, columns.
    for (int32_t chunk = best.batch.num_reqs() / 2; chunk >= 4; chunk /= 2)
      for (int32_t end = best.batch.num_reqs(); end - chunk >= 0; end -= chunk) {
        if (end > best.batch.num_reqs()) end = best.batch.num_reqs();
        Scenario fewer = best;
        for (int32_t r = end - 1; r >= end - chunk; --r) fewer = RemoveRequest(fewer, r);
        if (Try(fewer)) progress = true;
      }
    for (int32_t r = best.batch.num_reqs() - 1; r >= 0; --r)
      if (r < best.batch.num_reqs() && Try(RemoveRequest(best, r))) progress = true;
    for (size_t g = best.groups.size(); g-- > 0;)
      if (best.groups.size() > 1 && g < best.groups.size() && !ReadByAnotherGroup(best, g) &&
          Try(RemoveGroup(best, g)))
        progress = true;
    // A persistent table: the rows no request reads (all at once, then
    // halves, ... one by one: a kernel that reads past a row in a tight
    // layout reads the next), then the table as a per-request one.
    for (size_t chunk = UnreadRows(best).size(); chunk >= 1; chunk /= 2) {
      const std::vector<int32_t> unread = UnreadRows(best);
      // From the last: dropping rows renumbers only the rows after them.
      for (size_t end = unread.size(); end > 0; end -= std::min(end, chunk)) {
        const size_t begin = end - std::min(end, chunk);
        if (Try(DropRows(best, std::vector<int32_t>(unread.begin() + begin, unread.begin() + end)))) progress = true;
      }
    }
    if (Persistent(best) && (Try(PerRequestTable(best, 0)) || Try(PerRequestTable(best, -1)))) progress = true;
    // Sizes, each to its boundary: the padding (a padded batch can hold
    // millions of tokens), then each request's tokens from its end and from
    // its start.
    {
      const int64_t padding = best.batch.num_tokens - best.batch.num_real_tokens();
      if (padding > 0 && Bisect(padding, [padding](const Scenario& base, int64_t keep) {
            return DropPaddingTokens(base, padding - keep);
          }))
        progress = true;
    }
    for (int32_t r = 0; r < best.batch.num_reqs(); ++r) {
      const int64_t q = best.batch.query_start_loc[r + 1] - best.batch.query_start_loc[r];
      if (q > 0 && Bisect(q, [r, q](const Scenario& base, int64_t keep) { return DropLastTokens(base, r, q - keep); }))
        progress = true;
      const int64_t left = best.batch.query_start_loc[r + 1] - best.batch.query_start_loc[r];
      if (left > 0 &&
          Bisect(left, [r, left](const Scenario& base, int64_t keep) { return DropFirstTokens(base, r, left - keep); }))
        progress = true;
    }
    if (best.batch.num_actual_tokens != best.batch.num_real_tokens()) {
      Scenario s = best;
      s.batch.num_actual_tokens = std::min(s.batch.num_real_tokens(), s.batch.num_tokens);
      if (Try(s)) progress = true;
    }
    for (size_t g = 0; g < best.groups.size(); ++g) {
      const int32_t width = best.groups[g].table.width;
      if (width > 0 && Bisect(width, [g](const Scenario& base, int64_t keep) {
            return TrimColumns(base, g, static_cast<int32_t>(keep));
          }))
        progress = true;
    }
    // Values: shorter contexts, small block ids, smaller rings.
    for (int32_t r = 0; r < best.batch.num_reqs(); ++r) {
      const Batch& b = best.batch;
      const int64_t context = b.seq_lens[r] - (b.query_start_loc[r + 1] - b.query_start_loc[r]);
      // A huge context first keeps its ring offsets (the same slots, small positions).
      const int64_t period = RingPeriod(best);
      if (period > 0 && context >= 2 * period && Try(ShiftContext(best, r, context - context % period))) {
        progress = true;
        continue;
      }
      if (context > 0 && Bisect(context, [r, context](const Scenario& base, int64_t keep) {
            return ShiftContext(base, r, context - keep);
          }))
        progress = true;
    }
    {
      const Scenario renumbered = RenumberBlocks(best);
      if (!(renumbered == best) && Try(renumbered)) progress = true;
    }
    for (size_t g = 0; g < best.groups.size(); ++g) {
      const std::vector<ParamDesc>& params = FamilyModel(best.groups[g].family).params();
      for (size_t p = 0; p < params.size(); ++p)
        while (params[p].shrinks && best.groups[g].params[p] > params[p].min) {
          if (!Try(HalveParam(best, g, p))) break;
          progress = true;
        }
    }
    if (best.table_layout != TableLayoutKind::kPadded) {
      Scenario s = best;
      s.table_layout = TableLayoutKind::kPadded;
      if (Try(s)) progress = true;
    }
    if (!best.batch.slot_mapping_in.empty() &&
        std::any_of(best.batch.slot_mapping_in.begin(), best.batch.slot_mapping_in.end(),
                    [](int64_t v) { return v != kPadSlot; })) {
      Scenario s = best;
      s.batch.slot_mapping_in.assign(s.batch.num_tokens, kPadSlot);
      if (Try(s)) progress = true;
    }
  }
  return best;
}

}  // namespace slotguard
