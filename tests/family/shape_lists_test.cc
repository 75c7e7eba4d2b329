// The shape lists (family/shape_lists.h), worked out by hand from the
// paged family's description (families/paged.json) and the ring tail's.
#include "family/shape_lists.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "family/group_model.h"
#include "testing/make_group.h"

namespace slotguard {
namespace {

using testing::MakeGroup;

std::vector<int64_t> ValuesOf(const Group& g, const std::string& param, ParamSource source) {
  const int32_t p = FamilyModel(g.family).FindParam(param);
  std::vector<int64_t> out;
  for (const ParamValue& v : ParamValues(g, static_cast<size_t>(p)))
    if (v.source == source) out.push_back(v.value);
  return out;
}

// block_size: min 1, example 16, no max (int64). Its list keeps the values
// <= 1, has values beside the example that are not powers of two (15, 17),
// the smallest non-power-of-two (3) and the large pages.
TEST(ShapeListsTest, AParameterListsItsBoundsTheirNeighboursAndANonPowerOfTwo) {
  const Group g = MakeGroup(Family::kPaged, "p", {{"block_size", 16}});
  EXPECT_EQ((std::vector<int64_t>{1}), ValuesOf(g, "block_size", ParamSource::kMin));
  EXPECT_EQ((std::vector<int64_t>{2}), ValuesOf(g, "block_size", ParamSource::kNext));
  EXPECT_EQ((std::vector<int64_t>{16}), ValuesOf(g, "block_size", ParamSource::kExample));
  EXPECT_EQ((std::vector<int64_t>{15, 17}), ValuesOf(g, "block_size", ParamSource::kBoundary));
  EXPECT_EQ((std::vector<int64_t>{3}), ValuesOf(g, "block_size", ParamSource::kNonPowerOfTwo));
  EXPECT_EQ((std::vector<int64_t>{int64_t{1} << 20, int64_t{1} << 28, int64_t{1} << 30, 1000000007}),
            ValuesOf(g, "block_size", ParamSource::kLarge));
  EXPECT_TRUE(ValuesOf(g, "block_size", ParamSource::kMax).empty()) << "no max given";
  EXPECT_TRUE(ValuesOf(g, "block_size", ParamSource::kDivisor).empty()) << "divides nothing";
}

// kernel_block_size divides block_size (16 here): its divisors 1, 2, 4, 8,
// 16; its max is block_size (16, and 15 beside it, which does not divide
// 16 and goes); 16 has no divisor that is not a power of two.
TEST(ShapeListsTest, ADividingParameterListsOnlyDivisors) {
  const Group g = MakeGroup(Family::kPaged, "p", {{"block_size", 16}});
  EXPECT_EQ((std::vector<int64_t>{1, 2, 4, 8, 16}), ValuesOf(g, "kernel_block_size", ParamSource::kDivisor));
  EXPECT_EQ((std::vector<int64_t>{16}), ValuesOf(g, "kernel_block_size", ParamSource::kMax));
  EXPECT_TRUE(ValuesOf(g, "kernel_block_size", ParamSource::kNonPowerOfTwo).empty());
  EXPECT_TRUE(ValuesOf(g, "kernel_block_size", ParamSource::kLarge).empty());
  // block_size 12: 3, 6 and 12 are divisors that are not powers of two; 3 the smallest.
  const Group twelve = MakeGroup(Family::kPaged, "p", {{"block_size", 12}});
  EXPECT_EQ((std::vector<int64_t>{3}), ValuesOf(twelve, "kernel_block_size", ParamSource::kNonPowerOfTwo));
}

// The paged formulas divide by block_size * dcp_world (16), by
// dcp_interleave * dcp_world (1), by dcp_interleave (1) and by
// kernel_block_size (16): boundary 16. 1 is a boundary only for a block of
// one token, where context 1 is the second block.
TEST(ShapeListsTest, FormulaBoundariesKeepOneForABlockOfOneToken) {
  EXPECT_EQ((std::vector<int64_t>{16}), FormulaBoundaries(MakeGroup(Family::kPaged, "p", {{"block_size", 16}})));
  EXPECT_EQ((std::vector<int64_t>{1}), FormulaBoundaries(MakeGroup(Family::kPaged, "p", {{"block_size", 1}})));
  EXPECT_EQ((std::vector<int64_t>{3}), FormulaBoundaries(MakeGroup(Family::kPaged, "p", {{"block_size", 3}})));
}

// At position 2^31 a page of 2^20 reads column 2048 (2049 columns); a page
// of 16 reads column 2^27, wider than any row the prover lays out.
TEST(ShapeListsTest, ASeqLenPastInt32NeedsALargeBlock) {
  EXPECT_TRUE(MeetsPastInt32(MakeGroup(Family::kPaged, "p", {{"block_size", int64_t{1} << 20}}), 4096));
  EXPECT_FALSE(MeetsPastInt32(MakeGroup(Family::kPaged, "p", {{"block_size", int64_t{1} << 20}}), 2048));
  EXPECT_FALSE(MeetsPastInt32(MakeGroup(Family::kPaged, "p", {{"block_size", 16}}), 4096));
}

// A fresh prefill longer than a block: a manager block + 1 tokens (the
// manager block of a hybrid group: block_size 16 over kernel blocks of 4).
TEST(ShapeListsTest, AFreshPrefillIsOneTokenLongerThanTheBlock) {
  EXPECT_EQ((std::vector<int32_t>{17}), FreshPrefillTokens(MakeGroup(Family::kPaged, "p", {{"block_size", 16}}), 8192));
  EXPECT_EQ((std::vector<int32_t>{17}),
            FreshPrefillTokens(MakeGroup(Family::kPaged, "p", {{"block_size", 16}, {"kernel_block_size", 4}}), 8192));
  EXPECT_TRUE(FreshPrefillTokens(MakeGroup(Family::kPaged, "p", {{"block_size", 16}}), 16).empty());
}

TEST(ShapeListsTest, ClampPositionsArePastInt32) {
  for (int64_t p : ClampPositions()) EXPECT_GE(p, int64_t{1} << 31);
  EXPECT_FALSE(ClampPositions().empty());
}

}  // namespace
}  // namespace slotguard
