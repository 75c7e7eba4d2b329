// The counting behind the enumeration (prove/enumeration.h): how many
// request tuples, block-id strings and labelings a cell of a scope holds,
// and the k-th of each (unranking), so that any batch of a scope is built
// from its index alone: shards and workers need no list of the batches.
//
// Counts saturate at kSaturated (INT64_MAX): a scope that large is refused
// before it runs.
#ifndef SLOTGUARD_PROVE_COMBINATORICS_H_
#define SLOTGUARD_PROVE_COMBINATORICS_H_

#include <cstdint>
#include <limits>
#include <vector>

namespace slotguard {

constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max();

/// a + b and a * b for counts >= 0, saturating at kSaturated.
int64_t SatAdd(int64_t a, int64_t b);
int64_t SatMul(int64_t a, int64_t b);
/// C(n, r), saturating; 0 when r < 0 or r > n.
int64_t Binomial(int64_t n, int64_t r);
/// Multisets of size n over k symbols: C(k + n - 1, n) (1 for n == 0).
int64_t Multisets(int64_t k, int64_t n);

/// How the requests of a batch are ordered (docs/prove.md, "Reduction").
enum class TupleOrder : uint8_t {
  kSequence,   // every order: position by position, the last position's symbol from `last`
  kMultiset,   // one order per multiset: non-decreasing symbols (the requests are interchangeable)
  kLastApart,  // the last position apart (its symbol from `last`), the others a multiset
};

/// The tuples of n symbols from 0..k-1 in one TupleOrder, each `required`
/// mask held by some position (the last included): a mask marks the
/// symbols of a kind the batch must have one of (a live request, a real
/// block), where without one the batch would equal another of the scope.
/// Call Prepare() once the fields are set.
struct TupleSpace {
  int32_t n = 0;
  int32_t k = 0;
  std::vector<int32_t> last;  // the symbols the last position may hold (ascending); kMultiset: all k
  std::vector<std::vector<bool>> required;  // [mask][symbol]
  /// The masks as they hold for the last position, when it differs (a
  /// last request owns the tokens past qsl[R]); empty: `required`.
  std::vector<std::vector<bool>> required_last;
  TupleOrder order = TupleOrder::kSequence;

  void Prepare();
  int64_t Count() const;
  /// The tuple of rank `rank` (0 <= rank < Count()), position by position:
  /// out[n - 1] is the last request's symbol. Ranks follow lexicographic
  /// order (kLastApart: the last symbol first, then the others).
  void Unrank(int64_t rank, std::vector<int32_t>* out) const;

 private:
  /// The tuples of positions [i, n) (multisets: symbols >= lo) that hold
  /// every required mask not in `have` (a bit per mask).
  int64_t Completions(int32_t i, int32_t lo, uint32_t have) const;
  uint32_t Marks(int32_t symbol, bool at_last) const;
  // Per subset of the masks (a bit each): symbols >= lo in none of them, and
  // the last symbols in none of them.
  std::vector<std::vector<int32_t>> free_from_;
  std::vector<int64_t> last_free_;
};

/// The strings of length `length` over `nulls` null symbols and real block
/// labels that fill a table with --inconsistent. Canonical: up to renaming
/// the labels (each label's first occurrence comes before the next one's:
/// a restricted growth string with null symbols). Concrete (the full space,
/// before reduction): labels from a pool of `length` ids, every labeling.
/// Symbol s < nulls is null symbol s; s >= nulls is label s - nulls.
/// Strings with a label come first in rank order, then the all-null ones.
class StringSpace {
 public:
  StringSpace(int32_t length, int32_t nulls, bool canonical);
  int64_t WithLabel() const { return Ways(0, 0); }
  int64_t AllNull() const { return Power(nulls_, length_); }
  /// With `need_label`, only the strings that hold a label.
  int64_t Count(bool need_label) const { return need_label ? WithLabel() : SatAdd(WithLabel(), AllNull()); }
  void Unrank(int64_t rank, std::vector<int32_t>* out) const;

  static int64_t Power(int64_t base, int64_t exponent);

 private:
  /// Completions of positions [i, length) that hold a label, `used` labels
  /// used before i (canonical) or, concrete, `used` > 0 when one was.
  int64_t Ways(int32_t i, int32_t used) const;
  int32_t length_, nulls_;
  bool canonical_;
  std::vector<std::vector<int64_t>> all_;  // canonical: [position][labels used]: every completion
};

/// n! as a floating count (the "before reduction" figures), and the
/// permutation of rank `rank` of 0..n-1 (lexicographic).
long double Factorial(int64_t n);
void UnrankPermutation(int64_t n, int64_t rank, std::vector<int32_t>* out);

}  // namespace slotguard

#endif  // SLOTGUARD_PROVE_COMBINATORICS_H_
