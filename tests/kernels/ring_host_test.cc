// The ring families' kernel source run on the host against the reference:
// sweeps of odd capacities and ragged batches, both geometries, and each
// variant differing from `fixed` exactly where docs/families.md says.
#include <gtest/gtest.h>

#include "backend/backend.h"
#include "reference/reference.h"
#include "runner/scenario_run.h"
#include "testing/ring_sweep.h"

namespace slotguard {
namespace {

using testing::MakeRingSweepScenario;
using testing::RingSweepCase;

std::vector<GroupOutputs> RunHost(const Scenario& s) {
  std::vector<GroupOutputs> out;
  std::string err;
  EXPECT_TRUE(MakeHostBackend()->Run(s, &out, &err)) << err;
  return out;
}

TEST(RingHostTest, EveryFamilyMatchesTheReferenceOverOddCapacities) {
  int cases = 0;
  for (int32_t capacity : {1, 3, 5, 7, 64, 640})
    for (int32_t reqs : {0, 1, 2, 3, 7, 23})
      for (uint64_t seed : {1, 2, 3}) {
        RingSweepCase c;
        c.capacity = capacity;
        c.num_reqs = reqs;
        c.seed = seed;
        c.max_query = capacity > 64 ? 40 : 2 * capacity + 3;  // longer than the ring: keep-last-C
        const Scenario s = MakeRingSweepScenario(c);
        const std::vector<GroupOutputs> out = RunHost(s);
        for (size_t g = 0; g < s.groups.size(); ++g) {
          const auto ref = ReferenceOutputs(s, s.groups[g]);
          ASSERT_EQ(ref, out[g].engine) << s.groups[g].name << " " << c.ToString();
          ASSERT_EQ(ref, out[g].flat) << s.groups[g].name << " " << c.ToString();
          ASSERT_EQ(std::vector<uint8_t>(s.batch.num_tokens, 0), out[g].read_past_row);
        }
        // A consistent batch: the whole check holds with every fixed kernel.
        std::unique_ptr<Backend> host = MakeHostBackend();
        const ScenarioReport report = CheckScenario(s, "sweep", *host, 4);
        ASSERT_TRUE(report.holds) << c.ToString() << ": " << report.verdict;
        ++cases;
      }
  EXPECT_EQ(6 * 6 * 3, cases);
}

// Tokens where the variant's output differs from fixed, for group `name`.
std::vector<int64_t> Diff(Scenario s, const std::string& name, Variant variant, int output = 0) {
  const std::vector<GroupOutputs> fixed = RunHost(s);
  size_t g = 0;
  while (s.groups[g].name != name) ++g;
  s.groups[g].variant = variant;
  const std::vector<GroupOutputs> mutant = RunHost(s);
  EXPECT_EQ(mutant[g].engine, mutant[g].flat);
  std::vector<int64_t> diff;
  for (int64_t t = 0; t < s.batch.num_tokens; ++t)
    if (fixed[g].engine[output][t] != mutant[g].engine[output][t]) diff.push_back(t);
  return diff;
}

class RingVariantTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RingSweepCase c;
    c.num_reqs = 23;
    c.capacity = 5;
    c.seed = 9;
    s_ = MakeRingSweepScenario(c);
    requests_ = std::vector<int32_t>(s_.batch.num_tokens, -1);
    for (int32_t r = 0; r < s_.batch.num_reqs(); ++r)
      for (int64_t t = s_.batch.query_start_loc[r]; t < s_.batch.query_start_loc[r + 1]; ++t) requests_[t] = r;
  }
  const Group& G(const std::string& name) const {
    for (const Group& g : s_.groups)
      if (g.name == name) return g;
    return s_.groups[0];
  }
  int64_t Lp(int64_t t) const {
    const Batch& b = s_.batch;
    const int32_t r = requests_[t];
    return b.seq_lens[r] - (b.query_start_loc[r + 1] - b.query_start_loc[r]) + (t - b.query_start_loc[r]);
  }
  Scenario s_;
  std::vector<int32_t> requests_;
};

TEST_F(RingVariantTest, KpoolPrefixDiffersOnTokensOfNullRows) {
  // Tokens below num_actual_tokens whose (clamped) request's entry is 0.
  const Batch& b = s_.batch;
  std::vector<int64_t> expected;
  for (int64_t t = 0; t < b.num_actual_tokens; ++t) {
    const int32_t r = t < b.num_real_tokens() ? requests_[t] : b.num_reqs() - 1;
    if (G("tail").table.at(r, 0) == 0) expected.push_back(t);
  }
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(expected, Diff(s_, "tail", Variant::kKpoolTailPrefix));
}

TEST_F(RingVariantTest, QsaRingPrefixDiffersOnKeptTokensOfNullRows) {
  const Batch& b = s_.batch;
  std::vector<int64_t> expected;
  for (int64_t t = 0; t < b.num_real_tokens(); ++t) {
    const int32_t r = requests_[t];
    if (Lp(t) >= 0 && t + ParamOf(G("qsa"), "ring") >= b.query_start_loc[r + 1] && G("qsa").table.at(r, 0) == 0)
      expected.push_back(t);
  }
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(expected, Diff(s_, "qsa", Variant::kQsaRingPrefix));
}

TEST_F(RingVariantTest, NoCommonGuardDiffersWhereTheCommonMappingIsPad) {
  const std::vector<int64_t> common = ReferencePaged(s_.batch, G("attn"));
  const Group& g = G("qsa_c");
  std::vector<int64_t> expected;
  for (int64_t t = 0; t < s_.batch.num_real_tokens(); ++t) {
    const int64_t lp = Lp(t);
    if (lp < 0 || (lp + 1) % ParamOf(g, "compress_ratio") != 0) continue;
    const int64_t col = lp / ParamOf(g, "compress_ratio") / ParamOf(g, "block_size");
    if (col < g.table.width && g.table.at(requests_[t], static_cast<int32_t>(col)) >= 0 && common[t] < 0)
      expected.push_back(t);
  }
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(expected, Diff(s_, "qsa_c", Variant::kQsaCompressedNoCommonGuard));
}

TEST_F(RingVariantTest, CompressorPrefixAndClampDifferOnNullEntries) {
  const Batch& b = s_.batch;
  const Group& g = G("c128");
  const int64_t limit = std::min(b.num_actual_tokens, b.num_real_tokens());
  std::vector<int64_t> zero, zero_tail;
  for (int64_t t = 0; t < limit; ++t) {
    const int32_t r = requests_[t];
    if (g.table.at(r, static_cast<int32_t>(b.positions[t] % ParamOf(g, "capacity") / ParamOf(g, "ring_block_size"))) == 0) {
      zero.push_back(t);
      if (t + ParamOf(g, "capacity") >= b.query_start_loc[r + 1]) zero_tail.push_back(t);
    }
  }
  ASSERT_FALSE(zero.empty());
  EXPECT_EQ(zero, Diff(s_, "c128", Variant::kCompressorRingPrefix, 0));
  EXPECT_EQ(zero_tail, Diff(s_, "c128", Variant::kCompressorRingPrefix, 1));
  EXPECT_EQ(zero, Diff(s_, "c128", Variant::kCompressorRingClamp, 0));  // 0 rows: clamp == prefix

  // With -1 rows prefix pads them like fixed; only clamp writes them.
  RingSweepCase c;
  c.num_reqs = 23;
  c.capacity = 5;
  c.seed = 9;
  c.minus_one_rows = true;
  const Scenario minus = MakeRingSweepScenario(c);
  EXPECT_EQ(std::vector<int64_t>{}, Diff(minus, "c128", Variant::kCompressorRingPrefix, 0));
  EXPECT_EQ(zero, Diff(minus, "c128", Variant::kCompressorRingClamp, 0));
}

}  // namespace
}  // namespace slotguard
