#include "fuzzing/shrink.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "scenario/family_params.h"
#include "scenario/scenario_json.h"

namespace slotguard {
namespace {

/// Removes tokens [begin, end) (all of one request, or its tail).
void EraseTokens(Scenario* s, int64_t begin, int64_t end) {
  Batch& b = s->batch;
  const int64_t n = end - begin;
  b.positions.erase(b.positions.begin() + begin, b.positions.begin() + end);
  b.slot_mapping_in.erase(b.slot_mapping_in.begin() + begin, b.slot_mapping_in.begin() + end);
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
  if (Persistent(s)) return s;
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
Scenario PerRequest(const Scenario& in, int32_t null) {
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
  for (Group& g : s.groups)
    for (std::string& link : g.links)
      if (link == name) link.clear();
  return s;
}

Scenario DropLastToken(const Scenario& in, int32_t r) {
  Scenario s = in;
  EraseTokens(&s, s.batch.query_start_loc[r + 1] - 1, s.batch.query_start_loc[r + 1]);
  s.batch.seq_lens[r]--;
  return s;
}

/// Removes request r's first token: the others keep their positions
/// (seq_len - q + i is unchanged when q and i both drop by one).
Scenario DropFirstToken(const Scenario& in, int32_t r) {
  Scenario s = in;
  EraseTokens(&s, s.batch.query_start_loc[r], s.batch.query_start_loc[r] + 1);
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

Scenario TrimColumn(const Scenario& in, size_t index) {
  Scenario s = in;
  BlockTable& t = s.groups[index].table;
  BlockTable trimmed{t.rows, t.width - 1, {}, t.lengths};
  for (int32_t r = 0; r < t.rows; ++r)
    for (int32_t c = 0; c < t.width - 1; ++c) trimmed.entries.push_back(t.at(r, c));
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
  value = std::max<int64_t>(DescOf(s.groups[index].family).params[p].min, value / 2);
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

}  // namespace

Scenario Shrink(const Scenario& failing, const StillFails& still_fails, int max_attempts, const ShrinkStop& stop,
                bool* cut_short) {
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
    if (!still_fails(canonical)) return false;
    best = canonical;
    return true;
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
    if (Persistent(best) && (Try(PerRequest(best, 0)) || Try(PerRequest(best, -1)))) progress = true;
    // Padding: all, then halves (a padded batch can hold millions of tokens).
    for (int64_t n = best.batch.num_tokens - best.batch.num_real_tokens(); n >= 1; n /= 2)
      while (best.batch.num_tokens - best.batch.num_real_tokens() >= n && Try(DropPaddingTokens(best, n)))
        progress = true;
    for (int32_t r = 0; r < best.batch.num_reqs(); ++r) {
      while (best.batch.query_start_loc[r + 1] > best.batch.query_start_loc[r] && Try(DropLastToken(best, r)))
        progress = true;
      while (best.batch.query_start_loc[r + 1] > best.batch.query_start_loc[r] && Try(DropFirstToken(best, r)))
        progress = true;
    }
    if (best.batch.num_actual_tokens != best.batch.num_real_tokens()) {
      Scenario s = best;
      s.batch.num_actual_tokens = std::min(s.batch.num_real_tokens(), s.batch.num_tokens);
      if (Try(s)) progress = true;
    }
    for (size_t g = 0; g < best.groups.size(); ++g)
      while (best.groups[g].table.width > 0 && Try(TrimColumn(best, g))) progress = true;
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
      for (int64_t delta = context; delta > 0; delta /= 2)
        if (Try(ShiftContext(best, r, delta))) {
          progress = true;
          break;
        }
    }
    {
      const Scenario renumbered = RenumberBlocks(best);
      if (!(renumbered == best) && Try(renumbered)) progress = true;
    }
    for (size_t g = 0; g < best.groups.size(); ++g) {
      const std::vector<ParamDesc>& params = DescOf(best.groups[g].family).params;
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
