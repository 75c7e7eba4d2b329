// A scope (docs/prove.md): the bounds of a bounded proof, as data. Each
// field is one dimension of the batches `slotguard prove` enumerates; the
// enumeration (prove/enumeration.h) takes every combination of them, with
// the family-specific values (parameters, context boundaries, block ids at
// the arithmetic boundary) derived from each family's description
// (prove/boundaries.h). Plain data: the loader (prove/scope_file.h) fills
// it, from a preset (scopes/*.json, compiled in) or a user's file.
#ifndef SLOTGUARD_PROVE_SCOPE_H_
#define SLOTGUARD_PROVE_SCOPE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace slotguard {

/// The format version of a scope file ("slotguard_scope": 1).
constexpr int kScopeFormatVersion = 1;

/// num_actual_tokens of a batch.
enum class NumActual : uint8_t {
  kRealTokens,  // qsl[R]
  kNumTokens,   // N: the padding tokens too (only with padding)
  kBeforeLast,  // qsl[R] - 1: the last request's last token is past it (its last request has a token)
  kInside,      // qsl[R] + 1, strictly inside (qsl[R], num_tokens): with 2 padding tokens or more
};
/// slot_mapping_in of a batch.
enum class SlotMappingIn : uint8_t {
  kPad,           // every token -1
  kRecognisable,  // token t holds 1000000 + t
};
/// A null entry: what a dummy request's row, a stale row and (with
/// --inconsistent) any entry may hold that names no block.
enum class NullEntry : uint8_t {
  kZero,      // 0, the null block
  kMinusOne,  // -1, no block
  kHybrid,    // a hybrid group's other kernel blocks of manager block 0 (ids 1 .. bpk-1)
};
/// Whose row a request reads.
enum class TableMode : uint8_t {
  kPerRequest,          // row r is request r's (batch.table_rows "request")
  kPersistent,          // a persistent table: live request r reads row r, a spare stale row after them
  kPersistentPermuted,  // a persistent table: the live requests read the rows in reverse order
  kPersistentExact,     // a persistent table of exactly R rows: live request r reads row r, no spare row
  kPersistentRotated,   // a persistent table: live request i reads row i + 1, the last one row 0
  kDummyRun,            // a dummy run (batch.dummy_run): every request a dummy, idx_mapping arange,
                        // positions 0, a spare row; rows of zeros, or (stale rows other than null and
                        // minus_one) a finished request's blocks (family/shape_lists.h, DummyRunRowsOf)
};
/// What a persistent table's rows that no live request reads hold.
enum class StaleRow : uint8_t {
  kNull,      // zeros
  kMinusOne,  // -1 everywhere
  kFresh,     // real blocks no live request holds
  kReused,    // the blocks of a live request (freed and handed out again)
  kMixed,     // two live requests' blocks, column by column in turn (a row freed and refilled in parts)
};
/// Where a group's real block ids lie (prove/boundaries.h). Renaming
/// keeps a batch's ids in their class: only equality, nullness and the
/// class matter.
enum class BlockIds : uint8_t {
  kSmall,       // 1, 2, 3, ...
  kBelowInt32,  // the last manager blocks whose every slot fits int32
  kPastInt32,   // the first manager blocks whose first slot is 2^31 or more (page 1: the largest ids)
};
/// The values a family parameter takes (prove/boundaries.h).
enum class ParamClass : uint8_t {
  kMin,       // the description's min
  kNext,      // min + 1
  kExample,   // its example
  kDefault,   // its default (a formula over the earlier parameters)
  kMax,       // its max, when the description gives one
  kDivisors,  // for a parameter that must divide another: every divisor of that one's value
  kTiles,     // for each tile T of the scope: T (divides it) and T + 1 (does not)
  kBeside,          // beside its boundaries: example - 1, example + 1, max - 1
  kNonPowerOfTwo,   // the smallest value in range that is not a power of two
  kLarge,           // the smallest large value in range (2^20: a position of 2^31 selects column 2048)
};
/// What reaches past int32 (family/shape_lists.h).
enum class PastInt32 : uint8_t {
  kContexts,     // a context at 2^31 + each boundary offset, for a group whose columns there fit a row
  kClampTokens,  // cells whose tokens past qsl[R] hold positions past int32 (2^31, 2^32 + 1, ...)
};
/// What a family's extra inputs (docs/family-format.md, "Inputs") hold.
enum class InputMode : uint8_t {
  kDefaults,  // no batch.inputs: every element its description's default
  kSweep,     // one cell per place p of the shape list (InputValueList): every element of every input
              // the p-th value of its own list (its last where the list is shorter)
};

/// Whether a family's link to another group (a group parameter) is there.
enum class LinkMode : uint8_t { kPresent, kAbsent };

/// One product of dimensions. A scope is one part or several (a union:
/// few requests with many shapes each, and many requests with few).
struct ScopePart {
  std::vector<int32_t> requests;          // requests per batch
  std::vector<int32_t> tokens;            // tokens per request
  std::vector<int32_t> padding;           // padding tokens after the real ones
  std::vector<int64_t> contexts;          // context lengths (tokens before this step's)
  std::vector<int64_t> boundary_offsets;  // context b + o for every boundary b of the groups' formulas
  std::vector<int32_t> widths;            // block-table widths (columns) of groups with a range rule
  std::vector<NumActual> num_actual;
  std::vector<SlotMappingIn> slot_mapping_in;
  std::vector<NullEntry> null_entries;
  std::vector<TableMode> tables;
  std::vector<StaleRow> stale_rows;
  std::vector<BlockIds> block_ids;
  std::vector<TableLayoutKind> layouts;
  std::vector<ParamClass> params;
  std::vector<int64_t> tiles;
  std::vector<LinkMode> links;
  // Rows as wide as the columns the requests read plus `a` columns, live
  // rows holding real blocks in those (allocated ahead of the tokens): one
  // cell per value a (none: only the widths above).
  std::vector<int32_t> ahead;
  std::vector<int32_t> fresh_prefills;  // a request of k * block + 1 tokens at context 0, per k
  std::vector<PastInt32> past_int32;
  std::vector<InputMode> inputs;          // only a family with inputs has more than the defaults' cell
};

struct Scope {
  std::string name;     // "small", or the file's name
  std::string file;     // where it was read: a path, or "scopes/small.json (built in)"
  std::string meaning;
  std::vector<ScopePart> parts;  // at least one
};

/// The names files use, in enum order.
const std::vector<std::string>& NumActualNames();
const std::vector<std::string>& SlotMappingInNames();
const std::vector<std::string>& NullEntryNames();
const std::vector<std::string>& TableModeNames();
const std::vector<std::string>& StaleRowNames();
const std::vector<std::string>& BlockIdsNames();
const std::vector<std::string>& ParamClassNames();
const std::vector<std::string>& LinkModeNames();
const std::vector<std::string>& PastInt32Names();
const std::vector<std::string>& InputModeNames();

}  // namespace slotguard

#endif  // SLOTGUARD_PROVE_SCOPE_H_
