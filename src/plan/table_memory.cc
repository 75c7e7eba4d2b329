#include "plan/table_memory.h"

#include <algorithm>

#include "plan/batch_arrays.h"  // MarkPoisonReads
#include "family/group_model.h"
#include "scenario/table_extent.h"

namespace slotguard {
namespace {

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The strided layout's fillers: real-looking block ids that no row of the
// table holds (free blocks, as a stale allocation would name), so a read past
// any row lands on a block its request does not own (own_block). Up to 16
// such ids are found once per table (past the largest id it holds, else
// below the smallest, else by a search); each row takes them in its own order
// and repeats them to the stride's end, so laying out stays close to a copy.
class Fillers {
 public:
  Fillers(int32_t num_blocks, const Group& group, const BlockTable& table) {
    const int64_t lo = NullEntries(group);  // ids below name the null block
    const int64_t hi = std::min<int64_t>(int64_t{num_blocks} * lo, kPoisonBlock);  // exclusive; poison reserved
    const int64_t range = hi - lo;
    if (range <= 0) return;
    const int64_t n = static_cast<int64_t>(table.entries.size());
    // Usually ids above the largest (or below the smallest) the table holds
    // are free: one pass finds them.
    int32_t max_id = -1, min_id = kPoisonBlock;
    for (int32_t id : table.entries) {
      max_id = std::max(max_id, id);
      if (id >= lo) min_id = std::min(min_id, id);
    }
    for (int64_t id = std::max<int64_t>(max_id + 1, lo); id < hi && static_cast<int64_t>(ids_.size()) < kFillers; ++id)
      ids_.push_back(static_cast<int32_t>(id));
    for (int64_t id = std::min<int64_t>(min_id, hi) - 1; id >= lo && static_cast<int64_t>(ids_.size()) < kFillers; --id)
      ids_.push_back(static_cast<int32_t>(id));
    if (!ids_.empty()) return;
    const uint64_t start = SplitMix64(static_cast<uint64_t>(n) * 31 + static_cast<uint64_t>(table.width));
    if (range <= std::max<int64_t>(64 * n, int64_t{1} << 16)) {
      // Dense: a bitmap of the ids in use, then the first free ones from a hashed start.
      std::vector<uint64_t> used(static_cast<size_t>((range + 63) / 64), 0);
      for (int32_t id : table.entries)
        if (id >= lo && id < hi) used[static_cast<size_t>(id - lo) / 64] |= uint64_t{1} << ((id - lo) % 64);
      for (int64_t i = 0; i < range && static_cast<int64_t>(ids_.size()) < kFillers; ++i) {
        const int64_t x = static_cast<int64_t>((start + static_cast<uint64_t>(i)) % static_cast<uint64_t>(range));
        if (!(used[static_cast<size_t>(x) / 64] >> (x % 64) & 1)) ids_.push_back(static_cast<int32_t>(lo + x));
      }
      return;
    }
    // Sparse: most ids are free; pseudo-random ones checked against the
    // table (scanned when small, else sorted once).
    std::vector<int32_t> sorted;
    const bool scan = n <= 256;
    if (!scan) {
      sorted = table.entries;
      std::sort(sorted.begin(), sorted.end());
    }
    for (uint64_t i = 0; static_cast<int64_t>(ids_.size()) < kFillers && i < 64 * kFillers; ++i) {
      const int32_t id = static_cast<int32_t>(lo + static_cast<int64_t>(SplitMix64(start + i) % static_cast<uint64_t>(range)));
      const bool in_table = scan ? std::find(table.entries.begin(), table.entries.end(), id) != table.entries.end()
                                 : std::binary_search(sorted.begin(), sorted.end(), id);
      if (!in_table) ids_.push_back(id);
    }
  }

  /// Whether `id` is one of the fillers: no row holds it, so only a read
  /// past a row can hand it to a kernel.
  bool Holds(int64_t id) const { return std::find(ids_.begin(), ids_.end(), id) != ids_.end(); }
  bool empty() const { return ids_.empty(); }

  /// Fills columns [width, stride) of row r at `row` (poison when the table
  /// holds every real id).
  void Fill(int32_t r, int32_t width, int64_t stride, int32_t* row) const {
    if (ids_.empty()) {
      std::fill(row + width, row + stride, kPoisonBlock);
      return;
    }
    // One period (the ids from this row's own start), then doubling copies.
    const int64_t total = stride - width, count = static_cast<int64_t>(ids_.size());
    int32_t* out = row + width;
    const int64_t first = std::min(total, count);
    for (int64_t i = 0; i < first; ++i) out[i] = ids_[static_cast<size_t>((r + i) % count)];
    for (int64_t done = first; done < total;) {
      const int64_t chunk = std::min(done - done % count, total - done);
      std::copy_n(out, chunk, out + done);
      done += chunk;
    }
  }

 private:
  static constexpr int64_t kFillers = 16;
  std::vector<int32_t> ids_;  // real ids no row holds
};

}  // namespace

TableShape ShapeTable(TableLayoutKind kind, const Batch& batch, const Group& group, int32_t rows) {
  const int64_t padded = PaddedRowStride(batch, group);
  // Room (poison) for R rows even when a persistent table has fewer: a
  // kernel that reads row r instead of idx_mapping[r] stays inside.
  rows = std::max(rows, batch.num_reqs());
  TableShape shape;
  if (kind == TableLayoutKind::kTight) {
    shape.row_stride = std::max<int32_t>(LaidOutWidth(group), 1);
    // The last row reaches as far as a padded row: padded - width poison entries after it.
    shape.entries = rows > 0 ? int64_t{rows - 1} * shape.row_stride + std::max(padded, shape.row_stride) : 0;
  } else {
    shape.row_stride = padded;
    shape.entries = int64_t{rows} * padded;
  }
  return shape;
}

TableShape CoverShapes(const TableShape& a, const TableShape& b) {
  TableShape shape;
  shape.row_stride = std::max(a.row_stride, b.row_stride);
  shape.entries = std::max(a.entries, b.entries);
  return shape;
}

void LayOutTable(TableLayoutKind kind, int32_t num_blocks, const Group& group, const BlockTable& table,
                 const TableShape& shape, int32_t* out) {
  const int64_t stride = shape.row_stride;
  auto lay_rows = [&](const Fillers* fillers) {
    for (int32_t r = 0; r < table.rows; ++r) {
      int32_t* row = out + r * stride;
      std::copy_n(table.entries.begin() + static_cast<size_t>(r) * table.width, table.width, row);
      if (fillers) {
        fillers->Fill(r, table.width, stride, row);
      } else {  // padded; tight only with width 0 (stride 1)
        std::fill(row + table.width, row + stride, kPoisonBlock);
      }
    }
  };
  if (kind == TableLayoutKind::kStrided) {
    // From the group's own table (a gathered one holds a subset of its ids):
    // the same fillers MarkOutputReadsPastRow recognises.
    const Fillers fillers(num_blocks, group, group.table);
    lay_rows(&fillers);
  } else {
    lay_rows(nullptr);
  }
  // Past the last row: the tight layout's reach, or a covering shape's slack.
  std::fill(out + std::min<int64_t>(int64_t{table.rows} * stride, shape.entries), out + shape.entries, kPoisonBlock);
}

BlockTable GatheredTable(const Batch& batch, const Group& group) {
  const BlockTable& persistent = group.table;
  BlockTable gathered;
  gathered.rows = batch.num_reqs();
  gathered.width = LaidOutWidth(group);  // a table without rows has no width: the family's minimum
  gathered.entries.assign(static_cast<size_t>(gathered.rows) * gathered.width, -1);
  for (int32_t r = 0; r < gathered.rows; ++r) {
    const int32_t row = batch.row_of(r);
    if (row < 0) continue;  // a dummy request: all -1
    std::copy_n(persistent.entries.begin() + static_cast<size_t>(row) * persistent.width, persistent.width,
                gathered.entries.begin() + static_cast<size_t>(r) * gathered.width);
  }
  return gathered;
}

TableLayout ViewOf(const int32_t* data, const TableShape& shape, int32_t width, int32_t rows) {
  TableLayout layout;
  layout.data = data;
  layout.row_stride = shape.row_stride;
  layout.width = width;
  layout.rows = rows;
  layout.entries = shape.entries;
  return layout;
}

MappingBatch TableReadBatch(const MappingBatch& batch, bool gathered) {
  MappingBatch b = batch;
  if (gathered) b.rows_by_idx_mapping = 0;
  return b;
}

void MarkOutputReadsPastRow(const Scenario& scenario, const Group& group, GroupOutputs* out) {
  // A per-request kind's output is indexed by request (and operation), not
  // by token: row_bounds does not judge it, and a read past a row shows in
  // its own invariants (the poison id is no block of the request's row).
  if (KindModelOf(group).per_request()) return;
  const int64_t slots = SlotsPerEntry(group);
  auto mark_poison = [&] {
    for (const std::vector<int64_t>& o : out->engine) MarkPoisonReads(o, slots, &out->read_past_row);
    for (const std::vector<int64_t>& o : out->flat) MarkPoisonReads(o, slots, &out->read_past_row);
  };
  switch (scenario.table_layout) {
    case TableLayoutKind::kPadded:
      out->row_bounds_evidence = "poison block id in the output";
      mark_poison();
      return;
    case TableLayoutKind::kTight:
      // Past the last row: poison. Past another row: the next row's blocks,
      // which own_block sees.
      out->row_bounds_evidence = "poison block id in the output (past the last row; past another row the next row's blocks: own_block)";
      mark_poison();
      return;
    case TableLayoutKind::kStrided: {
      out->row_bounds_evidence = "a free block id (the strided layout's filler) or poison in the output";
      mark_poison();
      const Fillers fillers(scenario.num_blocks, group, group.table);
      if (fillers.empty()) return;
      // Tokens from num_actual_tokens on copy slot_mapping_in, which may hold anything.
      const size_t n = static_cast<size_t>(std::max<int64_t>(0, scenario.batch.num_actual_tokens));
      auto mark = [&](const std::vector<int64_t>& o) {
        for (size_t t = 0; t < o.size() && t < n && t < out->read_past_row.size(); ++t)
          if (o[t] >= 0 && fillers.Holds(o[t] / slots)) out->read_past_row[t] = 1;
      };
      for (const std::vector<int64_t>& o : out->engine) mark(o);
      for (const std::vector<int64_t>& o : out->flat) mark(o);
      return;
    }
  }
}

}  // namespace slotguard
