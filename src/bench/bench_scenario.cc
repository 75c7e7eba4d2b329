#include "bench/bench_scenario.h"

#include <algorithm>
#include <random>

#include "family/family_plan.h"
#include "family/group_model.h"

namespace slotguard {

Scenario MakeBenchScenario(int64_t num_tokens, uint64_t seed) {
  constexpr int32_t kMaxQuery = 1023;
  std::mt19937_64 rng(seed);
  Scenario s;
  s.name = "bench-" + std::to_string(num_tokens);
  Batch& b = s.batch;
  b.query_start_loc = {0};
  while (b.query_start_loc.back() < num_tokens) {
    const int64_t q = std::min<int64_t>(1 + rng() % kMaxQuery, num_tokens - b.query_start_loc.back());
    b.query_start_loc.push_back(static_cast<int32_t>(b.query_start_loc.back() + q));
  }
  const int32_t R = b.num_reqs();
  b.num_tokens = b.num_actual_tokens = num_tokens;
  b.positions.resize(num_tokens);
  b.seq_lens.resize(R);
  b.idx_mapping.resize(R);
  // Each request has some context before this step; positions continue it.
  for (int32_t r = 0; r < R; ++r) {
    const int64_t q = b.query_start_loc[r + 1] - b.query_start_loc[r];
    const int64_t context = rng() % (2 * kMaxQuery);
    b.seq_lens[r] = context + q;
    b.idx_mapping[r] = r;
    for (int64_t i = 0; i < q; ++i) b.positions[b.query_start_loc[r] + i] = context + i;
  }
  b.slot_mapping_in.assign(num_tokens, kPadSlot);
  // One group per family with a kernel of slotguard's, named after it,
  // with its description's example parameters; each gets its own fresh
  // real blocks, ids from 1, as many columns as its positions address. A
  // group parameter names the first group of its target family.
  int32_t next_block = 1;
  for (const FamilyInfo& info : AllFamilies()) {
    if (!info.kernel) continue;
    Group g = ExampleGroup(info.family, info.name);
    const GroupModel model(g);
    for (size_t p = 0; p < model.params().size(); ++p)
      if (model.params()[p].type == ParamType::kGroup) g.links[p] = model.params()[p].family;
    GroupPlan plan;
    std::string unused;
    int64_t farthest = 0;
    if (model.MakePlan(model.mapping(), b, &plan, &unused))
      farthest = FarthestColumn(plan, b);
    const int32_t table_width = static_cast<int32_t>(std::max<int64_t>({1, MinWidth(g), farthest + 1}));
    g.table.rows = R;
    g.table.width = table_width;
    g.table.entries.resize(static_cast<size_t>(R) * table_width);
    for (int32_t& e : g.table.entries) e = next_block++;
    s.groups.push_back(g);
  }
  s.num_blocks = next_block + 1;
  return s;
}

}  // namespace slotguard
