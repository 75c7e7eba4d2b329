#include "util/did_you_mean.h"

#include <gtest/gtest.h>

namespace slotguard {
namespace {

TEST(DidYouMeanTest, SuggestsCloseNames) {
  EXPECT_EQ(", did you mean 'positions'?", DidYouMean("postions", {"seq_lens", "positions"}));
  EXPECT_EQ("paged", ClosestMatch("pagd", {"paged", "kpool_tail"}));
}

TEST(DidYouMeanTest, StaysQuietForUnrelatedNames) {
  EXPECT_EQ("", DidYouMean("zzzzzz", {"paged", "kpool_tail"}));
  EXPECT_EQ("", ClosestMatch("x", {}));
}

TEST(DidYouMeanTest, JoinsNames) {
  EXPECT_EQ("a, b, c", JoinNames({"a", "b", "c"}));
  EXPECT_EQ("", JoinNames({}));
}

}  // namespace
}  // namespace slotguard
