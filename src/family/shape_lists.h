// A group's shape lists: the values each dimension of a batch draws from,
// derived from the family's description through its model (group_model.h),
// never from knowledge of a family. The one model of a family's valid
// shapes: the fuzzer's generator (fuzzing/generators.cc) samples these
// lists, and the prover's enumeration (prove/enumeration.cc,
// prove/boundaries.cc) takes the values its scope's classes name from
// them (docs/prove.md, "The shape lists"; docs/fuzzing.md).
#ifndef SLOTGUARD_FAMILY_SHAPE_LISTS_H_
#define SLOTGUARD_FAMILY_SHAPE_LISTS_H_

#include <cstdint>
#include <vector>

#include "scenario/scenario.h"

namespace slotguard {

/// Where a parameter's listed value comes from (a scope's parameter classes
/// name them, prove/scope.h).
enum class ParamSource : uint8_t {
  kMin,             // the description's min
  kNext,            // min + 1
  kExample,         // its example
  kDefault,         // its default (a formula over the earlier parameters)
  kMax,             // its max, where the description gives a finite one
  kDivisor,         // for a parameter that must divide another: a divisor of that one's value
  kBoundary,        // one beside a boundary: example - 1, example + 1, max - 1
  kNonPowerOfTwo,   // the smallest value in range that is not a power of two (3, or above min)
  kLarge,           // a large value: a page that lets a position past int32 still select a column
  kEngineSize,      // sizes engines launch with and beside them: 2 to 8, 16, 17, 64, 100, 128, 129, ..., 1025
};

struct ParamValue {
  int64_t value;
  ParamSource source;
};

/// Every listed value of integer parameter `p` of `group`, given the
/// earlier parameters (a max, a default or a divisor reads them), in range
/// (min to max; values <= 1 kept), a value once per source (a value may
/// come from several: min 1 and divisor 1), in ParamSource order. A bool
/// parameter lists 0 and 1 as kMin and kNext.
std::vector<ParamValue> ParamValues(const Group& group, size_t p);

/// The values input `k` of the group's family lists for one element (a
/// request, or a token of request `r`): its min, min + 1, the element's
/// default `default_value`, its max (where the description gives a finite
/// one), and, for an element of a request of `q` tokens, every value from min
/// through q + 1 (what a comparison with q or i crosses); in range, each once.
std::vector<int64_t> InputValueList(const Group& group, size_t k, int64_t default_value, int64_t q);

/// The values an owner input (docs/family-format.md, "owner") lists for one
/// token of a batch of `num_reqs` requests: its default (the token's
/// query_start_loc request, -1 for none), -1 (no request: a padded entry),
/// the first, last and neighbouring requests (another request's token),
/// num_reqs and num_reqs + 1 (past the requests), and the input's min and
/// max (where finite); in the input's range, each once.
std::vector<int64_t> OwnerValueList(const Group& group, size_t k, int64_t default_value, int32_t num_reqs);

/// The list element `e` of input `k` draws from in `batch`: OwnerValueList
/// for the group's owner input, else InputValueList around the tokens of
/// the element's request (`r`: the element itself for a per-request input,
/// its token's owner for a per-token one; -1: no request, q 0). The
/// generator and the prover's sweep both take their values from it.
std::vector<int64_t> ElementValueList(const Group& group, size_t k, int64_t default_value, const Batch& batch,
                                      int32_t r);

/// The group's formula boundaries: every divisor and modulus fixed for the
/// group (GroupDivisors) and every comparison threshold (GroupModel's
/// Thresholds), ascending, each once, up to kMaxPosition; from 2, or from 1
/// for a group whose every divisor is 1: its block of 1 token keeps its
/// boundary 1, so context 1 meets it.
std::vector<int64_t> FormulaBoundaries(const Group& group);

/// The first position past int32 (2^31): a context there is listed (as a
/// formula boundary) only for a group whose columns at that position fit a
/// row the prover lays out (a large page: kLarge), or whose range rule pads
/// past its rows, and only for a provider that reads seq_lens as int64.
constexpr int64_t kPastInt32Position = int64_t{1} << 31;
/// Whether `group` meets a seq_len past int32 (above): the columns it reads
/// at 2^31 fit `max_width` columns.
bool MeetsPastInt32(const Group& group, int64_t max_width);

/// The query lengths of a fresh prefill (context 0) longer than one block:
/// the group's manager page + 1 (a request spanning two blocks from its
/// first token), when at most `max_tokens`.
std::vector<int32_t> FreshPrefillTokens(const Group& group, int32_t max_tokens);

/// Positions past int32 that a token past the real ones (a clamp token:
/// past qsl[R], before num_tokens) may hold: 2^31 and 2^32 + 1.
const std::vector<int64_t>& ClampPositions();

/// What the persistent rows of a dummy run (batch.dummy_run: idx_mapping
/// arange, every request a dummy, the rows not refilled) may hold.
enum class DummyRunRows : uint8_t {
  kZero,   // zeros: the engine's persistent table before its first real request
  kStale,  // a finished request's blocks, left there
};
/// The dummy-run rows listed for `group`: zeros always; stale rows only
/// where no output reads a dummy's row (one that does would write them, and
/// its description with it).
std::vector<DummyRunRows> DummyRunRowsOf(const Group& group);

/// The columns past what its tokens read that a live row holds real blocks
/// in (blocks allocated ahead of the tokens): a kernel that reads one
/// column too far then reads a real block, not a null entry or the row's end.
constexpr int32_t kAheadColumns = 1;

}  // namespace slotguard

#endif  // SLOTGUARD_FAMILY_SHAPE_LISTS_H_
