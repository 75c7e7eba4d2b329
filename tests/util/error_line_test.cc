#include "util/error_line.h"

#include <gtest/gtest.h>

namespace slotguard {
namespace {

TEST(ErrorLineTest, OneLineWithThePrefix) {
  EXPECT_EQ("slotguard: error: --backend gpu: no device\n", ErrorLine("--backend gpu: no device"));
}

}  // namespace
}  // namespace slotguard
