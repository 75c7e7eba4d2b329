// The batches of a scope, each built from its index alone
// (docs/prove.md, "Enumeration order" and "Reduction").
//
// A scope's batches are ordered configuration by configuration (a family's
// parameter tuple and the groups it links), then by cell (the number of
// requests, padding, num_actual_tokens, slot_mapping_in, table mode, stale
// rows, width, block ids, layout: each in the scope's order), then by the
// requests' tuple (each request a symbol: tokens, context, state), then by
// the block-id content. The index of a batch is its place in that order, so
// `--shard I/N` and the campaign's workers build any batch without a list.
//
// With reduction (the default), a cell's requests are a multiset where
// their order cannot matter (the last one kept apart when
// num_actual_tokens is not qsl[R], every order in a permuted persistent
// table), and real block ids are named in order of first appearance. The
// full space (reduce = false: every request order, every labeling of the
// real blocks by the pool's ids) is what the reduction is tested against;
// its size is the scope's size before reduction.
#ifndef SLOTGUARD_PROVE_ENUMERATION_H_
#define SLOTGUARD_PROVE_ENUMERATION_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "prove/combinatorics.h"
#include "prove/scope.h"
#include "scenario/scenario.h"

namespace slotguard {

struct EnumerationOptions {
  std::vector<Family> families;  // each family's groups are a configuration's main group
  bool inconsistent = false;     // every batch, not only consistent ones (docs/families.md, "Engine states")
  bool reduce = true;            // false: the full space, before reduction
  bool int64_seq_lens = true;    // false: no seq_len past int32 (a provider that reads them as int32)
  bool dummy_runs = true;        // false: no dummy-run tables (an implementation cannot see batch.dummy_run)
  std::optional<TableLayoutKind> layout;  // --table-layout: the only layout
};

/// The most batches a full space (reduce = false) may have: it keeps a
/// count per request tuple.
constexpr int64_t kMaxFullSpace = 20000000;

/// One configuration: the groups of its batches, without tables.
struct ProveConfig {
  int32_t part = 0;            // of the scope
  std::vector<Group> groups;   // in run order: groups a later one links first
  size_t main = 0;             // the proven family's group
  std::string label;           // "qsa_compressed block_size=16 compress_ratio=4 common=paged"
  std::vector<int64_t> contexts;
  int64_t first = 0;           // its batches: indices [first, first + count)
  int64_t count = 0;
};

/// One request of a batch: a symbol of a cell's alphabet.
struct RequestSymbol {
  int32_t tokens = 0;
  int64_t context = 0;
  // Consistent: 0 live, else a dummy whose rows hold null entries of kind
  // state - 1 (a persistent table's dummy reads no row: one dummy state).
  // Inconsistent: 0 its idx_mapping names its row, 1 it is -1.
  // kLiveNullSources: live, the null block where its block operations read.
  int32_t state = 0;
};
constexpr int32_t kLiveNullSources = -1;

class Enumeration {
 public:
  /// Indexes the scope. False with *err when it holds no batch, or more
  /// than an int64 counts (or, full, more than kMaxFullSpace).
  bool Build(const Scope& scope, const EnumerationOptions& options, std::string* err);

  int64_t Count() const { return count_; }
  /// The size of the full space: every request order, every labeling of
  /// the real blocks. Exact below 2^64 (a long double past 2^64 keeps 64
  /// significant bits); < 0 when the counting budget ran out.
  long double CountBeforeReduction() const { return before_; }
  const std::vector<ProveConfig>& configs() const { return configs_; }
  const Scope& scope() const { return scope_; }
  const EnumerationOptions& options() const { return options_; }

  /// Batch `index` (0 <= index < Count()).
  Scenario At(int64_t index) const;
  /// The configuration that holds batch `index`.
  size_t ConfigOf(int64_t index) const;
  /// Batch `index` in words: its configuration, its requests and its
  /// cell's dimensions (what a reproducer says of the batch it shrank).
  std::string Describe(int64_t index) const;

 private:
  /// A cell: a configuration and one value of each batch-level dimension.
  struct Cell {
    int32_t config = 0;
    int32_t alphabet = 0;  // alphabets_
    int32_t requests = 0, padding = 0;
    int32_t width = 0;  // the scope's width, or -1 - a: as wide as the requests read plus a allocated ahead
    bool clamp_far = false;  // the tokens past qsl[R] at positions past int32 (ClampPositions)
    NumActual actual = NumActual::kRealTokens;
    SlotMappingIn slot_mapping_in = SlotMappingIn::kPad;
    TableMode mode = TableMode::kPerRequest;
    StaleRow stale = StaleRow::kNull;
    BlockIds ids = BlockIds::kSmall;
    TableLayoutKind layout = TableLayoutKind::kPadded;
    int64_t start = 0, count = 0;
    int64_t content = 1;  // per request tuple: block-id strings (--inconsistent)
    int32_t last_shape = -1;  // last_shapes_, when num_actual_tokens sets the last request apart
    int32_t input_pick = -1;  // the inputs' defaults, or every element the input_pick-th value of its list
  };
  /// The requests a cell's batches are made of, and what each holds.
  struct Alphabet {
    std::vector<RequestSymbol> symbols;
    std::vector<std::vector<int32_t>> columns;  // [symbol][group]: real entries of a live request's row
    std::vector<std::vector<int32_t>> blocks;   // [symbol][group]: the manager blocks they take
    std::vector<int32_t> widths;                // [group]: the table's width
    std::vector<bool> live;                     // [symbol]: live (consistent) or idx_mapping >= 0 (inconsistent)
    std::vector<bool> real;                     // [symbol]: live and holding a real block
  };
  /// A request's tokens and context: the columns each group's selected
  /// tokens address (the farthest + 1).
  struct Span {
    int32_t tokens = 0;
    int64_t context = 0;
    std::vector<int64_t> needed;  // [group]
  };

  /// A cell's symbols as the last request (num_actual_tokens other than
  /// qsl[R]): an owner rule may give it the tokens past qsl[R], and so more
  /// blocks.
  struct LastShape {
    std::vector<std::vector<int32_t>> blocks;  // [symbol][group]
    std::vector<bool> real;                    // [symbol]
  };
  int32_t LastShapeFor(const Cell& cell);  // builds it; -1 when the last request is not apart
  const LastShape& LastOf(const Cell& cell) const { return last_shapes_[static_cast<size_t>(cell.last_shape)]; }

  /// The configurations of `family` in the scope's part `part`.
  bool AddFamily(size_t part, Family family, std::string* err);
  bool AddConfig(ProveConfig config, std::string* err);
  int32_t AlphabetFor(size_t config, TableMode mode, int32_t width);
  TupleSpace TuplesOf(const Cell& cell, bool reduced) const;
  int64_t ContentOf(const Cell& cell, bool reduced) const;
  std::vector<int32_t> NullSymbols(const Cell& cell, const Group& g) const;
  int32_t Rows(const Cell& cell) const {
    return cell.requests +
           (cell.mode == TableMode::kPerRequest || cell.mode == TableMode::kPersistentExact ? 0 : 1);
  }
  /// Stale rows of fresh blocks: their manager blocks per group, per stale row.
  bool FreshStale(const Cell& cell) const;
  /// Whether a row no live request reads holds fresh blocks in group g's
  /// table (a dummy run's rows only where no output reads a dummy's row).
  bool FreshIn(const Cell& cell, const Group& g) const;
  /// The places of the inputs' shape lists a configuration's cells sweep:
  /// the longest list of any element of its batches (0 without inputs).
  int32_t InputPicks(const ProveConfig& config) const;
  long double BeforeOf(const Cell& cell) const;
  /// The batch of a cell's request tuple and content rank (inconsistent:
  /// the block-id strings; full consistent: the labeling; else unused).
  /// With labels, each group's number of real blocks.
  size_t CellOf(int64_t index) const;
  /// The cell of batch `index`, its request tuple and content rank.
  void Locate(int64_t index, size_t* cell, std::vector<int32_t>* tuple, int64_t* content) const;
  Scenario Make(const Cell& cell, const std::vector<int32_t>& tuple, int64_t content,
                std::vector<int64_t>* labels = nullptr) const;

  Scope scope_;
  EnumerationOptions options_;
  std::vector<ProveConfig> configs_;
  std::vector<std::vector<Span>> spans_;  // [config]
  std::vector<Cell> cells_;
  std::vector<Alphabet> alphabets_;
  std::map<std::vector<int64_t>, int32_t> alphabet_index_;  // (config, per request / persistent / dummy run, width)
  std::vector<LastShape> last_shapes_;
  std::map<std::vector<int64_t>, int32_t> last_shape_index_;  // (alphabet, padding, num_actual)
  // Full consistent spaces: per cell, the first index of each request tuple.
  std::vector<std::vector<int64_t>> tuple_starts_;
  int64_t count_ = 0;
  long double before_ = 0;
  mutable int64_t before_work_ = 0;  // steps of BeforeOf's DP so far (kBeforeBudget over the scope)
};

}  // namespace slotguard

#endif  // SLOTGUARD_PROVE_ENUMERATION_H_
