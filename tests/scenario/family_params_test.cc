// The family parameter table (registry/family_params.def) as the loader,
// the writer and the bindings see it.
#include "scenario/family_params.h"

#include <gtest/gtest.h>

namespace slotguard {
namespace {

TEST(FamilyParamsTest, EachFamilyHasItsKeysInTableOrder) {
  EXPECT_EQ((std::vector<std::string>{"block_size", "kernel_block_size", "dcp", "enabled"}),
            FamilyKeys(Family::kPaged));
  EXPECT_EQ((std::vector<std::string>{"world", "rank", "interleave"}), NestedKeys(Family::kPaged, "dcp"));
  EXPECT_EQ((std::vector<std::string>{"kpool"}), FamilyKeys(Family::kKpoolTail));
  EXPECT_EQ((std::vector<std::string>{"ring"}), FamilyKeys(Family::kQsaRing));
  // kernel_block_size of qsa_compressed is derived, not a key.
  EXPECT_EQ((std::vector<std::string>{"block_size", "compress_ratio", "common"}), FamilyKeys(Family::kQsaCompressed));
  EXPECT_EQ((std::vector<std::string>{"capacity", "ring_block_size"}), FamilyKeys(Family::kCompressorRing));
}

TEST(FamilyParamsTest, EveryFamilyHasAParameterTableRowAndPluginFieldsNameTheirFamily) {
  for (const FamilyInfo& info : AllFamilies()) EXPECT_FALSE(ParamsOf(info.family).empty()) << info.name;
  for (const ParamInfo& p : AllParams()) {
    if (p.kind != ParamKind::kInt && p.kind != ParamKind::kBool) continue;
    // The plugin ABI groups a family's parameters in a member named after it.
    EXPECT_EQ(std::string(GetFamily(p.family).name) + "." + p.spec_name(), p.plugin_field) << p.key;
  }
}

TEST(FamilyParamsTest, DefaultsAndDerivedParameters) {
  Group g;
  g.family = Family::kQsaCompressed;
  g.block_size = 8;
  DeriveParams(&g);
  EXPECT_EQ(8, g.kernel_block_size);
  const ParamInfo* kbs = FindParam(Family::kPaged, "kernel_block_size");
  ASSERT_NE(nullptr, kbs);
  Group paged;
  paged.block_size = 32;
  EXPECT_EQ(32, kbs->default_value(paged));
  EXPECT_EQ(32, kbs->max(paged));
  EXPECT_EQ(kRequiredParam, FindParam(Family::kPaged, "block_size")->default_value(paged));
  const ParamInfo* rank = FindParam(Family::kPaged, "dcp/rank");
  ASSERT_NE(nullptr, rank);
  paged.dcp.world = 4;
  EXPECT_EQ(3, rank->max(paged));
  EXPECT_EQ("dcp", rank->top_key());
  EXPECT_EQ("rank", rank->leaf_key());
  EXPECT_EQ("dcp_rank", rank->spec_name());
}

TEST(FamilyParamsTest, ShapeOfEachFamily) {
  Group g;
  g.name = "c";
  g.family = Family::kCompressorRing;
  g.capacity = 12;
  g.ring_block_size = 4;
  EXPECT_EQ(4, SlotsPerEntry(g));
  EXPECT_EQ(3, MinWidth(g));
  EXPECT_EQ((std::vector<std::string>{"c", "c.tail"}), OutputNames(g));
  EXPECT_EQ(2, OutputCount(g));
  g.family = Family::kPaged;
  g.block_size = 16;
  g.kernel_block_size = 4;
  EXPECT_EQ(4, SlotsPerEntry(g));
  EXPECT_EQ(4, NullEntries(g));
  EXPECT_EQ("block_size / kernel_block_size", NullEntriesText(Family::kPaged));
  EXPECT_EQ(0, MinWidth(g));
  EXPECT_EQ((std::vector<std::string>{"c"}), OutputNames(g));
  EXPECT_TRUE(ReadsColumn0Only(Family::kKpoolTail));
  EXPECT_TRUE(ReadsColumn0Only(Family::kQsaRing));
  EXPECT_FALSE(ReadsColumn0Only(Family::kCompressorRing));
  g.family = Family::kKpoolTail;
  g.kpool = 4;
  EXPECT_EQ(1, MinWidth(g));
  EXPECT_EQ(1, NullEntries(g));
}

}  // namespace
}  // namespace slotguard
