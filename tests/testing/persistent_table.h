// Turns a consistent per-request scenario into the same step as the
// engine's v2 runner hands it over (format 2, batch.table_rows
// "idx_mapping"): every group's rows move into a persistent table with
// stale rows, live request r reads row idx_mapping[r] (a shuffled slot),
// dummies read no row. A correct kernel's outputs do not change.
#ifndef SLOTGUARD_TESTS_TESTING_PERSISTENT_TABLE_H_
#define SLOTGUARD_TESTS_TESTING_PERSISTENT_TABLE_H_

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "scenario/scenario.h"

namespace slotguard {
namespace testing {

/// `stale_rows` extra rows; each holds a copy of some live row (blocks a
/// live request owns now, as a finished request's row would after its
/// blocks were freed and handed out again), or null entries when none is live.
inline Scenario ToPersistentTable(Scenario s, uint64_t seed, int32_t stale_rows = 3) {
  std::mt19937_64 rng(seed);
  Batch& b = s.batch;
  const int32_t R = b.num_reqs();
  std::vector<int32_t> live;
  for (int32_t r = 0; r < R; ++r)
    if (!b.is_dummy(r)) live.push_back(r);
  const int32_t rows = static_cast<int32_t>(live.size()) + stale_rows;
  std::vector<int32_t> slot(rows);  // slot[k]: the persistent row of the k-th live request
  std::iota(slot.begin(), slot.end(), 0);
  std::shuffle(slot.begin(), slot.end(), rng);
  std::vector<int32_t> idx(R, -1);
  for (size_t k = 0; k < live.size(); ++k) idx[live[k]] = slot[k];
  std::vector<int32_t> source(rows, -1);  // the request whose row lands at each persistent row
  for (size_t k = 0; k < live.size(); ++k) source[slot[k]] = live[k];
  for (int32_t row = 0; row < rows; ++row)
    if (source[row] < 0 && !live.empty()) source[row] = live[rng() % live.size()];  // stale
  for (Group& g : s.groups) {
    BlockTable t{rows, g.table.width, {}};
    t.entries.reserve(static_cast<size_t>(rows) * t.width);
    for (int32_t row = 0; row < rows; ++row)
      for (int32_t c = 0; c < t.width; ++c) t.entries.push_back(source[row] >= 0 ? g.table.at(source[row], c) : 0);
    g.table = std::move(t);
  }
  b.idx_mapping = idx;
  b.table_rows = TableRows::kIdxMapping;
  s.name += " (persistent table)";
  return s;
}

/// The same batch as a dummy run (batch.dummy_run) of a persistent table
/// not refilled: every request reads row r (idx_mapping arange), and the
/// rows hold the blocks the step's live requests had (stale now).
inline Scenario ToDummyRun(Scenario s, uint64_t seed) {
  s = ToPersistentTable(s, seed, s.batch.num_reqs());
  for (int32_t r = 0; r < s.batch.num_reqs(); ++r) s.batch.idx_mapping[r] = r;
  s.batch.dummy_run = true;
  s.name += "-dummy-run";
  return s;
}

}  // namespace testing
}  // namespace slotguard

#endif  // SLOTGUARD_TESTS_TESTING_PERSISTENT_TABLE_H_
