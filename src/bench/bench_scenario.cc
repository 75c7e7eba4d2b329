#include "bench/bench_scenario.h"

#include <algorithm>
#include <random>

namespace slotguard {

Scenario MakeBenchScenario(int64_t num_tokens, uint64_t seed) {
  constexpr int32_t kBlockSize = 16;
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
  const int32_t width = (kMaxQuery + 2 * kMaxQuery) / kBlockSize + 1;
  for (int32_t r = 0; r < R; ++r) {
    const int64_t q = b.query_start_loc[r + 1] - b.query_start_loc[r];
    const int64_t context = rng() % (2 * kMaxQuery);
    b.seq_lens[r] = static_cast<int32_t>(context + q);
    b.idx_mapping[r] = r;
    for (int64_t i = 0; i < q; ++i) b.positions[b.query_start_loc[r] + i] = context + i;
  }
  b.slot_mapping_in.assign(num_tokens, kPadSlot);
  // Every group gets its own fresh real blocks, ids from 1.
  int32_t next_block = 1;
  auto group = [&](const char* name, Family family, int32_t table_width) {
    Group g;
    g.name = name;
    g.family = family;
    g.variant = FixedVariant(family);
    g.table.rows = R;
    g.table.width = table_width;
    g.table.entries.resize(static_cast<size_t>(R) * table_width);
    for (int32_t& e : g.table.entries) e = next_block++;
    return g;
  };
  Group paged = group("paged", Family::kPaged, width);
  paged.block_size = paged.kernel_block_size = kBlockSize;
  Group kpool = group("kpool_tail", Family::kKpoolTail, 1);
  kpool.kpool = 128;
  Group qsa = group("qsa_ring", Family::kQsaRing, 1);
  qsa.ring = 128;
  Group comp = group("qsa_compressed", Family::kQsaCompressed, width / 4 + 1);
  comp.block_size = kBlockSize;
  comp.compress_ratio = 4;
  comp.common = "paged";
  Group ring = group("compressor_ring", Family::kCompressorRing, 8);
  ring.capacity = 128;
  ring.ring_block_size = 16;
  s.groups = {paged, kpool, qsa, comp, ring};
  s.num_blocks = next_block + 1;
  return s;
}

}  // namespace slotguard
