// The counting behind prove's enumeration against brute force: every tuple
// space and string space a cell may have (small alphabets, masks, the last
// position apart) counts exactly the tuples a plain loop finds, and its
// unranking lists each of them once, in order.
#include "prove/combinatorics.h"

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

#include <gtest/gtest.h>

namespace slotguard {
namespace {

TEST(CombinatoricsTest, BinomialsAndMultisetsByHand) {
  EXPECT_EQ(10, Binomial(5, 2));
  EXPECT_EQ(1, Binomial(7, 0));
  EXPECT_EQ(0, Binomial(3, 4));
  // Multisets of 2 of 6 symbols: C(7, 2) = 21 (the tiny scope's two-request cell).
  EXPECT_EQ(21, Multisets(6, 2));
  EXPECT_EQ(1, Multisets(0, 0));
  EXPECT_EQ(0, Multisets(0, 1));
  // C(100, 50) is about 1.0e29: past int64.
  EXPECT_EQ(kSaturated, Binomial(100, 50));
  EXPECT_EQ(kSaturated, SatMul(kSaturated / 2 + 1, 2));
}

/// Every tuple of n symbols of k the space should hold, by a plain loop.
std::vector<std::vector<int32_t>> BruteForce(const TupleSpace& s) {
  std::vector<std::vector<int32_t>> out;
  std::vector<int32_t> t(static_cast<size_t>(s.n), 0);
  std::function<void(int32_t)> fill = [&](int32_t i) {
    if (i == s.n) {
      if (s.n > 0 && s.order != TupleOrder::kMultiset &&
          std::find(s.last.begin(), s.last.end(), t.back()) == s.last.end())
        return;
      const int32_t sorted_end = s.order == TupleOrder::kLastApart ? s.n - 1 : s.n;
      if (s.order != TupleOrder::kSequence && !std::is_sorted(t.begin(), t.begin() + std::max(sorted_end, 0))) return;
      for (size_t m = 0; m < s.required.size(); ++m) {
        bool held = false;
        for (int32_t p = 0; p < s.n; ++p) {
          const bool at_last = p == s.n - 1 && !s.required_last.empty();
          held |= (at_last ? s.required_last : s.required)[m][static_cast<size_t>(t[static_cast<size_t>(p)])];
        }
        if (!held) return;
      }
      out.push_back(t);
      return;
    }
    for (int32_t v = 0; v < s.k; ++v) {
      t[static_cast<size_t>(i)] = v;
      fill(i + 1);
    }
  };
  fill(0);
  return out;
}

TEST(CombinatoricsTest, TupleSpacesCountAndUnrankWhatBruteForceFinds) {
  int spaces = 0;
  for (TupleOrder order : {TupleOrder::kSequence, TupleOrder::kMultiset, TupleOrder::kLastApart})
    for (int32_t n = 0; n <= 3; ++n)
      for (int32_t k = 1; k <= 4; ++k)
        for (int masks = 0; masks <= 2; ++masks)
          for (int last_kind = 0; last_kind < 2; ++last_kind) {
            TupleSpace s;
            s.n = n;
            s.k = k;
            s.order = order;
            for (int32_t v = 0; v < k; ++v)
              if (order == TupleOrder::kMultiset || last_kind == 0 || v % 2 == 1) s.last.push_back(v);
            // Mask 0: the even symbols; mask 1: symbol k - 1 (at the last
            // position: symbol 0 too, as a last request that owns the tail
            // holds more).
            for (int m = 0; m < masks; ++m) {
              std::vector<bool> mask(static_cast<size_t>(k)), last(static_cast<size_t>(k));
              for (int32_t v = 0; v < k; ++v) {
                mask[static_cast<size_t>(v)] = m == 0 ? v % 2 == 0 : v == k - 1;
                last[static_cast<size_t>(v)] = mask[static_cast<size_t>(v)] || (m == 1 && v == 0);
              }
              s.required.push_back(mask);
              if (order != TupleOrder::kMultiset) s.required_last.push_back(last);
            }
            s.Prepare();
            const std::vector<std::vector<int32_t>> expected = BruteForce(s);
            ASSERT_EQ(static_cast<int64_t>(expected.size()), s.Count())
                << "order " << static_cast<int>(order) << " n " << n << " k " << k << " masks " << masks;
            std::set<std::vector<int32_t>> seen;
            for (int64_t r = 0; r < s.Count(); ++r) {
              std::vector<int32_t> t;
              s.Unrank(r, &t);
              EXPECT_TRUE(std::find(expected.begin(), expected.end(), t) != expected.end());
              EXPECT_TRUE(seen.insert(t).second) << "rank " << r << " repeats a tuple";
            }
            ++spaces;
          }
  EXPECT_EQ(3 * 4 * 4 * 3 * 2, spaces);
}

/// A string of null symbols and labels is canonical when each label first
/// appears after every smaller one.
bool Canonical(const std::vector<int32_t>& s, int32_t nulls) {
  int32_t next = 0;
  for (int32_t x : s) {
    if (x < nulls) continue;
    if (x - nulls > next) return false;
    if (x - nulls == next) ++next;
  }
  return true;
}

TEST(CombinatoricsTest, StringSpacesCountAndUnrankWhatBruteForceFinds) {
  for (bool canonical : {true, false})
    for (int32_t length = 0; length <= 4; ++length)
      for (int32_t nulls = 0; nulls <= 2; ++nulls) {
        const StringSpace space(length, nulls, canonical);
        // Brute force: every string over nulls + length symbols.
        const int32_t symbols = nulls + length;
        std::vector<std::vector<int32_t>> with, without;
        std::vector<int32_t> s(static_cast<size_t>(length), 0);
        std::function<void(int32_t)> fill = [&](int32_t i) {
          if (i == length) {
            if (canonical && !Canonical(s, nulls)) return;
            const bool labelled = std::any_of(s.begin(), s.end(), [&](int32_t x) { return x >= nulls; });
            (labelled ? with : without).push_back(s);
            return;
          }
          for (int32_t v = 0; v < symbols; ++v) {
            s[static_cast<size_t>(i)] = v;
            fill(i + 1);
          }
        };
        fill(0);
        ASSERT_EQ(static_cast<int64_t>(with.size()), space.WithLabel()) << canonical << " " << length << " " << nulls;
        ASSERT_EQ(static_cast<int64_t>(without.size()), space.AllNull());
        for (int64_t r = 0; r < space.Count(false); ++r) {
          std::vector<int32_t> got;
          space.Unrank(r, &got);
          // Those with a label first, then the all-null ones, each once.
          const std::vector<std::vector<int32_t>>& part = r < space.WithLabel() ? with : without;
          EXPECT_TRUE(std::find(part.begin(), part.end(), got) != part.end()) << "rank " << r;
          if (r > 0) {
            std::vector<int32_t> before;
            space.Unrank(r - 1, &before);
            EXPECT_NE(before, got);
          }
        }
      }
  // By hand: strings of 2 entries over one null symbol up to renaming:
  // [n n], [n a], [a n], [a a], [a b] -> 4 with a label, 1 without.
  EXPECT_EQ(4, StringSpace(2, 1, true).WithLabel());
  EXPECT_EQ(1, StringSpace(2, 1, true).AllNull());
  // Concrete over a pool of 2 ids: 3^2 = 9 strings, 8 with an id.
  EXPECT_EQ(8, StringSpace(2, 1, false).WithLabel());
}

TEST(CombinatoricsTest, PermutationsUnrankLexicographically) {
  std::vector<int32_t> p;
  UnrankPermutation(3, 0, &p);
  EXPECT_EQ((std::vector<int32_t>{0, 1, 2}), p);
  UnrankPermutation(3, 1, &p);
  EXPECT_EQ((std::vector<int32_t>{0, 2, 1}), p);
  UnrankPermutation(3, 5, &p);
  EXPECT_EQ((std::vector<int32_t>{2, 1, 0}), p);
  std::set<std::vector<int32_t>> all;
  for (int64_t r = 0; r < 24; ++r) {
    UnrankPermutation(4, r, &p);
    all.insert(p);
  }
  EXPECT_EQ(24u, all.size());
  EXPECT_EQ(24.0L, Factorial(4));
}

}  // namespace
}  // namespace slotguard
