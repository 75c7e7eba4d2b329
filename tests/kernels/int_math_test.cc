// FastDivisor must divide exactly like C++ integer division.
#include "kernels/int_math.h"

#include <gtest/gtest.h>

#include <random>

namespace slotguard {
namespace {

void ExpectExact(int64_t a, int64_t d) {
  int64_t q, r;
  DivMod(a, MakeFastDivisor(d), &q, &r);
  ASSERT_EQ(a / d, q) << a << " / " << d;
  ASSERT_EQ(a % d, r) << a << " % " << d;
}

TEST(FastDivisorTest, SmallDivisorsAllEdges) {
  for (int64_t d = 1; d <= 2048; ++d)
    for (int64_t a : {int64_t{0}, int64_t{1}, d - 1, d, d + 1, 2 * d - 1, 2 * d, d * d,
                      int64_t{0x7fffffff}, int64_t{0x7fffffff} - d, int64_t{0x7ffffffe}})
      ExpectExact(a, d);
}

TEST(FastDivisorTest, RandomDivisorsAndDividends) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const int64_t d = 1 + static_cast<int64_t>(rng() % 0x7fffffff);
    ExpectExact(static_cast<int64_t>(rng() % 0x80000000), d);
    ExpectExact(static_cast<int64_t>(rng() % (4 * d)), d);
  }
}

TEST(FastDivisorTest, PowersOfTwoAndLargeDivisors) {
  for (int s = 0; s < 31; ++s)
    for (int64_t a : {int64_t{0}, int64_t{12345}, int64_t{0x7fffffff}}) ExpectExact(a, int64_t{1} << s);
  for (int64_t d : {int64_t{0x7fffffff}, int64_t{0x40000001}, int64_t{0x7ffffffe}})
    for (int64_t a : {int64_t{0}, d - 1, d, int64_t{0x7fffffff}}) ExpectExact(a, d);
}

TEST(FastDivisorTest, DividendsPastInt32TakeTheWidePath) {
  ExpectExact(int64_t{1} << 40, 7);
  ExpectExact(-17, 5);  // C++ truncation toward zero
  ExpectExact((int64_t{1} << 62) + 3, 0x7fffffff);
}

}  // namespace
}  // namespace slotguard
