// The family parameter table (registry/family_params.def) as the loader,
// the writer and the bindings see it.
#include "scenario/family_params.h"

#include <algorithm>

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

// What the loader, the writer and the wire format assume of the table.
TEST(FamilyParamsTest, TheTableIsWellFormed) {
  for (const FamilyInfo& info : AllFamilies()) {
    const std::vector<const ParamInfo*>& params = ParamsOf(info.family);
    for (size_t i = 0; i < params.size(); ++i) {
      const ParamInfo& p = *params[i];
      // "divides" and "times" name an integer row of the same family read before this one.
      for (const char* ref : {p.divides, p.times}) {
        if (!*ref) continue;
        const ParamInfo* other = FindParam(info.family, ref);
        ASSERT_NE(nullptr, other) << p.key << " names " << ref;
        EXPECT_EQ(ParamKind::kInt, other->kind) << ref;
        EXPECT_LT(std::find(params.begin(), params.end(), other) - params.begin(), static_cast<ptrdiff_t>(i))
            << ref << " must come before " << p.key;
      }
      // The rows of one nested object follow each other (the writer writes it once).
      if (p.kind == ParamKind::kDerived || !p.nested() || i == 0) continue;
      const ParamInfo& before = *params[i - 1];
      if (!before.nested() || before.top_key() != p.top_key())
        for (size_t j = 0; j < i; ++j)
          EXPECT_NE(p.top_key(), params[j]->nested() ? params[j]->top_key() : "") << p.key << " is not contiguous";
    }
    // Every family has its shape: a group with the table's example values
    // names a page, a null block and a width.
    Group g;
    g.name = info.name;
    g.family = info.family;
    for (const ParamInfo* p : params)
      if (p->kind == ParamKind::kInt) *p->ref(g).i = static_cast<int32_t>(p->example);
    DeriveParams(&g);
    EXPECT_GE(SlotsPerEntry(g), 1) << info.name;
    EXPECT_GE(NullEntries(g), 1) << info.name;
    EXPECT_GE(MinWidth(g), 0) << info.name;
    EXPECT_GE(OutputCount(g), 1) << info.name;
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
