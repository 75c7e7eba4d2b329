#include "registry/invariants.h"

#include <gtest/gtest.h>

namespace slotguard {
namespace {

TEST(InvariantRegistryTest, NamesAreTheRegistrySpellings) {
  EXPECT_STREQ("null_block", kInvariantNullBlock);
  EXPECT_STREQ("unique_slots", kInvariantUniqueSlots);
  EXPECT_STREQ("no_fault", kInvariantNoFault);
  for (const InvariantInfo& info : AllInvariants()) EXPECT_TRUE(IsInvariantName(info.name)) << info.name;
  EXPECT_FALSE(IsInvariantName("nul_block"));
}

TEST(InvariantRegistryTest, RanksAreDistinctAndOrderTheReproducerTarget) {
  std::set<int> ranks;
  for (const InvariantInfo& info : AllInvariants()) EXPECT_TRUE(ranks.insert(info.rank).second) << info.name;
  // From the most specific: a reproducer keeps the first of these that fired.
  const std::vector<std::string> order = {"null_block",   "op_null_dst",    "skip_agrees",  "null_owner_pad",
                                          "pad_marker",   "op_null_src",    "row_bounds",   "pad_exact",
                                          "padding_tail", "in_range",       "own_block",    "op_foreign_dst",
                                          "gathered_row", "live_state",     "state_writes", "unique_slots",
                                          "unique_state",
                                          "live_maps",    "differential",   "golden",       "no_fault",
                                          "null_bytes",   "write_set",      "null_read"};
  std::set<std::string> fired(order.begin(), order.end());
  for (const std::string& name : order) {
    EXPECT_EQ(name, MostSpecificInvariant(fired));
    fired.erase(name);
  }
  EXPECT_EQ("", MostSpecificInvariant({}));
}

}  // namespace
}  // namespace slotguard
