#include "fuzzing/generators.h"

#include <algorithm>
#include <array>
#include <limits>

#include "registry/families.h"
#include "scenario/family_params.h"

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
  X(page_boundary) \
  X(dummy_request) \
  X(idle_rank) \
  X(padded_batch) \
  X(num_actual_moved) \
  X(past_the_row) \
  X(unallocated_columns) \
  X(hybrid_blocks) \
  X(dcp) \
  X(disabled_group) \
  X(zero_column0) \
  X(minus_one_entries) \
  X(hybrid_null_row) \
  X(ids_near_int32) \
  X(ids_at_int32_max) \
  X(slots_past_int32) \
  X(recognisable_slot_mapping_in) \
  X(keep_last_c) \
  X(ring_tile_divisor) \
  X(ring_off_tile) \
  X(no_common) \
  X(persistent_table) \
  X(stale_reused_blocks) \
  X(dummy_reads_no_row) \
  X(engine_scale_table) \
  X(layout_padded) \
  X(layout_tight) \
  X(layout_strided) \
  X(engine_scale_batch) \
  X(long_request) \
  X(long_context) \
  X(tile_sized_request) \
  X(tile_sized_padding) \
  X(tile_aligned_tokens) \
  X(grid_past_2_16) \
  X(width0_rows) \
  X(positions_near_int32) \
  X(positions_past_int32) \
  X(huge_block_size) \
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
  std::vector<bool> row_read;

  // Counted here, added to `classes` once per scenario (map lookups per
  // request cost a tenth of a small scenario).
  std::array<int32_t, static_cast<int>(Op::kCount)> notes{};
  void Note(Op op) { notes[static_cast<int>(op)]++; }
  int32_t Fresh() { return static_cast<int32_t>(next_block++); }
  // Ring sizes: small ones, and ones that do (64, 128, 256, 1024) and do
  // not (100, 129, 640, 1000, 1025) divide the tiles engines launch.
  int32_t Capacity() {
    const int32_t capacity = static_cast<int32_t>(
        c.Pick<int64_t>({1, 2, 3, 4, 5, 7, 8, 16, 64, 100, 128, 129, 256, 640, 1000, 1024, 1025}));
    if (capacity >= 64) Note(1024 % capacity == 0 ? Op::ring_tile_divisor : Op::ring_off_tile);
    return capacity;
  }
  /// True with probability n / 10000 (n / 1000000); false on the low
  /// answer, so short fuzzer inputs stay small.
  bool PerTenThousand(int n) { return c.Range(0, 9999) >= 10000 - n; }
  bool PerMillion(int n) { return c.Range(0, 999999) >= 1000000 - n; }
  /// The table width a group needs for `needed` columns, unless the batch
  /// holds positions near or past int32 (positions_near_int32,
  /// positions_past_int32): then a few columns, and the range guard pads
  /// the rest (a table of 2^31 / block_size columns would not fit).
  int32_t Addressable(int32_t needed) {
    if (!huge_positions || needed <= 4096) return needed;
    Note(Op::past_the_row);
    return static_cast<int32_t>(c.Range(0, 4));
  }
  bool huge_positions = false;
  /// One of n's divisors, uniformly.
  int32_t Divisor(int32_t n) {
    int64_t count = 0;
    for (int32_t d = 1; d <= n; ++d) count += n % d == 0;
    int64_t k = c.Range(0, count - 1);
    for (int32_t d = 1; d <= n; ++d)
      if (n % d == 0 && k-- == 0) return d;
    return 1;
  }
  /// The longest context of a live request (what a group's columns cover).
  int64_t MaxLiveSeq() const {
    int64_t max_seq = 0;
    for (int32_t r = 0; r < s.batch.num_reqs(); ++r)
      if (!dummy[r]) max_seq = std::max(max_seq, s.batch.seq_lens[r]);
    return max_seq;
  }

  /// A dummy request's row: null entries only. 0; -1 (no block); or, for a
  /// hybrid paged group, the kernel blocks of manager block 0.
  void NullRow(const Group& g, int32_t* row, int32_t width) {
    const int64_t kind = c.Range(0, 99);
    const int32_t bpk = g.family == Family::kPaged ? g.blocks_per_manager_block() : 1;
    for (int32_t col = 0; col < width; ++col) row[col] = kind < 25 ? -1 : (kind < 50 && bpk > 1 ? col % bpk : 0);
    if (width == 0) return;
    Note(kind < 25 ? Op::minus_one_entries : (kind < 50 && bpk > 1 ? Op::hybrid_null_row : Op::zero_column0));
  }

  void Batch();
  void Persistent();
  Group Paged(const std::string& name);
  Group Ring(Family family, const std::string& name);
  void Fill(Group* g, int32_t width, int32_t addressed_width);
  void StaleRows(Group* g, const std::vector<int32_t>& live_entries);
  void Faults();
};

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
  // Page sizes for boundary positions are picked later; these cover them.
  static const std::vector<int64_t> pages = {1, 2, 3, 4, 5, 7, 8, 16, 17, 64, 128, 640};
  // Rarely, one request longer than a request program's first tile, one at
  // and beside the tile sizes engines use, one at a context near or past
  // int32, one with a long context.
  const int32_t long_at = R > 0 && PerTenThousand(5) ? static_cast<int32_t>(c.Range(0, R - 1)) : -1;
  const int32_t tile_at = R > 0 && PerTenThousand(100) ? static_cast<int32_t>(c.Range(0, R - 1)) : -1;
  const int32_t huge_at = R > 0 && PerTenThousand(100) ? static_cast<int32_t>(c.Range(0, R - 1)) : -1;
  const int32_t long_context_at = R > 0 && PerTenThousand(50) ? static_cast<int32_t>(c.Range(0, R - 1)) : -1;
  for (int32_t r = 0; r < R; ++r) {
    int32_t q;
    const int64_t kind = c.Range(0, 99);
    if (r == long_at) {
      q = static_cast<int32_t>(c.Chance(50) ? c.Pick<int64_t>({2047, 2048, 2049, 4096, 8191, 8192}) : c.Range(1025, 8192));
      Note(Op::long_request);
    } else if (r == tile_at) {
      q = static_cast<int32_t>(c.Pick<int64_t>({127, 128, 129, 255, 256, 257, 1023, 1024, 1025}));
      Note(Op::tile_sized_request);
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
    if (where < 30) {
      context = 0;
    } else if (where < 60) {
      const int64_t page = c.Pick(pages);
      context = std::max<int64_t>(0, page * c.Range(1, 2) - c.Range(0, q));  // tokens straddle a boundary
      Note(Op::page_boundary);
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
      if (o.persistent_tables && c.Chance(50)) {
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
  b.slot_mapping_in.assign(b.num_tokens, kPadSlot);
  if (c.Chance(30)) {
    for (int64_t t = 0; t < b.num_tokens; ++t) b.slot_mapping_in[t] = 1000000 + t;
    Note(Op::recognisable_slot_mapping_in);
  }
  table_rows = R;
  if (o.persistent_tables && PerTenThousand(800)) Persistent();
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

void Builder::Fill(Group* g, int32_t width, int32_t addressed_width) {
  const int32_t R = s.batch.num_reqs();
  const int32_t rows = table_rows;
  if (rows == 0) width = 0;  // a table without rows has no columns
  g->table.rows = rows;
  g->table.width = width;
  g->table.entries.assign(static_cast<size_t>(rows) * width, 0);
  const int32_t bpk = g->family == Family::kPaged ? g->blocks_per_manager_block() : 1;
  int64_t max_entry = 0;
  std::vector<int32_t> live_entries;  // what the stale rows may hold again
  for (int32_t r = 0; r < R; ++r) {
    if (dummy[r]) {
      // A dummy of a persistent table reads no row.
      if (!persistent) NullRow(*g, g->table.entries.data() + static_cast<size_t>(r) * width, width);
      continue;
    }
    // Real blocks; a hybrid manager block covers bpk consecutive columns.
    // Columns past what the request addresses stay 0: never read.
    const int32_t row_index = persistent ? s.batch.idx_mapping[r] : r;
    int32_t* row = g->table.entries.data() + static_cast<size_t>(row_index) * width;
    const int32_t live = std::min(width, addressed_width);
    for (int32_t col = 0, within = 0; col < live; ++col) {
      if (within == 0) next_block++;
      row[col] = static_cast<int32_t>((next_block - 1) * bpk + within);
      if (++within == bpk) within = 0;
    }
    if (live > 0) max_entry = std::max<int64_t>(max_entry, row[live - 1]);
    if (persistent) live_entries.insert(live_entries.end(), row, row + live);
  }
  if (width > addressed_width) Note(Op::unallocated_columns);
  // A live slot past int32: the 64-bit slot arithmetic matters.
  if (max_entry > 0 && (max_entry + 1) * SlotsPerEntry(*g) > kTwo31) Note(Op::slots_past_int32);
  if (persistent) StaleRows(g, live_entries);
}

/// The rows no live request reads hold what a finished request left there:
/// blocks that live requests own now (freed and handed out again), other
/// real-looking ids, a prefix of them and then zeros, or nothing.
void Builder::StaleRows(Group* g, const std::vector<int32_t>& live_entries) {
  BlockTable& t = g->table;
  if (t.width == 0) return;
  const int64_t bpk = g->family == Family::kPaged ? g->blocks_per_manager_block() : 1;
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

Group Builder::Paged(const std::string& name) {
  Group g;
  g.name = name;
  g.family = Family::kPaged;
  g.variant = Variant::kPagedFixed;
  if (huge_positions && c.Chance(50)) {
    // Blocks of up to 2^30 tokens: positions past 2^31 still select a
    // column of the row (and every slot is past 2^31).
    g.kernel_block_size = g.block_size =
        static_cast<int32_t>(c.Pick<int64_t>({int64_t{1} << 28, int64_t{1} << 29, int64_t{1} << 30, 1000000007}));
    Note(Op::huge_block_size);
  } else {
    const int32_t bpk = static_cast<int32_t>(c.Pick<int64_t>({1, 1, 1, 2, 4}));
    g.kernel_block_size = static_cast<int32_t>(c.Pick<int64_t>({1, 2, 3, 4, 7, 8, 16, 17}));
    g.block_size = g.kernel_block_size * bpk;
    if (bpk > 1) Note(Op::hybrid_blocks);
    if (c.Chance(20)) {
      g.dcp.world = static_cast<int32_t>(c.Pick<int64_t>({2, 3, 4}));
      g.dcp.rank = static_cast<int32_t>(c.Range(0, g.dcp.world - 1));
      g.dcp.interleave = Divisor(g.block_size);
      Note(Op::dcp);
    }
  }
  const int32_t bpk = g.blocks_per_manager_block();
  if (c.Chance(5)) {
    g.enabled = false;
    Note(Op::disabled_group);
  }
  // Columns the live requests address: every position's col < needed.
  const int64_t max_seq = MaxLiveSeq();
  int32_t needed = static_cast<int32_t>(std::min<int64_t>(max_seq > 0 ? (max_seq - 1) / g.kernel_block_size + 1 : 0, INT32_MAX / 2));
  needed = (needed + bpk - 1) / bpk * bpk;  // whole manager blocks
  const int32_t addressable = Addressable(needed);
  // Positions near int32: a few columns, every one real (a column past
  // them would be a zero column a position selects).
  const bool truncated = addressable != needed;
  if (truncated) needed = addressable / bpk * bpk;
  int32_t width = needed;
  if (needed > 0 && s.batch.num_reqs() > 0 && PerTenThousand(200)) {
    width = 0;  // a row of no columns: every token is past it
    Note(Op::width0_rows);
  } else if (needed > 0 && c.Chance(15)) {
    width = needed - static_cast<int32_t>(c.Range(1, std::min(needed, 3)));  // the range guard pads
    Note(Op::past_the_row);
  } else if (!truncated && c.Chance(20)) {
    width += static_cast<int32_t>(c.Range(1, 3));
  }
  Fill(&g, width, std::min(width, needed));
  return g;
}

Group Builder::Ring(Family family, const std::string& name) {
  Group g;
  g.name = name;
  g.family = family;
  g.variant = FixedVariant(family);
  int32_t width = 1, addressed = 1;
  switch (family) {
    case Family::kKpoolTail:
      g.kpool = Capacity();
      break;
    case Family::kQsaRing:
      g.ring = Capacity();
      break;
    case Family::kQsaCompressed: {
      if (huge_positions && c.Chance(50)) {
        // Compressed positions past int32 / cr still in a column of the row.
        g.block_size = static_cast<int32_t>(c.Pick<int64_t>({int64_t{1} << 28, int64_t{1} << 30}));
        Note(Op::huge_block_size);
      } else {
        g.block_size = static_cast<int32_t>(c.Pick<int64_t>({1, 2, 3, 4, 16}));
      }
      g.kernel_block_size = g.block_size;
      g.compress_ratio = static_cast<int32_t>(c.Pick<int64_t>({1, 2, 3, 4}));
      std::vector<std::string> paged;
      for (const Group& other : s.groups)
        if (other.family == Family::kPaged) paged.push_back(other.name);
      if (!paged.empty() && c.Chance(85)) {
        g.common = c.Pick(paged);
      } else {
        Note(Op::no_common);
      }
      const int64_t max_seq = MaxLiveSeq();
      addressed = Addressable(static_cast<int32_t>(
          std::min<int64_t>(max_seq > 0 ? (max_seq - 1) / g.compress_ratio / g.block_size + 1 : 0, INT32_MAX / 2)));
      width = addressed;
      if (addressed > 0 && c.Chance(15)) {
        width = addressed - 1;  // col >= width: PAD
        Note(Op::past_the_row);
      }
      break;
    }
    case Family::kCompressorRing:
      g.capacity = Capacity();
      g.ring_block_size = Divisor(g.capacity);
      width = addressed = g.capacity / g.ring_block_size;
      break;
    case Family::kPaged:
      break;
  }
  if ((family == Family::kKpoolTail || family == Family::kQsaRing) && c.Chance(10)) width += 1;
  if ((family == Family::kQsaRing || family == Family::kQsaCompressed) && width > 0 && s.batch.num_reqs() > 0 &&
      PerTenThousand(200)) {
    width = 0;  // no column 0: the ring guard pads every token
    Note(Op::width0_rows);
  }
  Fill(&g, width, addressed);
  if (family == Family::kQsaCompressed && g.common.empty() && !persistent) {
    // Without a common group the common mapping is PAD only from qsl[R]: a
    // dummy must hold -1 here (0 is accepted by the fixed kernel: DESIGN 2.4).
    // A dummy of a persistent table reads no row.
    for (int32_t r = 0; r < g.table.rows; ++r)
      if (dummy[r])
        for (int32_t col = 0; col < g.table.width; ++col) g.table.entries[static_cast<size_t>(r) * g.table.width + col] = -1;
  }
  return g;
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
  b.Batch();
  std::vector<Family> families = options.families;
  if (families.empty())
    for (const FamilyInfo& f : AllFamilies()) families.push_back(f.family);
  // Groups: each family present with some chance, at least one.
  std::vector<Family> chosen;
  for (Family f : families)
    if (families.size() == 1 || choices.Chance(55)) chosen.push_back(f);
  if (chosen.empty()) chosen.push_back(choices.Pick(families));
  // A qsa_compressed group mostly brings the paged group whose mapping is its
  // `common` (the engine's shape), even when only qsa_compressed is fuzzed.
  const bool has_paged = std::count(chosen.begin(), chosen.end(), Family::kPaged) > 0;
  if (!has_paged && std::count(chosen.begin(), chosen.end(), Family::kQsaCompressed) && choices.Chance(80))
    chosen.push_back(Family::kPaged);
  const bool paged = std::count(chosen.begin(), chosen.end(), Family::kPaged) > 0;
  // Block ids near the int32 limit, sometimes: the pool then ends there too.
  Op high_ids = Op::kCount;
  if (choices.Chance(5)) {
    // Leave room for every block the groups can take (at most a column per
    // position of each request, or a compressor ring's 1025, in each of up
    // to 6 groups, and the stale rows' one).
    int64_t room = 1000;
    for (int32_t r = 0; r < b.s.batch.num_reqs(); ++r)
      room += 6 * (std::min<int64_t>(b.s.batch.seq_lens[r], 16384) + 1025);
    // Without a paged group every entry is a manager block: ids up to
    // INT32_MAX - 1 (the loader reserves INT32_MAX). Hybrid paged ids are
    // up to 4x the manager id.
    if (!paged && choices.Chance(50)) {
      b.next_block = std::max<int64_t>(1, kInt32Max - 1 - room);
      high_ids = Op::ids_at_int32_max;
    } else {
      b.next_block = std::max<int64_t>(1, kInt32Max / 4 - room);
      high_ids = Op::ids_near_int32;
    }
    b.first_block = b.next_block;
  }
  // Paged groups first: a qsa_compressed group may name one as its common.
  std::stable_sort(chosen.begin(), chosen.end(),
                   [](Family a, Family c) { return (a == Family::kPaged) > (c == Family::kPaged); });
  b.s.groups.reserve(chosen.size() + 1);
  for (Family f : chosen) {
    const int copies = f == Family::kPaged && choices.Chance(15) ? 2 : 1;
    for (int k = 0; k < copies; ++k) {
      const std::string name = std::string(GetFamily(f).name) + (k ? "_" + std::to_string(k) : "");
      b.s.groups.push_back(f == Family::kPaged ? b.Paged(name) : b.Ring(f, name));
    }
  }
  if (high_ids != Op::kCount && b.next_block > b.first_block) b.Note(high_ids);  // some block was handed out
  for (const Group& g : b.s.groups)
    if (g.family == Family::kQsaRing)
      for (int32_t r = 0; r < b.s.batch.num_reqs(); ++r)
        if (b.s.batch.query_start_loc[r + 1] - b.s.batch.query_start_loc[r] > g.ring) b.Note(Op::keep_last_c);
  if (options.inconsistent && choices.Chance(40)) b.Faults();
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
