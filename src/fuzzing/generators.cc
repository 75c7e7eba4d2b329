#include "fuzzing/generators.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>

#include "family/family_plan.h"
#include "family/request_plan.h"
#include "registry/families.h"
#include "family/group_model.h"
#include "family/shape_lists.h"

namespace slotguard {

RandomChoices::RandomChoices(uint64_t seed) {
  for (uint64_t& word : state_) {  // splitmix64
    uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    word = z ^ (z >> 31);
  }
}

uint64_t RandomChoices::Next() {  // xoshiro256**
  auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
  const uint64_t result = rotl(state_[1] * 5, 7) * 9;
  const uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotl(state_[3], 45);
  return result;
}

int64_t RandomChoices::Range(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  return lo + static_cast<int64_t>(span == 0 ? Next() : Next() % span);
}

int64_t ByteChoices::Range(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  // As many bytes as the span needs, little endian; missing bytes are 0.
  uint64_t value = 0;
  for (uint64_t reach = 1, shift = 0; reach < span && shift < 64; reach <<= 8, shift += 8) {
    if (pos_ < size_) value |= uint64_t{data_[pos_++]} << shift;
    if (reach > (std::numeric_limits<uint64_t>::max() >> 8)) break;
  }
  return lo + static_cast<int64_t>(value % span);
}

// Every generator operator, in report order.
#define SG_GENERATOR_OPERATORS(X) \
  X(no_requests) \
  X(zero_length_request) \
  X(decode) \
  X(speculative) \
  X(prefill_chunk) \
  X(one_token_per_request) \
  X(page_boundary) \
  X(formula_boundary) \
  X(dummy_request) \
  X(idle_rank) \
  X(padded_batch) \
  X(num_actual_moved) \
  X(past_the_row) \
  X(unallocated_columns) \
  X(hybrid_blocks) \
  X(param_not_default) \
  X(zero_column0) \
  X(minus_one_entries) \
  X(hybrid_null_row) \
  X(ids_near_int32) \
  X(ids_at_int32_max) \
  X(slots_past_int32) \
  X(recognisable_slot_mapping_in) \
  X(token_not_selected) \
  X(page_tile_divisor) \
  X(page_off_tile) \
  X(link_absent) \
  X(ragged_rows) \
  X(null_unread_columns) \
  X(null_source_columns) \
  X(null_behind_window) \
  X(persistent_table) \
  X(stale_reused_blocks) \
  X(dummy_reads_no_row) \
  X(dummy_run_zero_rows) \
  X(dummy_run_stale_rows) \
  X(engine_scale_table) \
  X(layout_padded) \
  X(layout_tight) \
  X(layout_strided) \
  X(engine_scale_batch) \
  X(long_request) \
  X(request_past_8k) \
  X(batch_past_2_24) \
  X(long_context) \
  X(tile_sized_request) \
  X(tile_sized_padding) \
  X(tile_aligned_tokens) \
  X(grid_past_2_16) \
  X(width0_rows) \
  X(positions_near_int32) \
  X(positions_past_int32) \
  X(padding_positions) \
  X(huge_param) \
  X(fresh_prefill_past_block) \
  X(clamp_positions_past_int32) \
  X(allocated_ahead) \
  X(param_not_power_of_two) \
  X(input_drawn) \
  X(owner_input_drawn) \
  X(fault_unmarked_dummy) \
  X(fault_zero_column)

const std::vector<std::string>& GeneratorOperators() {
  static const std::vector<std::string> names = {
#define SG_NAME(op) #op,
      SG_GENERATOR_OPERATORS(SG_NAME)
#undef SG_NAME
  };
  return names;
}

namespace {

enum class Op : int {
#define SG_ENUM(op) op,
  SG_GENERATOR_OPERATORS(SG_ENUM)
#undef SG_ENUM
  kCount
};

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kTwo31 = int64_t{1} << 31;

/// The QSA engine geometry runs one program per 128 tokens (kernels/
/// family_geometry.h): past this many tokens its grid has more than 2^16
/// programs.
constexpr int64_t kGrid16Tokens = int64_t{65536} * 128;
constexpr int64_t kTwo24 = int64_t{1} << 24;

struct Builder {
  Builder(Choices& choices, const GeneratorOptions& options) : c(choices), o(options) {}
  Choices& c;
  const GeneratorOptions& o;
  Scenario s;
  int64_t next_block = 1;   // the next fresh manager block id
  int64_t first_block = 1;  // the first one this scenario hands out
  std::vector<bool> dummy;
  std::string faults;
  // A persistent table (batch.table_rows "idx_mapping"): every group's
  // table has table_rows rows; row_read[row] when a live request reads it.
  bool persistent = false;
  int32_t table_rows = 0;
  // A dummy run (batch.dummy_run): whether its rows hold a finished
  // request's blocks (stale) or zeros (start-up), for the groups whose
  // dummies every output pads.
  bool stale_dummy_rows = false;
  std::vector<bool> row_read;
  bool decode_only = false;   // a family of one token per request is fuzzed
  bool ahead = false;         // the table being laid out has live blocks allocated ahead
  bool ragged_rows = false;   // a family whose rows are CSR rows (per request) is fuzzed

  // Counted here, added to `classes` once per scenario (map lookups per
  // request cost a tenth of a small scenario).
  std::array<int32_t, static_cast<int>(Op::kCount)> notes{};
  void Note(Op op) { notes[static_cast<int>(op)]++; }
  int32_t Fresh() { return static_cast<int32_t>(next_block++); }
  /// True with probability n / 10000 (n / 1000000); false on the low
  /// answer, so short fuzzer inputs stay small.
  bool PerTenThousand(int n) { return c.Range(0, 9999) >= 10000 - n; }
  bool PerMillion(int n) { return c.Range(0, 999999) >= 1000000 - n; }
  bool huge_positions = false;
  std::vector<bool> special;  // [requests]: shaped by an engine-scale or boundary operator (left as they are)
  std::vector<bool> at_boundary;  // [requests]: moved to a formula boundary once the groups are drawn
  std::vector<Family> families;   // the families drawn: their example groups' fresh prefills

  /// A dummy request's row: null entries only. 0; -1 (no block); or, for a
  /// hybrid group (manager blocks of several entries), the entries of
  /// manager block 0.
  void NullRow(int64_t bpk, int32_t* row, int32_t width) {
    const int64_t kind = c.Range(0, 99);
    for (int32_t col = 0; col < width; ++col)
      row[col] = kind < 25 ? -1 : (kind < 50 && bpk > 1 ? static_cast<int32_t>(col % bpk) : 0);
    if (width == 0) return;
    Note(kind < 25 ? Op::minus_one_entries : (kind < 50 && bpk > 1 ? Op::hybrid_null_row : Op::zero_column0));
  }

  void Batch();
  void Persistent();
  void DummyRun();
  bool Params(Group* g);
  std::optional<int64_t> DrawInt(const Group& g, size_t p);
  void Links(Group* g);
  bool Table(Group* g);
  void Fill(Group* g, const std::vector<int32_t>& widths, int32_t width, int64_t bpk);
  void StaleRows(Group* g, const std::vector<int32_t>& live_entries, int64_t bpk);
  void Faults();
  void FormulaBoundary();
  void Boundaries();
  void NullUnread(Group* g, const std::vector<std::vector<int64_t>>& columns);
  void NullBehindWindows(Group* g);
  void NullSources(Group* g, const std::vector<std::vector<int64_t>>& sources);
  void Inputs();
};

/// The groups' families' extra inputs (docs/family-format.md, "Inputs"):
/// each left to its default sometimes, else drawn per element from its
/// shape list (min, min + 1, the element's default, max, the values around
/// its request's length). An input two groups share is drawn once.
void Builder::Inputs() {
  slotguard::Batch& b = s.batch;
  for (const Group& g : s.groups) {
    const GroupModel model(g);
    const std::vector<InputDesc>& inputs = model.inputs();
    if (inputs.empty()) continue;
    std::vector<std::vector<int64_t>> defaults;
    std::string unused;
    if (!model.InputValues(b, &defaults, &unused)) continue;
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (b.inputs.count(inputs[k].name) || c.Chance(25)) continue;
      BatchInput input;
      input.per_token = inputs[k].per_token();
      const std::vector<int32_t> owner = input.per_token ? OwnersOf(model.mapping(), b, b.num_tokens)
                                                         : std::vector<int32_t>();
      input.values = defaults[k];
      // An owner input (a token's request) moves a few tokens: to no request, past the requests, to another one.
      const bool owner_input = model.OwnerInput() == static_cast<int32_t>(k);
      for (size_t e = 0; e < input.values.size(); ++e) {
        if (c.Chance(owner_input ? 80 : 40)) continue;  // this element keeps its default
        const int32_t r = input.per_token ? owner[e] : static_cast<int32_t>(e);
        input.values[e] = c.Pick(ElementValueList(g, k, defaults[k][e], b, r));
      }
      if (owner_input) Note(Op::owner_input_drawn);
      b.inputs.emplace(inputs[k].name, std::move(input));
      Note(Op::input_drawn);
    }
  }
}

void Builder::Batch() {
  slotguard::Batch& b = s.batch;
  int32_t R;
  if (c.Chance(4)) {
    R = 0;
    Note(Op::no_requests);
  } else {
    // Mostly small batches (fast checks); rarely one at engine scale, up to
    // --max-requests (a quarter of it at least).
    const int64_t tier = c.Range(0, 9999);
    const int32_t most = std::max<int32_t>(1, o.max_requests);
    if (tier < 7000) {
      R = static_cast<int32_t>(c.Range(1, std::min<int32_t>(8, most)));
    } else if (tier < 9995) {
      R = static_cast<int32_t>(c.Range(1, std::min<int32_t>(64, most)));
    } else {
      R = static_cast<int32_t>(c.Range(std::max<int32_t>(1, most / 4), most));
      if (R >= 256) Note(Op::engine_scale_batch);
    }
  }
  const bool idle = R > 0 && c.Chance(5);
  if (idle) Note(Op::idle_rank);
  b.query_start_loc.reserve(static_cast<size_t>(R) + 1);
  b.query_start_loc.assign(1, 0);
  b.seq_lens.resize(R);
  b.idx_mapping.resize(R);
  dummy.assign(R, false);
  special.assign(R, false);
  at_boundary.assign(R, false);
  // A fresh prefill longer than a block (the shape lists' for the drawn
  // families' example groups), rarely.
  std::vector<int32_t> prefills;
  if (R > 0 && !decode_only && c.Chance(3))
    for (Family f : families)
      for (int32_t q : FreshPrefillTokens(ExampleGroup(f, "g"), 8192)) prefills.push_back(q);
  const int32_t prefill_at = !prefills.empty() ? static_cast<int32_t>(c.Range(0, R - 1)) : -1;
  // Rarely, one request longer than a request program's first tile, one at
  // and beside the tile sizes engines use, one at a context near or past
  // int32, one with a long context.
  const int32_t long_at = R > 0 && PerTenThousand(5) ? static_cast<int32_t>(c.Range(0, R - 1)) : -1;
  const int32_t tile_at = R > 0 && PerTenThousand(100) ? static_cast<int32_t>(c.Range(0, R - 1)) : -1;
  const int32_t huge_at = R > 0 && PerTenThousand(100) ? static_cast<int32_t>(c.Range(0, R - 1)) : -1;
  const int32_t long_context_at = R > 0 && PerTenThousand(50) ? static_cast<int32_t>(c.Range(0, R - 1)) : -1;
  // Opted in, very rarely: the last request takes the batch past 2^24 tokens.
  const bool past_2_24 = o.huge_batches && R > 0 && !decode_only && PerTenThousand(1);
  for (int32_t r = 0; r < R; ++r) {
    int32_t q;
    const int64_t kind = c.Range(0, 99);
    if (past_2_24 && r == R - 1) {
      q = static_cast<int32_t>(
          std::max<int64_t>(1, kTwo24 + c.Pick<int64_t>({0, 1, 129}) - b.query_start_loc.back()));
      Note(Op::batch_past_2_24);
    } else if (r == long_at && !decode_only) {
      if (c.Chance(50)) {
        q = static_cast<int32_t>(c.Chance(50) ? c.Pick<int64_t>({2047, 2048, 2049, 4096, 8191, 8192}) : c.Range(1025, 8192));
        Note(Op::long_request);
      } else {  // past the 8k chunk engines prefill in: a kernel's 8k assumption
        q = static_cast<int32_t>(c.Chance(50) ? c.Pick<int64_t>({8193, 16383, 16384, 16385, 32768, 32769, 65536})
                                              : c.Range(8193, 65536));
        Note(Op::request_past_8k);
      }
    } else if (r == prefill_at) {
      q = c.Pick(prefills);
      Note(Op::fresh_prefill_past_block);
    } else if (r == tile_at && !decode_only) {
      q = static_cast<int32_t>(c.Pick<int64_t>({127, 128, 129, 255, 256, 257, 1023, 1024, 1025}));
      Note(Op::tile_sized_request);
    } else if (decode_only) {
      q = 1;
      Note(Op::one_token_per_request);
    } else if (kind < 8) {
      q = 0;
      Note(Op::zero_length_request);
    } else if (kind < 45 || idle) {
      q = 1;
      Note(Op::decode);
    } else if (kind < 65) {
      q = static_cast<int32_t>(c.Range(2, 4));
      Note(Op::speculative);
    } else {
      q = static_cast<int32_t>(c.Range(5, 48));
      Note(Op::prefill_chunk);
    }
    // Contexts stay short mostly (small tables, fast checks); long ones are rare.
    int64_t context;
    const int64_t where = c.Range(0, 99);
    if (where < 30 || r == prefill_at) {
      context = 0;
    } else if (where < 60) {
      // The tokens straddle a boundary of the groups' shape lists (Boundaries, once they are drawn).
      context = c.Range(0, 64);
      at_boundary[r] = true;
    } else if (where < 95) {
      context = c.Range(0, 64);
    } else {
      context = c.Range(0, 1300);
    }
    if (r == long_context_at) {
      // Up to 8k tokens of context, at and beside the tiles.
      context = c.Chance(50) ? c.Pick<int64_t>({127, 128, 129, 255, 256, 257, 1023, 1024, 1025, 4096, 8191, 8192})
                             : c.Range(1301, 8192);
      Note(Op::long_context);
    }
    if (r == huge_at) {
      huge_positions = true;
      // Seq_lens past int32 only for a provider that reads them as int64
      // (plugin ABI 1 gets them saturated at INT32_MAX).
      if (o.int64_seq_lens && c.Chance(50)) {
        const int64_t top = kMaxPosition + 1 - q;  // seq_len <= 2^62
        switch (c.Range(0, 4)) {
          case 0: context = kTwo31 - c.Range(0, q); break;  // the tokens straddle 2^31
          case 1: context = (int64_t{1} << 32) + c.Range(-4096, 4096); break;
          case 2: context = c.Range(kTwo31, int64_t{1} << 40); break;
          case 3: context = top - c.Range(0, 4096); break;  // positions up to 2^62 - 1
          default: context = c.Range(kTwo31, top); break;
        }
        if (q > 0 && context + q - 1 >= kTwo31) Note(Op::positions_past_int32);
      } else {
        context = kInt32Max - q - c.Range(0, 4096);  // positions up to INT32_MAX - 1
        if (q > 0) Note(Op::positions_near_int32);
      }
    }
    b.query_start_loc.push_back(static_cast<int32_t>(b.query_start_loc.back() + q));
    b.seq_lens[r] = context + q;
    special[r] = r == long_at || r == tile_at || r == huge_at || r == long_context_at || r == prefill_at ||
                 (past_2_24 && r == R - 1);
    dummy[r] = idle || c.Chance(15);
    if (dummy[r]) Note(Op::dummy_request);
    b.idx_mapping[r] = dummy[r] ? -1 : r;
  }
  const int64_t real = b.query_start_loc.back();
  b.num_tokens = real;
  if (c.Chance(45)) {
    // Padding up to a CUDA-graph size; rarely at and beside the 256-token
    // padding programs of the kpool tail, or to a token count at and beside
    // a tile multiple; very rarely past 2^16 QSA programs (8.4M tokens,
    // half a gigabyte to check: too slow for more).
    if (PerMillion(1)) {
      b.num_tokens = std::max<int64_t>(real, kGrid16Tokens + c.Pick<int64_t>({1, 128, 129}));
      Note(Op::grid_past_2_16);
    } else if (PerTenThousand(100)) {
      b.num_tokens += c.Pick<int64_t>({255, 256, 257, 511, 512, 513});
      Note(Op::tile_sized_padding);
    } else if (PerTenThousand(100)) {
      const int64_t tile = c.Pick<int64_t>({128, 256, 1024});
      b.num_tokens = std::max<int64_t>(real + 1, (real + tile - 1) / tile * tile + c.Pick<int64_t>({-1, 0, 1}));
      Note(Op::tile_aligned_tokens);
    } else {
      b.num_tokens += c.Range(1, 32);
    }
    Note(Op::padded_batch);
  }
  b.num_actual_tokens = real;
  if (c.Chance(35)) {
    const int64_t low = R > 0 ? b.query_start_loc[R - 1] : 0;
    b.num_actual_tokens = c.Range(low, b.num_tokens);
    if (b.num_actual_tokens != real) Note(Op::num_actual_moved);
  }
  b.positions.assign(b.num_tokens, 0);
  for (int32_t r = 0; r < R; ++r) {
    const int64_t q = b.query_start_loc[r + 1] - b.query_start_loc[r];
    for (int64_t i = 0; i < q; ++i) b.positions[b.query_start_loc[r] + i] = b.seq_lens[r] - q + i;
  }
  // Tokens past the real ones hold what the runner left there: 0 mostly,
  // sometimes large positions (a kernel that maps them must still pad).
  if (b.num_tokens > real && c.Chance(10)) {
    if (o.int64_seq_lens && c.Chance(30)) {
      // Clamp tokens at positions past int32 (the shape lists' ClampPositions).
      for (int64_t t = real; t < b.num_tokens; ++t) b.positions[t] = c.Pick(ClampPositions());
      Note(Op::clamp_positions_past_int32);
    } else {
      for (int64_t t = real; t < b.num_tokens; ++t) b.positions[t] = c.Range(0, int64_t{1} << 20);
    }
    Note(Op::padding_positions);
  }
  b.slot_mapping_in.assign(b.num_tokens, kPadSlot);
  if (c.Chance(30)) {
    for (int64_t t = 0; t < b.num_tokens; ++t) b.slot_mapping_in[t] = 1000000 + t;
    Note(Op::recognisable_slot_mapping_in);
  }
  table_rows = R;
  if (!ragged_rows && PerTenThousand(800)) {
    // A quarter of the persistent tables are a dummy run's (drawn inside
    // this branch, so the other scenarios keep their draws).
    // Not over the requests an engine-scale or boundary operator shaped
    // (their positions stay what that operator drew).
    const bool shaped = huge_positions || std::count(special.begin(), special.end(), true) > 0;
    if (R > 0 && !shaped && o.dummy_runs && !c.Chance(75)) {  // false on the low answer
      DummyRun();
    } else {
      Persistent();
    }
  }
}

/// A dummy run, as vLLM's v2 runner makes one (InputBatch.make_dummy): no
/// request owns state, idx_mapping is arange, every position 0, and the
/// persistent table is not refilled: its rows hold zeros before the first
/// real request, else what earlier requests left there (stale).
void Builder::DummyRun() {
  slotguard::Batch& b = s.batch;
  const int32_t R = b.num_reqs();
  b.dummy_run = true;
  b.table_rows = TableRows::kIdxMapping;
  persistent = true;
  table_rows = R + static_cast<int32_t>(c.Range(0, 4));
  row_read.assign(table_rows, false);
  for (int32_t r = 0; r < R; ++r) {
    dummy[r] = true;
    special[r] = true;  // positions stay 0
    b.idx_mapping[r] = r;
    b.seq_lens[r] = b.query_start_loc[r + 1] - b.query_start_loc[r];
  }
  // Every request's positions 0 (the tokens past qsl[R] keep theirs).
  std::fill(b.positions.begin(), b.positions.begin() + b.num_real_tokens(), 0);
  stale_dummy_rows = c.Chance(50);
  Note(stale_dummy_rows ? Op::dummy_run_stale_rows : Op::dummy_run_zero_rows);
}

/// The boundaries of the groups' own formulas: one request's positions
/// moved to straddle a multiple of a value some formula divides by or takes
/// a modulus of (a page, a ring, a compress ratio, a window: what the
/// description says, not a list of the engines' usual sizes).
void Builder::FormulaBoundary() {
  slotguard::Batch& b = s.batch;
  std::vector<int32_t> movable;
  for (int32_t r = 0; r < b.num_reqs(); ++r)
    if (b.query_start_loc[r + 1] > b.query_start_loc[r] && !special[r]) movable.push_back(r);
  if (movable.empty() || s.groups.empty()) return;
  std::vector<int64_t> periods;
  for (const Group& g : s.groups)
    for (int64_t d : FormulaBoundaries(g))
      if (d <= (int64_t{1} << 20)) periods.push_back(d);
  if (periods.empty()) return;
  const int32_t r = c.Pick(movable);
  const int64_t d = c.Pick(periods);
  const int64_t q = b.query_start_loc[r + 1] - b.query_start_loc[r];
  // Positions d*k - j .. d*k - j + q - 1: the multiple is among them (or
  // just after the last, j = 0).
  const int64_t context = std::max<int64_t>(0, d * c.Range(1, 3) - c.Range(0, q));
  b.seq_lens[r] = context + q;
  for (int64_t i = 0; i < q; ++i) b.positions[b.query_start_loc[r] + i] = context + i;
  Note(Op::formula_boundary);
}

/// The requests the batch marked for a boundary: each one's tokens
/// straddle a multiple of one of the groups' formula boundaries (the shape
/// lists: divisors, thresholds, pages; 1 included), once or twice over;
/// those up to 8192, so that rows stay narrow (FormulaBoundary takes the
/// larger ones, for one request).
void Builder::Boundaries() {
  slotguard::Batch& b = s.batch;
  if (std::none_of(at_boundary.begin(), at_boundary.end(), [](bool v) { return v; })) return;
  std::vector<int64_t> values;
  for (const Group& g : s.groups)
    for (int64_t d : FormulaBoundaries(g))
      if (d <= 8192) values.push_back(d);
  if (values.empty()) return;
  for (int32_t r = 0; r < b.num_reqs(); ++r) {
    if (!at_boundary[r] || special[r]) continue;
    const int64_t d = c.Pick(values);
    const int64_t q = b.query_start_loc[r + 1] - b.query_start_loc[r];
    const int64_t context = std::max<int64_t>(0, d * c.Range(1, 2) - c.Range(0, q));
    b.seq_lens[r] = context + q;
    for (int64_t i = 0; i < q; ++i) b.positions[b.query_start_loc[r] + i] = context + i;
    Note(Op::page_boundary);
  }
}

/// The engine's persistent block table: more rows than requests, each live
/// request reading its own row (a permutation into the rows), dummies
/// reading none, the other rows stale (StaleRows).
void Builder::Persistent() {
  slotguard::Batch& b = s.batch;
  const int32_t R = b.num_reqs();
  persistent = true;
  b.table_rows = TableRows::kIdxMapping;
  Note(Op::persistent_table);
  // A few spare rows mostly; sometimes the engine's max_num_reqs (small
  // batches only: every row costs a table row in every group).
  int32_t rows = R + static_cast<int32_t>(c.Range(1, 8));
  if (R <= 64 && !huge_positions && PerTenThousand(500)) {
    rows = static_cast<int32_t>(c.Pick<int64_t>({256, 1024}));
    Note(Op::engine_scale_table);
  }
  table_rows = rows;
  row_read.assign(rows, false);
  std::vector<int32_t> free_rows(rows);
  for (int32_t i = 0; i < rows; ++i) free_rows[i] = i;
  int32_t taken = 0;
  for (int32_t r = 0; r < R; ++r) {
    if (dummy[r]) {
      Note(Op::dummy_reads_no_row);
      continue;
    }
    // A uniformly drawn free row (partial Fisher-Yates).
    std::swap(free_rows[taken], free_rows[static_cast<size_t>(c.Range(taken, rows - 1))]);
    b.idx_mapping[r] = free_rows[taken++];
    row_read[b.idx_mapping[r]] = true;
  }
}

/// The widest row the generator lays out for a group (columns).
constexpr int64_t kMaxGeneratedWidth = 4096;
/// The most table entries one manager block spans (a hybrid group's).
constexpr int64_t kMaxManagerEntries = 8;

std::optional<int64_t> Builder::DrawInt(const Group& g, size_t p) {
  const FamilyModel model(g.family);
  const ParamDesc& param = model.params()[p];
  const int64_t lo = param.min, hi = ParamMax(g, p);
  if (hi < lo) return lo;
  // The parameter's shape list (family/shape_lists.h), by source.
  const std::vector<ParamValue> listed = ParamValues(g, p);
  std::vector<int64_t> divisors, large, sizes, own;
  for (const ParamValue& v : listed) switch (v.source) {
      case ParamSource::kDivisor: divisors.push_back(v.value); break;
      case ParamSource::kLarge: large.push_back(v.value); break;
      case ParamSource::kEngineSize: sizes.push_back(v.value); break;
      default: own.push_back(v.value); break;
    }
  if (!param.divides.empty()) {
    const int64_t whole = g.params[model.FindParam(param.divides)];
    if (!param.default_value.empty() && c.Chance(60)) return std::min<int64_t>(whole, hi);  // its default, mostly
    if (!divisors.empty()) return c.Pick(divisors);
  }
  if (!param.default_value.empty() && c.Chance(80)) return std::nullopt;  // keep the default (ApplyDefaults sets it)
  if (huge_positions && !large.empty() && c.Chance(50)) {
    // A position near or past 2^31 still selects a column.
    Note(Op::huge_param);
    return c.Pick(large);
  }
  // Its own values mostly (min, min + 1, example, max, beside them, one not
  // a power of two), else the sizes engines meet.
  if (!own.empty() && (sizes.empty() || c.Chance(60))) return c.Pick(own);
  if (!sizes.empty()) return c.Pick(sizes);
  return c.Range(lo, std::min<int64_t>(hi, lo + 8));
}

/// The group's parameters, drawn in order (a max or a divisor may read
/// earlier ones), until the family's constraints hold and its rows stay
/// narrow enough to lay out; false when no draw fits.
bool Builder::Params(Group* g) {
  const GroupModel model(*g);
  const std::vector<ParamDesc>& params = model.params();
  // The links chosen before (Links): a parameter that equals a linked
  // group's takes that group's value, and the later ones are drawn around it.
  const std::vector<std::string> links = g->links.size() == params.size() ? g->links
                                                                           : std::vector<std::string>(params.size());
  for (int attempt = 0; attempt < 8; ++attempt) {
    const bool last = attempt == 7;  // the examples, at last
    g->params.assign(params.size(), 0);
    g->links = links;
    std::vector<bool> given(params.size(), false);
    bool changed = false;
    for (size_t p = 0; p < params.size(); ++p) {
      const ParamDesc& param = params[p];
      ApplyDefaults(g, given);  // the defaults of the earlier ones: a later max or divisor reads them
      if (param.equals_link >= 0 && !links[static_cast<size_t>(param.equals_link)].empty()) {
        const std::string& target = links[static_cast<size_t>(param.equals_link)];
        for (const Group& other : s.groups)
          if (other.name == target) g->params[p] = ParamOf(other, param.equals_param);
        given[p] = true;
        continue;
      }
      if (param.type == ParamType::kBool) {
        if (!last && !param.default_value.empty() && c.Chance(5)) {
          g->params[p] = 1 - g->params[p];
          given[p] = changed = true;
        }
        continue;
      }
      if (!param.is_int()) continue;
      if (last) {
        if (param.default_value.empty()) {
          g->params[p] = std::min(param.example, ParamMax(*g, p));
          given[p] = true;
        }
        continue;
      }
      const std::optional<int64_t> v = DrawInt(*g, p);
      if (!v) continue;  // its default
      if (!param.default_value.empty()) changed = true;
      g->params[p] = *v;
      given[p] = true;
    }
    ApplyDefaults(g, given);
    // The constraints, and rows narrow enough to lay out.
    bool ok = model.ConstraintsHold();
    for (size_t p = 0; p < params.size() && ok; ++p)
      if (params[p].is_int()) ok = g->params[p] >= params[p].min && g->params[p] <= ParamMax(*g, p);
    const GroupShape shape = ShapeOf(*g);
    // A manager block of a few entries at most (hybrid blocks): a row holds
    // whole manager blocks.
    ok = ok && shape.min_width <= kMaxGeneratedWidth && shape.page >= 1 && shape.null_entries <= kMaxManagerEntries;
    if (ok) {
      if (changed) Note(Op::param_not_default);
      if (shape.null_entries > 1) Note(Op::hybrid_blocks);
      if (shape.page >= 64) Note(1024 % shape.page == 0 ? Op::page_tile_divisor : Op::page_off_tile);
      for (size_t p = 0; p < params.size(); ++p)
        if (params[p].is_int() && given[p] && g->params[p] > 2 && (g->params[p] & (g->params[p] - 1)) != 0) {
          Note(Op::param_not_power_of_two);
          break;
        }
      return true;
    }
  }
  return false;
}

/// A group parameter names a group of its family that reads no other, as
/// the engine wires them, mostly; sometimes none (the gate's absent rule).
void Builder::Links(Group* g) {
  const FamilyModel model(g->family);
  const std::vector<ParamDesc>& params = model.params();
  g->links.resize(params.size());
  for (size_t p = 0; p < params.size(); ++p) {
    if (params[p].type != ParamType::kGroup) continue;
    std::vector<std::string> targets;
    for (const Group& other : s.groups)
      if (params[p].family == GetFamily(other.family).name && !ReadsAnotherGroup(other.family))
        targets.push_back(other.name);
    // A derived group's source is always there: its slots come from it.
    const bool needed = model.derived_from() == static_cast<int32_t>(p);
    if (!targets.empty() && (needed || c.Chance(85))) {
      g->links[p] = c.Pick(targets);
    } else {
      Note(Op::link_absent);
    }
  }
}

/// The group's table: as wide as the columns its live requests' selected
/// tokens address (the description's column formula over the batch), with
/// the boundary shapes around that; false when a row would be too wide to
/// lay out and the family reads past rows (no range guard to pad it).
bool Builder::Table(Group* g) {
  const slotguard::Batch& b = s.batch;
  const GroupModel model(*g);
  const GroupShape shape = ShapeOf(*g);
  const int64_t bpk = shape.null_entries;
  // Per request: the columns its selected tokens (or, for a per-request
  // kind, its state index and operations) address.
  std::vector<int64_t> needed(static_cast<size_t>(b.num_reqs()), 0);
  std::vector<std::vector<int64_t>> columns;  // per-request kinds: each request's columns
  std::vector<std::vector<int64_t>> sources;  // the columns block operations read
  if (model.kind().columns_read_width()) {
    // A formula may read the row's width: from a few columns, grown to what they address.
    columns.assign(needed.size(), {});
    int64_t width = c.Range(1, 8);
    bool unaddressable = false;
    for (int round = 0; round < 4; ++round) {
      for (auto& cols : columns) cols.clear();
      sources.assign(needed.size(), {});
      int64_t widest = 0;
      model.ForEachColumn(b, width, [&](int32_t r, int64_t col, bool source, bool) {
        if (col < 0) return;
        if (col >= kMaxGeneratedWidth) {
          unaddressable = true;  // a live request's state past any row slotguard lays out
          return;
        }
        columns[r].push_back(col);
        if (source) sources[r].push_back(col);
        widest = std::max(widest, col + 1);
      });
      if (widest <= width) break;
      width = widest;
    }
    // A consistent batch gives every live request the columns it reads (a
    // per-request kind has no range guard that pads a token past its row).
    if (unaddressable) return false;
    for (size_t r = 0; r < columns.size(); ++r)
      for (int64_t col : columns[r]) needed[r] = std::max(needed[r], col + 1);
  } else {
    bool unselected = false, unaddressable = false;
    const bool bound = model.ForEachColumn(b, 0, [&](int32_t r, int64_t col, bool, bool selected) {
      if (dummy[r]) return;
      if (!selected) {
        unselected = true;
        return;
      }
      if (col >= (int64_t{1} << 40)) unaddressable = true;  // no row reaches it
      if (col >= 0 && col < (int64_t{1} << 40)) needed[r] = std::max<int64_t>(needed[r], col + 1);
    });
    if (!bound) return false;
    // A kernel without a range guard reads a live token's column whatever the
    // row: a consistent batch gives it the column, so a column no row reaches
    // is a batch the engine cannot produce.
    if (unaddressable && !model.rows_guarded()) return false;
    if (unselected) Note(Op::token_not_selected);
  }
  int64_t most = shape.min_width;
  for (int64_t n : needed) most = std::max(most, n);
  // Whole manager blocks (a hybrid group's manager block spans bpk columns).
  auto whole = [&](int64_t n) { return (n + bpk - 1) / bpk * bpk; };
  most = whole(most);
  // A per-request kind's live request must find its columns (a consistent
  // batch gives it its state): no row narrower than what it reads.
  const bool guarded = model.rows_guarded();
  bool truncated = false;
  if (most > kMaxGeneratedWidth) {
    if (!guarded) return false;
    // Positions near or past int32 (or a formula boundary far out): a few
    // columns, at least the ones every row must have, and the range guard
    // pads the rest.
    most = whole(std::max<int64_t>(shape.min_width, c.Range(0, 4)));
    truncated = true;
    Note(Op::past_the_row);
  }
  const bool ragged = model.ragged_rows();
  ahead = false;
  int32_t width = static_cast<int32_t>(most);
  if (guarded && !truncated && most > 0 && b.num_reqs() > 0 && shape.min_width == 0 && PerTenThousand(200)) {
    width = 0;  // a row of no columns: every token is past it
    Note(Op::width0_rows);
  } else if (guarded && !truncated && most > shape.min_width && c.Chance(15)) {
    width = static_cast<int32_t>(std::max<int64_t>(shape.min_width, most - c.Range(1, std::min<int64_t>(most, 3))));
    Note(Op::past_the_row);
  } else if (!truncated && c.Chance(20)) {
    width += static_cast<int32_t>(c.Range(1, 3));
    // Blocks allocated ahead of the tokens (the shape lists' ahead
    // columns): live rows hold real blocks in the columns past what their
    // tokens read, so a kernel that reads a column too far reads a real block.
    ahead = !ragged && c.Chance(50);
  }
  // A ragged (CSR) table: each row as wide as its request addresses, some wider.
  std::vector<int32_t> widths(static_cast<size_t>(b.num_reqs()), width);
  if (ragged) {
    for (int32_t r = 0; r < b.num_reqs(); ++r) {
      // No wider than the table's width: the range guard pads what is past
      // (a narrowed or truncated table: positions near int32 address 2^31 columns).
      widths[r] = static_cast<int32_t>(std::min<int64_t>(std::max<int64_t>(shape.min_width, whole(needed[r])), width));
      if (c.Chance(20)) widths[r] += static_cast<int32_t>(c.Range(1, 2));
      if (dummy[r]) widths[r] = static_cast<int32_t>(std::max<int64_t>(shape.min_width, c.Range(0, 2)));
    }
    width = 0;
    for (int32_t w : widths) width = std::max(width, w);
    Note(Op::ragged_rows);
  }
  Fill(g, widths, width, bpk);
  if (!columns.empty() && c.Chance(30)) NullUnread(g, columns);
  if (!sources.empty() && c.Chance(25)) NullSources(g, sources);
  if (!model.mapping().reads_from.empty() && c.Chance(50)) NullBehindWindows(g);
  if (ragged) {
    g->table.lengths = widths;
    for (int32_t r = 0; r < g->table.rows; ++r)
      for (int32_t col = widths[r]; col < width; ++col) g->table.entries[static_cast<size_t>(r) * width + col] = -1;
  }
  return true;
}

void Builder::Fill(Group* g, const std::vector<int32_t>& widths, int32_t width, int64_t bpk) {
  const int32_t R = s.batch.num_reqs();
  const bool ragged = FamilyModel(g->family).ragged_rows();
  const bool by_idx = persistent && !ragged;
  const int32_t rows = ragged ? R : table_rows;
  if (rows == 0) width = 0;  // a table without rows has no columns
  g->table.rows = rows;
  g->table.width = width;
  g->table.entries.assign(static_cast<size_t>(rows) * width, 0);
  int64_t max_entry = 0;
  std::vector<int32_t> live_entries;  // what the stale rows may hold again
  int64_t addressed = 0;
  for (int32_t w : widths) addressed = std::max<int64_t>(addressed, w);
  if (ahead && !ragged && width > addressed) {
    addressed = width;  // every live row's columns hold its real blocks
    Note(Op::allocated_ahead);
  }
  for (int32_t r = 0; r < R; ++r) {
    if (dummy[r]) {
      // A dummy of a persistent table reads no row.
      if (!by_idx) NullRow(bpk, g->table.entries.data() + static_cast<size_t>(r) * width, ragged ? widths[r] : width);
      continue;
    }
    // Real blocks; a hybrid manager block covers bpk consecutive columns.
    const int32_t row_index = by_idx ? s.batch.idx_mapping[r] : r;
    int32_t* row = g->table.entries.data() + static_cast<size_t>(row_index) * width;
    const int32_t live = ragged ? widths[r] : std::min<int32_t>(width, static_cast<int32_t>(addressed));
    for (int32_t col = 0, within = 0; col < live; ++col) {
      if (within == 0) next_block++;
      row[col] = static_cast<int32_t>((next_block - 1) * bpk + within);
      if (++within == bpk) within = 0;
    }
    if (live > 0) max_entry = std::max<int64_t>(max_entry, row[live - 1]);
    if (by_idx) live_entries.insert(live_entries.end(), row, row + live);
  }
  if (!ragged && width > addressed) Note(Op::unallocated_columns);
  // A live slot past int32: the 64-bit slot arithmetic matters.
  if (max_entry > 0 && (max_entry + 1) * SlotsPerEntry(*g) > kTwo31) Note(Op::slots_past_int32);
  // A dummy run's rows: zeros (start-up), or stale where no output of the
  // group reads a dummy's row (a description that does would write them).
  if (by_idx && (!s.batch.dummy_run || (stale_dummy_rows && DummyRunRowsOf(*g).back() == DummyRunRows::kStale)))
    StaleRows(g, live_entries, bpk);
}

/// A per-request kind's live rows with null entries in the columns its
/// description does not read, as an engine pads them (vLLM's align mode
/// puts the null block in every column before the state's): a producer that
/// reads the wrong column hands a live request the null id.
/// A group with a `reads` window: its live rows with the null block in every
/// column behind the windows of its tokens (and behind the columns they
/// write), as a sliding-window manager leaves them once no query attends
/// there. A kernel that reads a column behind the window gets the null block;
/// the window itself stays real, as a consistent batch's must.
void Builder::NullBehindWindows(Group* g) {
  const GroupModel model(*g);
  GroupPlan plan;
  std::string unused;
  if (!model.MakePlan(model.mapping(), s.batch, &plan, &unused)) return;
  const int32_t R = s.batch.num_reqs();
  std::vector<int64_t> behind(static_cast<size_t>(R), std::numeric_limits<int64_t>::max());
  for (const ReadWindow& w : ReadWindows(plan, s.batch)) {
    if (w.r < 0 || w.r >= R) continue;
    behind[w.r] = std::min(behind[w.r], w.ok ? std::max<int64_t>(w.from, 0) : 0);
  }
  model.ForEachColumn(s.batch, g->table.width, [&](int32_t r, int64_t col, bool, bool) {
    if (r >= 0 && r < R) behind[r] = std::min(behind[r], std::max<int64_t>(col, 0));
  });
  BlockTable& t = g->table;
  bool any = false;
  for (int32_t r = 0; r < R; ++r) {
    const int32_t row = model.RowOf(s.batch, r);
    if (dummy[r] || row < 0 || row >= t.rows) continue;
    const int64_t end = std::min<int64_t>(behind[r], t.row_width(row));
    for (int64_t col = 0; col < end; ++col) t.entries[static_cast<size_t>(row) * t.width + col] = 0;
    any = any || end > 0;
  }
  if (any) Note(Op::null_behind_window);
}

void Builder::NullUnread(Group* g, const std::vector<std::vector<int64_t>>& columns) {
  BlockTable& t = g->table;
  bool any = false;
  for (int32_t r = 0; r < s.batch.num_reqs(); ++r) {
    const int32_t row = s.batch.row_of(r);
    if (dummy[r] || row < 0 || row >= t.rows) continue;
    for (int32_t col = 0; col < t.width; ++col)
      if (std::find(columns[r].begin(), columns[r].end(), col) == columns[r].end()) {
        t.entries[static_cast<size_t>(row) * t.width + col] = 0;
        any = true;
      }
  }
  if (any) Note(Op::null_unread_columns);
}

/// Block operations of live requests whose source is the null block, as an
/// engine's are (a state block freed two steps ago, a prefix hit's null
/// columns): the description skips them; an operation that reads the null
/// block copies or ships whatever it holds.
void Builder::NullSources(Group* g, const std::vector<std::vector<int64_t>>& sources) {
  BlockTable& t = g->table;
  bool any = false;
  for (int32_t r = 0; r < s.batch.num_reqs(); ++r) {
    const int32_t row = s.batch.row_of(r);
    if (dummy[r] || row < 0 || row >= t.rows || sources[r].empty() || !c.Chance(50)) continue;
    const int64_t col = c.Pick(sources[r]);
    if (col < t.width) {
      t.entries[static_cast<size_t>(row) * t.width + col] = 0;
      any = true;
    }
  }
  if (any) Note(Op::null_source_columns);
}

/// The rows no live request reads hold what a finished request left there:
/// blocks that live requests own now (freed and handed out again), other
/// real-looking ids, a prefix of them and then zeros, or nothing.
void Builder::StaleRows(Group* g, const std::vector<int32_t>& live_entries, int64_t bpk) {
  BlockTable& t = g->table;
  if (t.width == 0) return;
  bool reused = false;
  for (int32_t row = 0; row < t.rows; ++row) {
    if (row_read[row]) continue;
    int32_t* entries = t.entries.data() + static_cast<size_t>(row) * t.width;
    const int64_t kind = c.Range(0, 99);
    const int32_t filled = kind < 70 ? t.width : (kind < 85 ? static_cast<int32_t>(c.Range(0, t.width)) : 0);
    // Runs, as a request's allocation is: a stretch of the live requests'
    // blocks (a few draws per row, not one per entry: rows are many at
    // engine scale), or consecutive real ids from a drawn one.
    for (int32_t col = 0; col < filled;) {
      const int32_t run = static_cast<int32_t>(std::min<int64_t>(filled - col, c.Range(1, 64)));
      if (!live_entries.empty() && (kind < 45 || c.Chance(50))) {
        size_t from = static_cast<size_t>(c.Range(0, static_cast<int64_t>(live_entries.size()) - 1));
        for (int32_t i = 0; i < run; ++i, ++from) entries[col + i] = live_entries[from % live_entries.size()];
        reused = true;
      } else {
        if (next_block == first_block) Fresh();  // no block handed out yet: one no request holds
        const int64_t blocks = next_block - first_block;
        const int64_t start = c.Range(0, blocks * bpk - 1);
        for (int32_t i = 0; i < run; ++i)
          entries[col + i] = static_cast<int32_t>(first_block * bpk + (start + i) % (blocks * bpk));
      }
      col += run;
    }
    if (kind >= 85 && c.Chance(30))
      for (int32_t col = 0; col < t.width; ++col) entries[col] = -1;
  }
  if (reused) Note(Op::stale_reused_blocks);
}

void Builder::Faults() {
  const int32_t R = s.batch.num_reqs();
  std::vector<int32_t> live;
  for (int32_t r = 0; r < R; ++r)
    if (!dummy[r] && s.batch.query_start_loc[r + 1] > s.batch.query_start_loc[r]) live.push_back(r);
  if (live.empty()) return;
  const int32_t r = c.Pick(live);
  const size_t row = static_cast<size_t>(s.batch.row_of(r));
  if (c.Chance(50)) {
    // An unmarked dummy: idx_mapping says live, every row of it is null.
    for (Group& g : s.groups)
      for (int32_t col = 0; col < g.table.width; ++col) g.table.entries[row * g.table.width + col] = 0;
    faults += "request " + std::to_string(r) + " is an unmarked dummy (idx_mapping >= 0, null rows); ";
    Note(Op::fault_unmarked_dummy);
  } else {
    // A live request addressing an unallocated (zero) column.
    Group& g = s.groups[static_cast<size_t>(c.Range(0, static_cast<int64_t>(s.groups.size()) - 1))];
    if (g.table.width == 0) return;
    const int32_t col = static_cast<int32_t>(c.Range(0, g.table.width - 1));
    g.table.entries[row * g.table.width + col] = 0;
    faults += "request " + std::to_string(r) + " addresses a zero column " + std::to_string(col) + " of group " +
              g.name + "; ";
    Note(Op::fault_zero_column);
  }
}

}  // namespace

Scenario FuzzMappingScenario(const uint8_t* data, size_t size, const std::string& variant,
                             Classification* classes) {
  ByteChoices choices(data, size);
  GeneratorOptions options;
  options.max_requests = 16;  // small scenarios: more executions per second
  Scenario s = GenerateScenario(choices, options, classes);
  // "variant" or "family/variant".
  const size_t slash = variant.find('/');
  const std::string family = slash == std::string::npos ? "" : variant.substr(0, slash);
  const std::string name = slash == std::string::npos ? variant : variant.substr(slash + 1);
  if (!name.empty())
    for (Group& g : s.groups) {
      Variant v;
      std::string unused;
      if ((family.empty() || family == GetFamily(g.family).name) && FindVariant(g.family, name, &v, &unused))
        g.variant = v;
    }
  return s;
}

Scenario GenerateScenario(Choices& choices, const GeneratorOptions& options, Classification* classes) {
  Builder b(choices, options);
  b.s.name = "generated";
  std::vector<Family> families = options.families;
  if (families.empty())  // slotguard's own kernels' families
    for (const FamilyInfo& f : AllFamilies())
      if (f.kernel) families.push_back(f.family);
  // Groups: each family present with some chance, at least one.
  std::vector<Family> chosen;
  for (Family f : families)
    if (families.size() == 1 || choices.Chance(55)) chosen.push_back(f);
  if (chosen.empty()) chosen.push_back(choices.Pick(families));
  // A family that reads another group's output mostly brings a group of the
  // family it reads (the engine's shape), even when only it is fuzzed.
  for (size_t i = 0; i < chosen.size(); ++i)
    for (size_t k = 0; k < FamilyModel(chosen[i]).params().size(); ++k) {
      const ParamDesc& p = FamilyModel(chosen[i]).params()[k];
      if (p.type != ParamType::kGroup) continue;
      const bool needed = FamilyModel(chosen[i]).derived_from() == static_cast<int32_t>(k);  // its source
      Family target;
      std::string unused;
      if (FindFamily(p.family, &target, &unused) && !ReadsAnotherGroup(target) &&
          !std::count(chosen.begin(), chosen.end(), target) && (needed || choices.Chance(80)))
        chosen.push_back(target);
    }
  // A family of one token per request makes the whole batch a decode step.
  for (Family f : chosen) {
    const FamilyModel model(f);
    b.decode_only |= model.one_token_per_request();
    b.ragged_rows |= model.ragged_rows();
  }
  b.families = chosen;
  b.Batch();
  // Groups that read no other first: a later one may name them.
  std::stable_sort(chosen.begin(), chosen.end(),
                   [](Family a, Family c) { return !ReadsAnotherGroup(a) && ReadsAnotherGroup(c); });
  b.s.groups.reserve(chosen.size() + 1);
  for (Family f : chosen) {
    const int copies = !ReadsAnotherGroup(f) && choices.Chance(10) ? 2 : 1;
    for (int k = 0; k < copies; ++k) {
      Group g;
      g.name = std::string(GetFamily(f).name) + (k ? "_" + std::to_string(k) : "");
      g.family = f;
      g.variant = FixedVariant(f);
      // A parameter that equals a linked group's needs the link first (Params).
      const std::vector<ParamDesc>& params = FamilyModel(f).params();
      const bool links_first = std::any_of(params.begin(), params.end(),
                                           [](const ParamDesc& p) { return p.equals_link >= 0; });
      if (links_first) b.Links(&g);
      if (!b.Params(&g)) continue;
      if (!links_first) b.Links(&g);
      b.s.groups.push_back(std::move(g));
    }
  }
  // The formulas' own boundaries, before the tables are sized for the positions.
  b.Boundaries();
  if (choices.Chance(25)) b.FormulaBoundary();
  // The families' extra inputs, on the final positions (the tables are sized by what they select).
  b.Inputs();
  // Block ids near the int32 limit, sometimes: the pool then ends there too.
  int64_t most_entries = 1;  // kernel ids per manager block
  for (const Group& g : b.s.groups) most_entries = std::max(most_entries, NullEntries(g));
  Op high_ids = Op::kCount;
  if (choices.Chance(5)) {
    // Leave room for every block the groups can take (at most a column per
    // position of each request, or a ring's 4096, in each group, and the
    // stale rows' one).
    int64_t room = 1000;
    for (int32_t r = 0; r < b.s.batch.num_reqs(); ++r)
      room += static_cast<int64_t>(b.s.groups.size() + 1) * (std::min<int64_t>(b.s.batch.seq_lens[r], 16384) + 4096);
    // Without hybrid groups every entry is a manager block: ids up to
    // INT32_MAX - 1 (the loader reserves INT32_MAX); hybrid ids are up to
    // most_entries times the manager id.
    if (most_entries == 1 && choices.Chance(50)) {
      b.next_block = std::max<int64_t>(1, kInt32Max - 1 - room);
      high_ids = Op::ids_at_int32_max;
    } else {
      b.next_block = std::max<int64_t>(1, kInt32Max / std::max<int64_t>(4, most_entries) - room);
      high_ids = Op::ids_near_int32;
    }
    b.first_block = b.next_block;
  }
  // The tables, in order; a group whose rows cannot be laid out goes.
  std::vector<Group> laid_out;
  for (Group& g : b.s.groups)
    if (b.Table(&g)) laid_out.push_back(std::move(g));
  b.s.groups = std::move(laid_out);
  DropUndeclaredInputs(&b.s);  // an input only a group that went declared goes too
  // A link to a group that went is no link.
  for (Group& g : b.s.groups)
    for (std::string& link : g.links)
      if (!link.empty() && std::none_of(b.s.groups.begin(), b.s.groups.end(),
                                        [&](const Group& other) { return other.name == link; }))
        link.clear();
  // A derived group reads its source's rows (its table is the source's), and
  // without its source it derives nothing: it goes.
  std::vector<Group> kept;
  for (const Group& g : b.s.groups) {
    const int32_t source = FamilyModel(g.family).derived_from();
    const int linked = source >= 0 ? LinkedGroupIndex(b.s, g, source) : -1;
    if (source >= 0 && linked < 0) continue;
    kept.push_back(g);
    if (linked >= 0) kept.back().table = b.s.groups[static_cast<size_t>(linked)].table;
  }
  b.s.groups = std::move(kept);
  if (b.s.groups.empty()) {
    // Nothing fit (every family read past its rows at these positions): a
    // group of the first family at its examples, on a batch of no tokens.
    Group g = ExampleGroup(chosen.front(), GetFamily(chosen.front()).name);
    b.s.batch = slotguard::Batch();
    b.s.batch.query_start_loc = {0};
    b.dummy.clear();
    b.table_rows = 0;
    b.persistent = false;
    b.Table(&g);
    b.s.groups.push_back(std::move(g));
  }
  if (high_ids != Op::kCount && b.next_block > b.first_block) b.Note(high_ids);  // some block was handed out
  if (options.inconsistent && choices.Chance(40)) {
    b.Faults();
    // A fault in a source's table is its derived group's too: one table.
    for (Group& g : b.s.groups) {
      const int32_t source = FamilyModel(g.family).derived_from();
      const int linked = source >= 0 ? LinkedGroupIndex(b.s, g, source) : -1;
      if (linked >= 0) g.table = b.s.groups[static_cast<size_t>(linked)].table;
    }
  }
  // The pool: every manager block id used (a manager block holds a hybrid
  // group's kernel blocks).
  b.s.num_blocks = static_cast<int32_t>(std::min<int64_t>(b.next_block + 1, kInt32Max));
  // How the runner lays the tables out: padded mostly, or as --table-layout says.
  if (options.table_layout) {
    b.s.table_layout = *options.table_layout;
  } else {
    const int64_t layout = choices.Range(0, 99);
    b.s.table_layout = layout < 80 ? TableLayoutKind::kPadded
                                   : (layout < 90 ? TableLayoutKind::kTight : TableLayoutKind::kStrided);
  }
  b.Note(b.s.table_layout == TableLayoutKind::kPadded
             ? Op::layout_padded
             : (b.s.table_layout == TableLayoutKind::kTight ? Op::layout_tight : Op::layout_strided));
  if (!b.faults.empty()) b.s.description = "inconsistent batch: " + b.faults.substr(0, b.faults.size() - 2);
  if (classes)
    for (int op = 0; op < static_cast<int>(Op::kCount); ++op) {
      if (b.notes[op] == 0) continue;
      const std::string& name = GeneratorOperators()[op];
      auto it = classes->find(name);
      if (it == classes->end()) it = classes->emplace(name, 0).first;
      it->second += b.notes[op];
    }
  return std::move(b.s);
}

}  // namespace slotguard
