// The interpreter (every family's reference: its description) against the
// hand-written references of the built-in kernels' families, on generated
// scenarios, consistent and inconsistent: bit for bit. A sample here;
// scripts/reference-crosscheck.sh runs a million per family.
#include <gtest/gtest.h>

#include "bench/reference_bench.h"

namespace slotguard {
namespace {

TEST(ReferenceCrossCheckTest, TheDescriptionsAgreeWithTheHandWrittenReferences) {
  for (const FamilyInfo& f : AllFamilies()) {
    if (!f.kernel) continue;
    ReferenceBenchRow row;
    std::string err;
    ASSERT_TRUE(CompareReferences(f.family, 3000, 11, nullptr, 1, &row, &err)) << err;
    EXPECT_EQ(0, row.mismatches) << f.name << ": " << row.first;
    EXPECT_GT(row.groups, 3000) << f.name;  // every scenario has a group of it, some two
    EXPECT_GT(row.tokens, 100000) << f.name;
  }
}

TEST(ReferenceCrossCheckTest, AFamilyWithoutAHandReferenceIsRefused) {
  for (const FamilyInfo& f : AllFamilies()) {
    if (f.kernel) continue;
    ReferenceBenchRow row;
    std::string err;
    EXPECT_FALSE(CompareReferences(f.family, 1, 1, nullptr, 1, &row, &err));
    EXPECT_EQ(std::string("family ") + f.name + " has no hand-written reference", err);
  }
}

}  // namespace
}  // namespace slotguard
