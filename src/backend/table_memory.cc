#include "backend/table_memory.h"

#include <algorithm>

#include "scenario/family_params.h"
#include "scenario/table_extent.h"

namespace slotguard {
namespace {

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The strided layout's fillers: for each row, real-looking block ids that
// are not in it. First the other rows' real ids, in table order from the
// row after it (a read past the row then looks like another request's
// block); when the other rows have none left, pseudo-random real ids.
class Fillers {
 public:
  Fillers(int32_t num_blocks, const Group& group, const BlockTable& table) : table_(table) {
    lo_ = NullEntries(group);  // ids below name the null block
    hi_ = std::min<int64_t>(int64_t{num_blocks} * lo_, kPoisonBlock);  // exclusive; the poison id is reserved
    row_start_.reserve(static_cast<size_t>(table.rows) + 1);
    for (int32_t r = 0; r < table.rows; ++r) {
      row_start_.push_back(pool_.size());
      for (int32_t c = 0; c < table.width; ++c)
        if (table.at(r, c) >= lo_) pool_.push_back(table.at(r, c));
    }
    row_start_.push_back(pool_.size());
  }

  /// Fills columns [width, stride) of row r at `row`.
  void Fill(int32_t r, int64_t stride, int32_t* row) {
    own_.assign(table_.entries.begin() + static_cast<size_t>(r) * table_.width,
                table_.entries.begin() + static_cast<size_t>(r + 1) * table_.width);
    std::sort(own_.begin(), own_.end());
    size_t cursor = row_start_[r + 1];
    bool pool_has_other = !pool_.empty();
    for (int64_t c = table_.width; c < stride; ++c) {
      int32_t id = kPoisonBlock;
      // One lap of the pool at most: past that, no id of it is outside the row.
      for (size_t step = 0; pool_has_other && step < pool_.size(); ++step) {
        const int32_t candidate = pool_[cursor++ % pool_.size()];
        if (!InRow(candidate)) {
          id = candidate;
          break;
        }
      }
      if (id == kPoisonBlock) {
        pool_has_other = false;
        id = RandomId(r, c);
      }
      row[c] = id;
    }
  }

 private:
  bool InRow(int64_t id) const { return std::binary_search(own_.begin(), own_.end(), id); }

  // A real id not in the row, from a hash of (row, column); the poison id
  // when every real id is in the row (or there is none: num_blocks 1).
  int32_t RandomId(int32_t r, int64_t c) const {
    const int64_t range = hi_ - lo_;
    if (range <= 0) return kPoisonBlock;
    const uint64_t h = SplitMix64((static_cast<uint64_t>(r) << 32) ^ static_cast<uint64_t>(c));
    const int64_t start = static_cast<int64_t>(h % static_cast<uint64_t>(range));
    // The row holds at most width ids: width + 1 consecutive ones hold one it lacks.
    const int64_t probes = std::min<int64_t>(range, int64_t{table_.width} + 1);
    for (int64_t i = 0; i < probes; ++i) {
      const int64_t id = lo_ + (start + i) % range;
      if (!InRow(id)) return static_cast<int32_t>(id);
    }
    return kPoisonBlock;
  }

  const BlockTable& table_;
  int64_t lo_ = 1, hi_ = 1;          // real ids: [lo_, hi_)
  std::vector<int32_t> pool_;        // every real id of the table, row-major
  std::vector<size_t> row_start_;    // [rows + 1]: where each row's ids start in pool_
  std::vector<int32_t> own_;         // the current row's ids, sorted
};

}  // namespace

TableShape ShapeTable(TableLayoutKind kind, const Batch& batch, const Group& group, int32_t rows) {
  const int64_t padded = PaddedRowStride(batch, group);
  TableShape shape;
  if (kind == TableLayoutKind::kTight) {
    shape.row_stride = std::max<int32_t>(group.table.width, 1);
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
  auto lay_rows = [&](Fillers* fillers) {
    for (int32_t r = 0; r < table.rows; ++r) {
      int32_t* row = out + r * stride;
      std::copy_n(table.entries.begin() + static_cast<size_t>(r) * table.width, table.width, row);
      if (fillers) {
        fillers->Fill(r, stride, row);
      } else {  // padded; tight only with width 0 (stride 1)
        std::fill(row + table.width, row + stride, kPoisonBlock);
      }
    }
  };
  if (kind == TableLayoutKind::kStrided) {
    Fillers fillers(num_blocks, group, table);
    lay_rows(&fillers);
  } else {
    lay_rows(nullptr);
  }
  // Past the last row: the tight layout's reach, or a covering shape's slack.
  std::fill(out + std::min<int64_t>(int64_t{table.rows} * stride, shape.entries), out + shape.entries, kPoisonBlock);
}

BlockTable GatheredTable(const Batch& batch, const BlockTable& persistent) {
  BlockTable gathered;
  gathered.rows = batch.num_reqs();
  gathered.width = persistent.width;
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

bool GathersTable(const MappingProvider& provider, const Batch& batch) {
  return batch.table_rows == TableRows::kIdxMapping && !provider.reads_persistent_tables();
}

TableLayout LaidOutTable::View(const int32_t* data) const { return ViewOf(data, shape, width, rows); }

MappingBatch TableReadBatch(const MappingBatch& batch, bool gathered) {
  MappingBatch b = batch;
  if (gathered) b.rows_by_idx_mapping = 0;
  return b;
}

void LayOutGroupTable(const Scenario& scenario, const Group& group, bool gather, LaidOutTable* laid) {
  laid->gathered = gather;
  if (gather) laid->table = GatheredTable(scenario.batch, group.table);
  const BlockTable& table = gather ? laid->table : group.table;
  laid->shape = ShapeTable(scenario.table_layout, scenario.batch, group, table.rows);
  laid->memory.resize(static_cast<size_t>(laid->shape.entries));
  laid->width = table.width;
  laid->rows = table.rows;
  LayOutTable(scenario.table_layout, scenario.num_blocks, group, table, laid->shape, laid->memory.data());
}

bool PoisonFollowsEveryRow(TableLayoutKind kind) { return kind == TableLayoutKind::kPadded; }

const char* OutputRowBoundsEvidence(TableLayoutKind kind) {
  switch (kind) {
    case TableLayoutKind::kPadded:
      return "poison block id in the output";
    case TableLayoutKind::kTight:
      return "none in the tight layout: a read past the row reads the next row's blocks (own_block)";
    case TableLayoutKind::kStrided:
      return "none in the strided layout: a read past the row reads blocks of other rows (own_block)";
  }
  return "";
}

}  // namespace slotguard
