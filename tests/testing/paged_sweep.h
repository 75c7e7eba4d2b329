// Builds consistent paged scenarios for sweeps (flashinfer-style odd sizes):
// ragged requests (zero-length ones too), dummy requests on zero rows,
// padding tokens, hybrid kernel blocks and DCP. Deterministic for a seed.
#ifndef SLOTGUARD_TESTS_TESTING_PAGED_SWEEP_H_
#define SLOTGUARD_TESTS_TESTING_PAGED_SWEEP_H_

#include <cstdint>
#include <random>
#include <string>

#include "scenario/scenario.h"
#include "testing/make_group.h"

namespace slotguard {
namespace testing {

struct PagedSweepCase {
  int32_t num_reqs = 3;
  int32_t block_size = 16;
  int32_t blocks_per_manager_block = 1;  // hybrid when > 1
  struct Dcp {
    int32_t world = 1, rank = 0, interleave = 1;
  } dcp;
  uint64_t seed = 1;
  int32_t max_query = 40;
  int32_t padding_tokens = 3;
  bool dummies = true;  // some requests are dummies (idx_mapping -1, zero row)

  std::string ToString() const {
    return "reqs=" + std::to_string(num_reqs) + " block_size=" + std::to_string(block_size) +
           " bpk=" + std::to_string(blocks_per_manager_block) + " dcp=" + std::to_string(dcp.world) +
           "/" + std::to_string(dcp.rank) + "/" + std::to_string(dcp.interleave) +
           " seed=" + std::to_string(seed);
  }
};

inline Scenario MakePagedSweepScenario(const PagedSweepCase& c) {
  std::mt19937_64 rng(c.seed);
  Scenario s;
  s.name = "sweep " + c.ToString();
  Batch& b = s.batch;
  b.query_start_loc = {0};
  for (int32_t r = 0; r < c.num_reqs; ++r) {
    const int32_t q = static_cast<int32_t>(rng() % (c.max_query + 1));  // zero-length too
    b.query_start_loc.push_back(b.query_start_loc.back() + q);
  }
  const int64_t real = b.query_start_loc.back();
  b.num_tokens = real + c.padding_tokens;
  b.num_actual_tokens = real;
  b.positions.assign(b.num_tokens, 0);
  b.seq_lens.resize(c.num_reqs);
  b.idx_mapping.resize(c.num_reqs);
  b.slot_mapping_in.assign(b.num_tokens, kPadSlot);

  Group g = MakeGroup(Family::kPaged, "attn",
                      {{"block_size", c.block_size * c.blocks_per_manager_block},
                       {"kernel_block_size", c.block_size},
                       {"dcp_world", c.dcp.world},
                       {"dcp_rank", c.dcp.rank},
                       {"dcp_interleave", c.dcp.interleave}});
  // Enough columns for the longest context; each live request owns fresh
  // manager blocks (ids 1..), a dummy request holds only zeros.
  const int32_t max_context = 3 * c.max_query;
  const int32_t width = c.num_reqs ? max_context / c.block_size + 2 : 0;
  g.table.rows = c.num_reqs;
  g.table.width = width;
  g.table.entries.assign(static_cast<size_t>(width) * c.num_reqs, 0);
  int32_t next_manager_block = 1;
  for (int32_t r = 0; r < c.num_reqs; ++r) {
    const int32_t q = b.query_start_loc[r + 1] - b.query_start_loc[r];
    const int32_t context = static_cast<int32_t>(rng() % (max_context - c.max_query + 1));
    b.seq_lens[r] = context + q;
    for (int32_t i = 0; i < q; ++i) b.positions[b.query_start_loc[r] + i] = context + i;
    const bool dummy = c.dummies && rng() % 5 == 0;
    b.idx_mapping[r] = dummy ? -1 : r;
    if (dummy) continue;
    for (int32_t col = 0; col < width; col += c.blocks_per_manager_block) {
      const int32_t manager = next_manager_block++;
      for (int32_t k = 0; k < c.blocks_per_manager_block && col + k < width; ++k)
        g.table.entries[static_cast<size_t>(r) * width + col + k] = manager * c.blocks_per_manager_block + k;
    }
  }
  s.num_blocks = next_manager_block + 1;
  s.groups.push_back(g);
  return s;
}

}  // namespace testing
}  // namespace slotguard

#endif  // SLOTGUARD_TESTS_TESTING_PAGED_SWEEP_H_
