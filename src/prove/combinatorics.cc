#include "prove/combinatorics.h"

#include <algorithm>

namespace slotguard {

int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? kSaturated : r;
}

int64_t SatMul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? kSaturated : r;
}

int64_t Binomial(int64_t n, int64_t r) {
  if (r < 0 || n < 0 || r > n) return 0;
  r = std::min(r, n - r);
  // C(n, i + 1) = C(n, i) * (n - i) / (i + 1): exact at every step, and
  // growing while i < n / 2, so the first value past int64 saturates the end.
  unsigned __int128 c = 1;
  for (int64_t i = 0; i < r; ++i) {
    c = c * static_cast<unsigned __int128>(n - i) / static_cast<unsigned __int128>(i + 1);
    if (c > static_cast<unsigned __int128>(kSaturated)) return kSaturated;
  }
  return static_cast<int64_t>(c);
}

int64_t Multisets(int64_t k, int64_t n) {
  if (n == 0) return 1;
  if (k <= 0) return 0;
  return Binomial(k + n - 1, n);
}

void TupleSpace::Prepare() {
  const uint32_t subsets = 1u << required.size();
  free_from_.assign(subsets, std::vector<int32_t>(static_cast<size_t>(k) + 1, 0));
  last_free_.assign(subsets, 0);
  for (uint32_t t = 0; t < subsets; ++t) {
    auto in_union = [&](int32_t v, bool at_last) {
      return (Marks(v, at_last) & t) != 0;
    };
    for (int32_t v = k - 1; v >= 0; --v)
      free_from_[t][static_cast<size_t>(v)] = free_from_[t][static_cast<size_t>(v) + 1] + (in_union(v, false) ? 0 : 1);
    for (int32_t v : last) last_free_[t] += in_union(v, true) ? 0 : 1;
  }
}

uint32_t TupleSpace::Marks(int32_t symbol, bool at_last) const {
  const std::vector<std::vector<bool>>& masks = at_last && !required_last.empty() ? required_last : required;
  uint32_t bits = 0;
  for (size_t m = 0; m < masks.size(); ++m)
    if (masks[m][static_cast<size_t>(symbol)]) bits |= 1u << m;
  return bits;
}

int64_t TupleSpace::Completions(int32_t i, int32_t lo, uint32_t have) const {
  // Inclusion-exclusion over the masks still missing: the tuples avoiding
  // every mask of T, added or taken away by the parity of T.
  const uint32_t all = (1u << required.size()) - 1;
  const uint32_t missing = all & ~have;
  const bool multiset = order != TupleOrder::kSequence;
  // kLastApart: the last symbol was chosen first; positions [i, n - 1) are a multiset.
  const int32_t end = order == TupleOrder::kLastApart ? n - 1 : n;
  int64_t plus = 0, minus = 0;
  for (uint32_t t = missing;; t = (t - 1) & missing) {
    int64_t ways;
    if (multiset) {
      ways = Multisets(free_from_[t][static_cast<size_t>(lo)], end - i);
    } else {
      ways = 1;
      for (int32_t p = i; p < n; ++p)
        ways = SatMul(ways, p == n - 1 ? last_free_[t] : free_from_[t][0]);
    }
    if (__builtin_popcount(t) % 2 == 0)
      plus = SatAdd(plus, ways);
    else
      minus = SatAdd(minus, ways);
    if (t == 0) break;
  }
  if (plus == kSaturated || minus == kSaturated) return kSaturated;
  return plus - minus;
}

int64_t TupleSpace::Count() const {
  if (order != TupleOrder::kLastApart) return Completions(0, 0, 0);
  if (n == 0) return required.empty() ? 1 : 0;
  int64_t total = 0;
  for (int32_t v : last) total = SatAdd(total, Completions(0, 0, Marks(v, true)));
  return total;
}

void TupleSpace::Unrank(int64_t rank, std::vector<int32_t>* out) const {
  out->assign(static_cast<size_t>(n), 0);
  uint32_t have = 0;
  int32_t end = n;
  if (order == TupleOrder::kLastApart) {
    if (n == 0) return;
    for (int32_t v : last) {
      const int64_t ways = Completions(0, 0, Marks(v, true));
      if (rank < ways) {
        (*out)[static_cast<size_t>(n - 1)] = v;
        have = Marks(v, true);
        break;
      }
      rank -= ways;
    }
    end = n - 1;
  }
  int32_t lo = 0;
  for (int32_t i = 0; i < end; ++i) {
    const bool is_last = order == TupleOrder::kSequence && i == n - 1;
    const int32_t choices = is_last ? static_cast<int32_t>(last.size()) : k;
    for (int32_t c = order == TupleOrder::kSequence ? 0 : lo; c < choices; ++c) {
      const int32_t v = is_last ? last[static_cast<size_t>(c)] : c;
      const uint32_t now = have | Marks(v, is_last);
      const int64_t ways = Completions(i + 1, order == TupleOrder::kSequence ? 0 : v, now);
      if (rank < ways) {
        (*out)[static_cast<size_t>(i)] = v;
        have = now;
        lo = v;
        break;
      }
      rank -= ways;
    }
  }
}

int64_t StringSpace::Power(int64_t base, int64_t exponent) {
  int64_t p = 1;
  for (int64_t i = 0; i < exponent; ++i) p = SatMul(p, base);
  return p;
}

StringSpace::StringSpace(int32_t length, int32_t nulls, bool canonical)
    : length_(length), nulls_(nulls), canonical_(canonical) {
  if (!canonical) return;
  // all_[i][j]: every completion of positions i.. with j labels used before i.
  const size_t n = static_cast<size_t>(length);
  all_.assign(n + 1, std::vector<int64_t>(n + 2, 1));
  for (size_t i = n; i-- > 0;)
    for (size_t j = 0; j <= i; ++j)
      all_[i][j] = SatAdd(SatMul(nulls + static_cast<int64_t>(j), all_[i + 1][j]), all_[i + 1][j + 1]);
}

int64_t StringSpace::Ways(int32_t i, int32_t used) const {
  const int64_t rest = length_ - i;
  const int64_t every = canonical_ ? all_[static_cast<size_t>(i)][static_cast<size_t>(used)]
                                   : Power(nulls_ + length_, rest);
  if (used > 0) return every;
  const int64_t none = Power(nulls_, rest);
  return every == kSaturated ? kSaturated : every - none;
}

void StringSpace::Unrank(int64_t rank, std::vector<int32_t>* out) const {
  out->assign(static_cast<size_t>(length_), 0);
  const int64_t with = WithLabel();
  if (rank >= with) {  // an all-null string: base-nulls digits, the first most significant
    rank -= with;
    for (int32_t i = length_ - 1; i >= 0; --i) {
      (*out)[static_cast<size_t>(i)] = static_cast<int32_t>(rank % nulls_);
      rank /= nulls_;
    }
    return;
  }
  int32_t used = 0;
  for (int32_t i = 0; i < length_; ++i) {
    // Canonical: a null symbol, a label used before, or the next label.
    // Concrete: a null symbol or any of the pool's ids.
    const int32_t symbols = canonical_ ? nulls_ + used + 1 : nulls_ + length_;
    for (int32_t s = 0; s < symbols; ++s) {
      const bool label = s >= nulls_;
      const int32_t next_used = canonical_ ? used + (s == nulls_ + used ? 1 : 0) : (used || label ? 1 : 0);
      const int64_t ways = Ways(i + 1, next_used);
      if (rank < ways) {
        (*out)[static_cast<size_t>(i)] = s;
        used = next_used;
        break;
      }
      rank -= ways;
    }
  }
}

long double Factorial(int64_t n) {
  long double f = 1;
  for (int64_t i = 2; i <= n; ++i) f *= static_cast<long double>(i);
  return f;
}

void UnrankPermutation(int64_t n, int64_t rank, std::vector<int32_t>* out) {
  std::vector<int32_t> left(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) left[static_cast<size_t>(i)] = static_cast<int32_t>(i);
  out->clear();
  std::vector<int64_t> radix(static_cast<size_t>(n), 0);  // the factorial base digits
  for (int64_t i = 1; i <= n; ++i) {
    radix[static_cast<size_t>(n - i)] = rank % i;
    rank /= i;
  }
  for (int64_t i = 0; i < n; ++i) {
    const size_t at = static_cast<size_t>(radix[static_cast<size_t>(i)]);
    out->push_back(left[at]);
    left.erase(left.begin() + static_cast<std::ptrdiff_t>(at));
  }
}

}  // namespace slotguard
