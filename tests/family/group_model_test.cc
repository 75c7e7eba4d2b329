// A group's family as data (family/group_model.h): the keys, defaults,
// shapes and outputs the loader, the writer and the bindings read from the
// built-in descriptions (families/*.json).
#include "family/group_model.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "testing/make_group.h"

namespace slotguard {
namespace {

using testing::MakeGroup;

TEST(FamilyParamsTest, EachFamilyHasItsKeysInDescriptionOrder) {
  EXPECT_EQ((std::vector<std::string>{"block_size", "kernel_block_size", "dcp", "enabled"}),
            FamilyKeys(Family::kPaged));
  EXPECT_EQ((std::vector<std::string>{"world", "rank", "interleave"}), NestedKeys(Family::kPaged, "dcp"));
  EXPECT_EQ((std::vector<std::string>{"kpool"}), FamilyKeys(Family::kKpoolTail));
  EXPECT_EQ((std::vector<std::string>{"ring"}), FamilyKeys(Family::kQsaRing));
  EXPECT_EQ((std::vector<std::string>{"block_size", "compress_ratio", "common"}), FamilyKeys(Family::kQsaCompressed));
  EXPECT_EQ((std::vector<std::string>{"capacity", "ring_block_size"}), FamilyKeys(Family::kCompressorRing));
}

// What the loader, the writer and the wire format assume of a description.
TEST(FamilyParamsTest, EveryBuiltInDescriptionIsWellFormed) {
  for (const FamilyInfo& info : AllFamilies()) {
    const FamilyModel model(info.family);
    const std::vector<ParamDesc>& params = model.params();
    for (size_t i = 0; i < params.size(); ++i) {
      const ParamDesc& p = params[i];
      // "divides" names an integer parameter before this one.
      if (!p.divides.empty()) {
        const int32_t other = model.FindParam(p.divides);
        ASSERT_GE(other, 0) << p.key << " names " << p.divides;
        EXPECT_TRUE(params[other].is_int()) << p.divides;
        EXPECT_LT(other, static_cast<int32_t>(i)) << p.divides << " must come before " << p.key;
      }
      // The rows of one nested object follow each other (the writer writes it once).
      if (!p.nested() || i == 0) continue;
      const ParamDesc& before = params[i - 1];
      if (!before.nested() || before.top_key() != p.top_key())
        for (size_t j = 0; j < i; ++j)
          EXPECT_NE(p.top_key(), params[j].nested() ? params[j].top_key() : "") << p.key << " is not contiguous";
    }
    // A group with the description's examples names a page, a null block, a width and its outputs.
    const Group g = ExampleGroup(info.family, info.name);
    EXPECT_GE(SlotsPerEntry(g), 1) << info.name;
    EXPECT_GE(NullEntries(g), 1) << info.name;
    EXPECT_GE(MinWidth(g), 0) << info.name;
    EXPECT_GE(OutputCount(g), 1) << info.name;
    EXPECT_EQ(OutputNames(g).front(), info.name) << info.name;
  }
}

TEST(FamilyParamsTest, DefaultsReadEarlierParametersAndMaxFormulasBound) {
  // kernel_block_size defaults to block_size; its max is block_size too.
  const Group paged = MakeGroup(Family::kPaged, "attn", {{"block_size", 32}});
  EXPECT_EQ(32, ParamOf(paged, "kernel_block_size"));
  const FamilyModel paged_model(Family::kPaged);
  EXPECT_EQ(32, ParamMax(paged, paged_model.FindParam("kernel_block_size")));
  EXPECT_EQ(1, ParamOf(paged, "dcp_world"));
  EXPECT_EQ(1, ParamOf(paged, "enabled"));
  const Group dcp = MakeGroup(Family::kPaged, "attn", {{"block_size", 32}, {"dcp_world", 4}});
  EXPECT_EQ(3, ParamMax(dcp, paged_model.FindParam("dcp_rank")));
  const ParamDesc& rank = paged_model.params()[paged_model.FindParam("dcp_rank")];
  EXPECT_EQ("dcp", rank.top_key());
  EXPECT_EQ("rank", rank.leaf_key());
  EXPECT_EQ("dcp/rank", rank.key);
  EXPECT_EQ("/groups/2/dcp/rank", ParamPointer("/groups/2", rank));
  // A group parameter: absent unless given.
  const Group compressed = MakeGroup(Family::kQsaCompressed, "c", {{"block_size", 8}}, {{"common", "attn"}});
  EXPECT_EQ("attn", LinkOf(compressed, "common"));
  EXPECT_EQ("", LinkOf(MakeGroup(Family::kQsaCompressed, "c"), "common"));
}

TEST(FamilyParamsTest, ShapeOfEachFamily) {
  const Group ring = MakeGroup(Family::kCompressorRing, "c", {{"capacity", 12}, {"ring_block_size", 4}});
  EXPECT_EQ(4, SlotsPerEntry(ring));
  EXPECT_EQ(3, MinWidth(ring));  // capacity / ring_block_size
  EXPECT_EQ((std::vector<std::string>{"c", "c.tail"}), OutputNames(ring));
  EXPECT_EQ(2, OutputCount(ring));
  const Group hybrid = MakeGroup(Family::kPaged, "c", {{"block_size", 16}, {"kernel_block_size", 4}});
  EXPECT_EQ(4, SlotsPerEntry(hybrid));
  EXPECT_EQ(4, NullEntries(hybrid));  // manager block 0 is kernel blocks 0..3
  EXPECT_EQ(16 * 10, PoolSlots(10, hybrid));
  EXPECT_EQ("block_size / kernel_block_size", NullEntriesText(Family::kPaged));
  EXPECT_EQ(0, MinWidth(hybrid));
  EXPECT_EQ((std::vector<std::string>{"c"}), OutputNames(hybrid));
  EXPECT_TRUE(ReadsColumn0Only(Family::kKpoolTail));
  EXPECT_TRUE(ReadsColumn0Only(Family::kQsaRing));
  EXPECT_FALSE(ReadsColumn0Only(Family::kCompressorRing));
  EXPECT_FALSE(ReadsColumn0Only(Family::kPaged));
  const Group kpool = MakeGroup(Family::kKpoolTail, "k", {{"kpool", 4}});
  EXPECT_EQ(1, MinWidth(kpool));
  EXPECT_EQ(1, NullEntries(kpool));
  EXPECT_EQ(4, SlotsPerEntry(kpool));
}

TEST(FamilyParamsTest, DivisorsAreThePeriodsOfTheAddressing) {
  // paged: pos % (block_size * world), off / (interleave * world), local / kbs, local % kbs,
  // off % interleave, and the manager page.
  const Group dcp = MakeGroup(Family::kPaged, "a",
                              {{"block_size", 8}, {"kernel_block_size", 4}, {"dcp_world", 2}, {"dcp_interleave", 2}});
  std::vector<int64_t> divisors = GroupDivisors(dcp);
  std::sort(divisors.begin(), divisors.end());
  EXPECT_EQ((std::vector<int64_t>{2, 4, 8, 16}), divisors);
  // compressor_ring: mod(pos, capacity), ring_row / ring_block_size, % ring_block_size.
  std::vector<int64_t> ring = GroupDivisors(MakeGroup(Family::kCompressorRing, "c", {{"capacity", 12}, {"ring_block_size", 4}}));
  std::sort(ring.begin(), ring.end());
  EXPECT_EQ((std::vector<int64_t>{4, 12}), ring);
}

TEST(FamilyParamsTest, AGateNamesItsLinkedGroup) {
  Scenario s;
  s.groups = {MakeGroup(Family::kQsaCompressed, "c", {}, {{"common", "attn"}}), MakeGroup(Family::kPaged, "attn"),
              MakeGroup(Family::kKpoolTail, "k")};
  EXPECT_EQ(1, GateGroupIndex(s, s.groups[0]));
  EXPECT_EQ(-1, GateGroupIndex(s, s.groups[1]));
  EXPECT_TRUE(ReadsAnotherGroup(Family::kQsaCompressed));
  EXPECT_FALSE(ReadsAnotherGroup(Family::kPaged));
}

}  // namespace
}  // namespace slotguard
