#include "util/parallel_for.h"

#include <atomic>
#include <new>

#include <gtest/gtest.h>

namespace slotguard {
namespace {

TEST(ParallelForTest, RunsEveryItemOnce) {
  std::vector<std::atomic<int>> seen(1000);
  ParallelFor(seen.size(), 4, [&](size_t i) { ++seen[i]; });
  for (const std::atomic<int>& s : seen) EXPECT_EQ(1, s.load());
}

// A std::bad_alloc in one thread (a -j N check running out of memory) is
// rethrown to the caller after every thread joined, instead of
// std::terminate.
TEST(ParallelForTest, AnExceptionInAThreadReachesTheCaller) {
  std::atomic<int> ran{0};
  EXPECT_THROW(ParallelFor(100000, 4,
                           [&](size_t i) {
                             ++ran;
                             if (i == 37) throw std::bad_alloc();
                           }),
               std::bad_alloc);
  EXPECT_GE(ran.load(), 1);
}

}  // namespace
}  // namespace slotguard
