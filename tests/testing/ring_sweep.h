// Builds consistent multi-family scenarios for ring sweeps: ragged requests
// (zero-length ones too), dummy requests on zero rows, num_actual_tokens
// anywhere between qsl[R-1] and num_tokens, a recognisable slot_mapping_in,
// and one group of every family sharing the null block. Deterministic.
#ifndef SLOTGUARD_TESTS_TESTING_RING_SWEEP_H_
#define SLOTGUARD_TESTS_TESTING_RING_SWEEP_H_

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>

#include "scenario/scenario.h"
#include "testing/make_group.h"

namespace slotguard {
namespace testing {

struct RingSweepCase {
  int32_t num_reqs = 5;
  int32_t capacity = 4;  // kpool, ring, compressor capacity
  int32_t max_query = 12;
  int32_t padding_tokens = 3;
  uint64_t seed = 1;
  bool minus_one_rows = false;  // dummies hold -1 instead of 0 in the compressor ring

  std::string ToString() const {
    return "reqs=" + std::to_string(num_reqs) + " capacity=" + std::to_string(capacity) +
           " max_query=" + std::to_string(max_query) + " seed=" + std::to_string(seed);
  }
};

inline Scenario MakeRingSweepScenario(const RingSweepCase& c) {
  std::mt19937_64 rng(c.seed);
  Scenario s;
  s.name = "ring sweep " + c.ToString();
  Batch& b = s.batch;
  b.query_start_loc = {0};
  for (int32_t r = 0; r < c.num_reqs; ++r)
    b.query_start_loc.push_back(b.query_start_loc.back() + static_cast<int32_t>(rng() % (c.max_query + 1)));
  const int64_t real = b.query_start_loc.back();
  b.num_tokens = real + c.padding_tokens;
  const int64_t low = c.num_reqs > 0 ? b.query_start_loc[c.num_reqs - 1] : 0;
  b.num_actual_tokens = low + static_cast<int64_t>(rng() % (b.num_tokens - low + 1));
  b.positions.assign(b.num_tokens, 0);
  b.seq_lens.resize(c.num_reqs);
  b.idx_mapping.resize(c.num_reqs);
  b.slot_mapping_in.resize(b.num_tokens);
  for (int64_t t = 0; t < b.num_tokens; ++t) b.slot_mapping_in[t] = t % 3 == 0 ? -1 : 5000 + t;
  std::vector<bool> dummy(c.num_reqs);
  int32_t max_seq = 1;
  for (int32_t r = 0; r < c.num_reqs; ++r) {
    const int32_t q = b.query_start_loc[r + 1] - b.query_start_loc[r];
    const int32_t context = static_cast<int32_t>(rng() % (3 * c.capacity + 1));
    b.seq_lens[r] = context + q;
    max_seq = std::max<int32_t>(max_seq, static_cast<int32_t>(b.seq_lens[r]));
    for (int32_t i = 0; i < q; ++i) b.positions[b.query_start_loc[r] + i] = context + i;
    dummy[r] = rng() % 4 == 0;
    b.idx_mapping[r] = dummy[r] ? -1 : r;
  }
  int32_t next_block = 1;
  auto table = [&](int32_t width, int32_t null_id) {
    BlockTable t{c.num_reqs, width, {}};
    for (int32_t r = 0; r < c.num_reqs; ++r)
      for (int32_t col = 0; col < width; ++col) t.entries.push_back(dummy[r] ? null_id : next_block++);
    return t;
  };
  Group paged = MakeGroup(Family::kPaged, "attn", {{"block_size", 4}, {"kernel_block_size", 4}});
  paged.table = table(max_seq / 4 + 1, 0);
  Group kpool = MakeGroup(Family::kKpoolTail, "tail", {{"kpool", c.capacity}});
  kpool.table = table(1, 0);
  Group qsa = MakeGroup(Family::kQsaRing, "qsa", {{"ring", c.capacity}});
  qsa.table = table(1, 0);
  Group comp = MakeGroup(Family::kQsaCompressed, "qsa_c", {{"block_size", 3}, {"compress_ratio", 2}}, {{"common", "attn"}});
  comp.table = table(max_seq / 2 / 3 + 1, 0);
  Group ring = MakeGroup(Family::kCompressorRing, "c128", {{"capacity", c.capacity * 2}, {"ring_block_size", c.capacity}});
  ring.table = table(2, c.minus_one_rows ? -1 : 0);
  s.groups = {paged, kpool, qsa, comp, ring};
  s.num_blocks = next_block + 1;
  return s;
}

}  // namespace testing
}  // namespace slotguard

#endif  // SLOTGUARD_TESTS_TESTING_RING_SWEEP_H_
