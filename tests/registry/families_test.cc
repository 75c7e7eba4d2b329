// Name lookups over the family/variant registry: the message-free lookup
// of the per-scenario paths and the --variant check of the commands.
#include "registry/families.h"

#include <gtest/gtest.h>

#include "runner/scenario_run.h"

namespace slotguard {
namespace {

TEST(FamiliesTest, LookupVariantFindsTheFamilysOwnNamesOnly) {
  Variant v = Variant::kPagedFixed;
  EXPECT_TRUE(LookupVariant(Family::kPaged, "unguarded", &v));
  EXPECT_EQ(Variant::kPagedUnguarded, v);
  EXPECT_TRUE(LookupVariant(Family::kCompressorRing, "prefix", &v));
  EXPECT_EQ(Variant::kCompressorRingPrefix, v);
  v = Variant::kPagedFixed;
  EXPECT_FALSE(LookupVariant(Family::kQsaRing, "unguarded", &v));  // a paged variant
  EXPECT_FALSE(LookupVariant(Family::kPaged, "unguard", &v));
  EXPECT_EQ(Variant::kPagedFixed, v) << "left alone when not found";
  for (const VariantInfo& info : AllVariants()) {
    std::string err;
    Variant found, looked_up;
    ASSERT_TRUE(FindVariant(info.family, info.name, &found, &err));
    ASSERT_TRUE(LookupVariant(info.family, info.name, &looked_up));
    EXPECT_EQ(found, looked_up) << info.name;
  }
}

TEST(FamiliesTest, ForceVariantSetsTheGroupsWhoseFamilyHasIt) {
  Scenario s;
  s.groups.resize(2);
  s.groups[0].family = Family::kPaged;
  s.groups[0].variant = Variant::kPagedFixed;
  s.groups[1].family = Family::kKpoolTail;
  s.groups[1].variant = Variant::kKpoolTailFixed;
  EXPECT_TRUE(ForceVariant("prefix", &s));
  EXPECT_EQ(Variant::kPagedFixed, s.groups[0].variant);
  EXPECT_EQ(Variant::kKpoolTailPrefix, s.groups[1].variant);
  EXPECT_FALSE(ForceVariant("clamp", &s));  // no compressor_ring group
  EXPECT_TRUE(ForceVariant("fixed", &s));
  EXPECT_EQ(Variant::kKpoolTailFixed, s.groups[1].variant);
}

TEST(FamiliesTest, ValidateVariantNameSuggests) {
  std::string err;
  EXPECT_TRUE(ValidateVariantName("", &err));
  EXPECT_TRUE(ValidateVariantName("all", &err));
  EXPECT_TRUE(ValidateVariantName("no_common_guard", &err));
  EXPECT_EQ("", err);
  EXPECT_FALSE(ValidateVariantName("unguard", &err));
  EXPECT_EQ("unknown variant 'unguard', did you mean 'unguarded'?; expected one of all, fixed, unguarded, "
            "dummy_reads_row, pad_from_n, gathered_row, prefix, no_common_guard, clamp, engine_81be2e09, "
            "upstream_00746147, engine_81be2e09_indexer, v1_dummy_run_81be2e09, engine_fb28d724, lmcache_pr2984, pr_23353, "
            "sm90_writeback_043d19ef, pad_minus_one, engine_7b437aaa, v2_runner, pre_46301, pre_39064, column0, "
            "pre_49757, unfiltered",
            err);
}

}  // namespace
}  // namespace slotguard
