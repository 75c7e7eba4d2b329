// The paged kernel source run on the host against the independent reference:
// sweeps of odd sizes (flashinfer style), both geometries, and each variant
// differing from `fixed` exactly where docs/families.md, paged says it does.
#include <gtest/gtest.h>

#include <random>

#include "backend/backend.h"
#include "kernels/mapping_batch.h"
#include "reference/reference.h"
#include "testing/paged_sweep.h"

namespace slotguard {
namespace {

using testing::MakePagedSweepScenario;
using testing::PagedSweepCase;

GroupOutputs RunHost(const Scenario& s) {
  std::vector<GroupOutputs> out;
  std::string err;
  EXPECT_TRUE(MakeHostBackend()->Run(s, &out, &err)) << err;
  return out.at(0);
}

TEST(FindRequestTest, ZeroLengthRequestsOwnNothing) {
  const int32_t qsl[] = {0, 3, 3, 3, 5, 5};  // requests 1, 2 and 4 are empty
  EXPECT_EQ(0, FindRequest(qsl, 5, 0));
  EXPECT_EQ(0, FindRequest(qsl, 5, 2));
  EXPECT_EQ(3, FindRequest(qsl, 5, 3));
  EXPECT_EQ(3, FindRequest(qsl, 5, 4));
  EXPECT_EQ(5, FindRequest(qsl, 5, 5));  // past qsl[R]: padding
  EXPECT_EQ(5, FindRequest(qsl, 5, 100));
  const int32_t empty[] = {0};
  EXPECT_EQ(0, FindRequest(empty, 0, 0));
}

TEST(FindRequestTest, HintsAndCursorsNeverChangeTheAnswer) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<int32_t> qsl = {0};
    const int32_t reqs = 1 + static_cast<int32_t>(rng() % 40);
    for (int32_t r = 0; r < reqs; ++r) qsl.push_back(qsl.back() + static_cast<int32_t>(rng() % 4));
    const int64_t tokens = qsl.back() + 3;
    for (int64_t t = 0; t < tokens; ++t) {
      const int32_t expected = FindRequest(qsl.data(), reqs, t);
      ASSERT_TRUE(expected == reqs || (qsl[expected] <= t && t < qsl[expected + 1]));
      for (int32_t hint = -1; hint <= reqs; ++hint)
        ASSERT_EQ(expected, FindRequest(qsl.data(), reqs, t, hint)) << "t=" << t << " hint=" << hint;
      // A cursor left anywhere by an earlier (larger or smaller) token.
      RequestCursor cursor;
      SeekRequest(qsl.data(), reqs, static_cast<int64_t>(rng() % tokens), &cursor);
      SeekRequest(qsl.data(), reqs, t, &cursor);
      ASSERT_EQ(expected, cursor.request) << "t=" << t;
    }
  }
}

TEST(PagedHostTest, MatchesReferenceOverOddSizes) {
  int cases = 0;
  for (int32_t block_size : {1, 3, 7, 16, 17})
    for (int32_t reqs : {1, 2, 3, 5, 7, 23, 79})
      for (int32_t bpk : {1, 4})
        for (uint64_t seed : {1, 2}) {
          PagedSweepCase c;
          c.num_reqs = reqs;
          c.block_size = block_size;
          c.blocks_per_manager_block = bpk;
          c.seed = seed;
          const Scenario s = MakePagedSweepScenario(c);
          const GroupOutputs out = RunHost(s);
          const std::vector<int64_t> ref = ReferencePaged(s.batch, s.groups[0]);
          ASSERT_EQ(ref, out.engine[0]) << c.ToString();
          ASSERT_EQ(ref, out.flat[0]) << c.ToString();
          ASSERT_EQ(std::vector<uint8_t>(s.batch.num_tokens, 0), out.read_past_row) << c.ToString();
          ++cases;
        }
  EXPECT_EQ(5 * 7 * 2 * 2, cases);
}

TEST(PagedHostTest, MatchesReferenceUnderDcp) {
  for (int32_t world : {2, 3, 4})
    for (int32_t interleave : {1, 2, 4})
      for (int32_t rank = 0; rank < world; ++rank) {
        PagedSweepCase c;
        c.num_reqs = 7;
        c.block_size = 4;
        c.blocks_per_manager_block = 2;  // manager block 8: interleave divides it
        c.dcp = {world, rank, interleave};
        c.seed = 11 + rank;
        const Scenario s = MakePagedSweepScenario(c);
        const GroupOutputs out = RunHost(s);
        const std::vector<int64_t> ref = ReferencePaged(s.batch, s.groups[0]);
        ASSERT_EQ(ref, out.engine[0]) << c.ToString();
        ASSERT_EQ(ref, out.flat[0]) << c.ToString();
      }
}

TEST(PagedHostTest, DcpRanksPartitionTheTokens) {
  // Every real token of a live request is owned by exactly one rank.
  PagedSweepCase c;
  c.num_reqs = 9;
  c.block_size = 4;
  c.blocks_per_manager_block = 2;
  c.dummies = false;
  for (int32_t interleave : {1, 2, 8}) {
    std::vector<int> owners;
    for (int32_t rank = 0; rank < 4; ++rank) {
      c.dcp = {4, rank, interleave};
      const Scenario s = MakePagedSweepScenario(c);
      const std::vector<int64_t> out = RunHost(s).engine[0];
      owners.resize(s.batch.num_real_tokens(), 0);
      for (int64_t t = 0; t < s.batch.num_real_tokens(); ++t) owners[t] += out[t] >= 0;
    }
    for (size_t t = 0; t < owners.size(); ++t) ASSERT_EQ(1, owners[t]) << "token " << t;
  }
}

TEST(PagedHostTest, DisabledGroupIsAllPad) {
  PagedSweepCase c;
  c.num_reqs = 5;
  Scenario s = MakePagedSweepScenario(c);
  SetParam(&s.groups[0], "enabled", false);
  const GroupOutputs out = RunHost(s);
  EXPECT_EQ(std::vector<int64_t>(s.batch.num_tokens, -1), out.engine[0]);
  EXPECT_EQ(std::vector<int64_t>(s.batch.num_tokens, -1), out.flat[0]);
}

// Variants differ from fixed exactly on the tokens docs/families.md, paged names.
class PagedVariantTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PagedSweepCase c;
    c.num_reqs = 23;
    c.block_size = 3;
    c.seed = 5;
    c.padding_tokens = 4;
    scenario_ = MakePagedSweepScenario(c);
  }
  /// Tokens where `variant` and fixed differ, and the tokens read past a row.
  std::vector<int64_t> Diff(Variant variant, std::vector<int64_t>* read_past = nullptr) {
    Scenario fixed = scenario_;
    Scenario mutant = scenario_;
    mutant.groups[0].variant = variant;
    const GroupOutputs a = RunHost(fixed);
    const GroupOutputs b = RunHost(mutant);
    EXPECT_EQ(b.engine[0], b.flat[0]);  // the geometries agree on valid input, mutants too
    std::vector<int64_t> diff;
    for (int64_t t = 0; t < scenario_.batch.num_tokens; ++t) {
      if (a.engine[0][t] != b.engine[0][t]) diff.push_back(t);
      if (read_past && b.read_past_row[t]) read_past->push_back(t);
    }
    return diff;
  }
  Scenario scenario_;
};

TEST_F(PagedVariantTest, UnguardedDiffersExactlyOnPositionsPastTheRow) {
  // Narrow the table so some live tokens select columns past the row.
  BlockTable& table = scenario_.groups[0].table;
  const int32_t width = 5;
  BlockTable narrow{table.rows, width, {}};
  for (int32_t r = 0; r < table.rows; ++r)
    for (int32_t c = 0; c < width; ++c) narrow.entries.push_back(table.at(r, c));
  table = narrow;
  std::vector<int64_t> expected;
  const Batch& b = scenario_.batch;
  for (int32_t r = 0; r < b.num_reqs(); ++r)
    for (int64_t t = b.query_start_loc[r]; t < b.query_start_loc[r + 1]; ++t)
      if (b.idx_mapping[r] != -1 && b.positions[t] / 3 >= width) expected.push_back(t);
  ASSERT_FALSE(expected.empty());
  std::vector<int64_t> read_past;
  EXPECT_EQ(expected, Diff(Variant::kPagedUnguarded, &read_past));
  EXPECT_EQ(expected, read_past);  // the instrumented reads saw every one
}

TEST_F(PagedVariantTest, DummyReadsRowDiffersExactlyOnDummyTokens) {
  std::vector<int64_t> expected;
  const Batch& b = scenario_.batch;
  for (int32_t r = 0; r < b.num_reqs(); ++r)
    for (int64_t t = b.query_start_loc[r]; t < b.query_start_loc[r + 1]; ++t)
      if (b.idx_mapping[r] == -1) expected.push_back(t);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(expected, Diff(Variant::kPagedDummyReadsRow));
}

TEST_F(PagedVariantTest, PadFromNDiffersExactlyOnTheTail) {
  std::vector<int64_t> expected;
  for (int64_t t = scenario_.batch.num_real_tokens(); t < scenario_.batch.num_tokens; ++t)
    expected.push_back(t);
  ASSERT_EQ(4u, expected.size());
  EXPECT_EQ(expected, Diff(Variant::kPagedPadFromN));
}

}  // namespace
}  // namespace slotguard
