#include "fuzzing/shrink.h"

#include <algorithm>
#include <map>
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

Scenario RemoveRequest(const Scenario& in, int32_t r) {
  Scenario s = in;
  Batch& b = s.batch;
  EraseTokens(&s, b.query_start_loc[r], b.query_start_loc[r + 1]);
  b.query_start_loc.erase(b.query_start_loc.begin() + r + 1);
  b.seq_lens.erase(b.seq_lens.begin() + r);
  b.idx_mapping.erase(b.idx_mapping.begin() + r);
  for (Group& g : s.groups) {
    auto row = g.table.entries.begin() + static_cast<size_t>(r) * g.table.width;
    g.table.entries.erase(row, row + g.table.width);
    g.table.rows--;
    if (g.table.rows == 0) g.table.width = 0;
  }
  return s;
}

Scenario RemoveGroup(const Scenario& in, size_t index) {
  Scenario s = in;
  const std::string name = s.groups[index].name;
  s.groups.erase(s.groups.begin() + index);
  for (Group& g : s.groups)
    if (g.common == name) g.common.clear();
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

Scenario DropPaddingToken(const Scenario& in) {
  Scenario s = in;
  EraseTokens(&s, s.batch.num_tokens - 1, s.batch.num_tokens);
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
  BlockTable trimmed{t.rows, t.width - 1, {}};
  for (int32_t r = 0; r < t.rows; ++r)
    for (int32_t c = 0; c < t.width - 1; ++c) trimmed.entries.push_back(t.at(r, c));
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

/// Halves one parameter (a ring's capacity) towards its minimum.
Scenario HalveParam(const Scenario& in, size_t index, const ParamInfo& param) {
  Scenario s = in;
  int32_t& value = *param.ref(s.groups[index]).i;
  value = static_cast<int32_t>(std::max<int64_t>(param.min, value / 2));
  return s;
}

/// True when another group reads group `index`'s output (its `common`):
/// removing it would change what that group computes, not shrink the finding.
bool ReadByAnotherGroup(const Scenario& s, size_t index) {
  for (const Group& g : s.groups)
    if (ReadGroupName(g) == s.groups[index].name) return true;
  return false;
}

/// The candidate as the loader sees it, or false when it is invalid.
bool Canonical(const Scenario& candidate, Scenario* out) {
  std::string err;
  return ParseScenario(WriteScenarioJson(candidate), "candidate", LoadLimits(), out, &err);
}

}  // namespace

Scenario Shrink(const Scenario& failing, const StillFails& still_fails, int max_attempts) {
  int attempts = 0;  // valid candidates tried
  Scenario best = failing;
  auto Try = [&](const Scenario& candidate) {
    if (attempts >= max_attempts) return false;
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
    while (best.batch.num_tokens > best.batch.num_real_tokens() && Try(DropPaddingToken(best))) progress = true;
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
    for (size_t g = 0; g < best.groups.size(); ++g)
      for (const ParamInfo* p : ParamsOf(best.groups[g].family))
        while (p->shrinks && ParamValue(*p, best.groups[g]) > p->min) {
          if (!Try(HalveParam(best, g, *p))) break;
          progress = true;
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
