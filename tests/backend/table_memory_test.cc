// The table layouts in memory (plan/table_memory.h): what each layout
// puts where, the gathered table of ABI-1 providers, and the host's checked
// reads past a row in every layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "plan/table_memory.h"
#include "family/group_model.h"
#include "scenario/table_extent.h"
#include "testing/scenario_fixtures.h"

namespace slotguard {
namespace {

// Three requests of 2-column rows; request 0 reaches column 4 (pos 17 / 4).
const char* kThreeRows = R"({"slotguard": 2, "name": "t", "num_blocks": 16,
  "batch": {"query_start_loc": [0, 2, 3, 4], "positions": [1, 17, 2, 5]},
  "groups": [{"name": "attn", "kernel": "paged", "block_size": 4,
              "block_table": [[3, 5], [2, 9], [6, 11]]}]})";

std::vector<int32_t> Lay(TableLayoutKind kind, const Scenario& s, TableShape* shape) {
  const Group& g = s.groups[0];
  *shape = ShapeTable(kind, s.batch, g, g.table.rows);
  std::vector<int32_t> memory(static_cast<size_t>(shape->entries), -7);
  LayOutTable(kind, s.num_blocks, g, g.table, *shape, memory.data());
  return memory;
}

TEST(TableMemoryTest, PaddedPoisonsEveryRowUpToTheReach) {
  const Scenario s = ParseTestScenario(kThreeRows);
  TableShape shape;
  const std::vector<int32_t> m = Lay(TableLayoutKind::kPadded, s, &shape);
  EXPECT_EQ(PaddedRowStride(s.batch, s.groups[0]), shape.row_stride);
  EXPECT_EQ(6, shape.row_stride);  // columns 0..4 reachable, plus one
  const int32_t P = kPoisonBlock;
  EXPECT_EQ(std::vector<int32_t>({3, 5, P, P, P, P, 2, 9, P, P, P, P, 6, 11, P, P, P, P}), m);
}

TEST(TableMemoryTest, TightRowsFollowEachOtherAndPoisonFollowsTheLastRow) {
  const Scenario s = ParseTestScenario(kThreeRows);
  TableShape shape;
  const std::vector<int32_t> m = Lay(TableLayoutKind::kTight, s, &shape);
  EXPECT_EQ(2, shape.row_stride);
  // The last row, read as far as a padded row: padded stride - width poison entries after it.
  EXPECT_EQ(2 * 2 + PaddedRowStride(s.batch, s.groups[0]), shape.entries);
  const int32_t P = kPoisonBlock;
  EXPECT_EQ(std::vector<int32_t>({3, 5, 2, 9, 6, 11, P, P, P, P}), m);
  // Any row's read up to the farthest column stays inside the allocation.
  EXPECT_LT(2 * shape.row_stride + 4, shape.entries);
}

TEST(TableMemoryTest, TightWidthZeroHasStrideOneAndOnlyPoison) {
  const Scenario s = ParseTestScenario(R"({"slotguard": 2, "name": "t", "num_blocks": 4,
    "batch": {"query_start_loc": [0, 1, 2], "positions": [0, 9]},
    "groups": [{"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[], []]}]})");
  TableShape shape;
  const std::vector<int32_t> m = Lay(TableLayoutKind::kTight, s, &shape);
  EXPECT_EQ(1, shape.row_stride);
  EXPECT_EQ(1 + PaddedRowStride(s.batch, s.groups[0]), shape.entries);
  EXPECT_EQ(std::vector<int32_t>(m.size(), kPoisonBlock), m);
}

TEST(TableMemoryTest, StridedFillersAreRealIdsNoRowHolds) {
  const Scenario s = ParseTestScenario(kThreeRows);
  TableShape shape;
  const std::vector<int32_t> m = Lay(TableLayoutKind::kStrided, s, &shape);
  const Group& g = s.groups[0];
  ASSERT_EQ(PaddedRowStride(s.batch, g), shape.row_stride);
  ASSERT_GT(shape.row_stride, g.table.width);
  for (int32_t r = 0; r < g.table.rows; ++r) {
    for (int32_t c = 0; c < g.table.width; ++c) EXPECT_EQ(g.table.at(r, c), m[r * shape.row_stride + c]);
    for (int64_t c = g.table.width; c < shape.row_stride; ++c) {
      const int32_t id = m[r * shape.row_stride + c];
      EXPECT_TRUE(id >= 1 && id < s.num_blocks) << "row " << r << " col " << c << ": " << id;
      // A free block: no row holds it, so a read past any row is own_block.
      EXPECT_EQ(g.table.entries.end(), std::find(g.table.entries.begin(), g.table.entries.end(), id)) << id;
    }
  }
  // The ids past the largest the table holds (11), each row from its own start.
  EXPECT_EQ(12, m[2]);
  EXPECT_EQ(13, m[3]);
  EXPECT_EQ(13, m[shape.row_stride + 2]);
  // The same scenario lays out the same memory.
  TableShape again;
  EXPECT_EQ(m, Lay(TableLayoutKind::kStrided, s, &again));
}

TEST(TableMemoryTest, StridedFillersOfAHybridGroupAreRealKernelBlocks) {
  // Manager block 8 = 2 kernel blocks: ids 0 and 1 name the null block; the
  // free kernel blocks are 4 and 5.
  const Scenario s = ParseTestScenario(R"({"slotguard": 2, "name": "t", "num_blocks": 3,
    "batch": {"query_start_loc": [0, 1], "positions": [60]},
    "groups": [{"name": "hyb", "kernel": "paged", "block_size": 8, "kernel_block_size": 4,
                "block_table": [[2, 3]]}]})");
  const Group& g = s.groups[0];
  ASSERT_EQ(2, NullEntries(g));
  TableShape shape;
  const std::vector<int32_t> m = Lay(TableLayoutKind::kStrided, s, &shape);
  ASSERT_GT(shape.row_stride, 2);
  for (int64_t c = 2; c < shape.row_stride; ++c)
    EXPECT_TRUE(m[c] == 4 || m[c] == 5) << "col " << c << ": " << m[c];  // [2, 6) minus the row's 2, 3
}

TEST(TableMemoryTest, StridedFillersArePoisonWhenNoRealIdIsLeft) {
  const Scenario s = ParseTestScenario(R"({"slotguard": 2, "name": "t", "num_blocks": 2,
    "batch": {"query_start_loc": [0, 1], "positions": [9]},
    "groups": [{"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[1]]}]})");
  TableShape shape;
  const std::vector<int32_t> m = Lay(TableLayoutKind::kStrided, s, &shape);
  EXPECT_EQ(1, m[0]);
  for (int64_t c = 1; c < shape.row_stride; ++c) EXPECT_EQ(kPoisonBlock, m[c]);
}

TEST(TableMemoryTest, TheGatheredTableHoldsEachRequestsRowAndAllMinusOneForADummy) {
  const Scenario s = ParseTestScenario(R"({"slotguard": 2, "name": "t", "num_blocks": 16,
    "batch": {"query_start_loc": [0, 1, 2, 3], "table_rows": "idx_mapping", "idx_mapping": [2, -1, 0]},
    "groups": [{"name": "attn", "kernel": "paged", "block_size": 4,
                "block_table": [[3, 5], [2, 9], [6, 11]]}]})");
  const BlockTable gathered = GatheredTable(s.batch, s.groups[0]);
  EXPECT_EQ(3, gathered.rows);
  EXPECT_EQ(2, gathered.width);
  EXPECT_EQ(std::vector<int32_t>({6, 11, -1, -1, 3, 5}), gathered.entries);
  MappingBatch by_idx;
  by_idx.rows_by_idx_mapping = 1;
  EXPECT_EQ(0, TableReadBatch(by_idx, /*gathered=*/true).rows_by_idx_mapping);
  EXPECT_EQ(1, TableReadBatch(by_idx, /*gathered=*/false).rows_by_idx_mapping);
  const TableShape shape = ShapeTable(s.table_layout, s.batch, s.groups[0], gathered.rows);
  std::vector<int32_t> memory(static_cast<size_t>(shape.entries));
  LayOutTable(s.table_layout, s.num_blocks, s.groups[0], gathered, shape, memory.data());
  EXPECT_EQ(6, memory[0]);
  LayOutTable(s.table_layout, s.num_blocks, s.groups[0], s.groups[0].table, shape, memory.data());
  EXPECT_EQ(3, memory[0]);
}

TEST(TableMemoryTest, CheckedReadsPastTheRowAreFlaggedInEveryLayoutAndStayInside) {
  const Scenario s = ParseTestScenario(kThreeRows);
  for (TableLayoutKind kind : {TableLayoutKind::kPadded, TableLayoutKind::kTight, TableLayoutKind::kStrided}) {
    SCOPED_TRACE(TableLayoutName(kind));
    Scenario laid_out = s;
    laid_out.table_layout = kind;
    const Group& group = s.groups[0];
    const TableShape shape = ShapeTable(kind, s.batch, group, group.table.rows);
    std::vector<int32_t> memory(static_cast<size_t>(shape.entries));
    LayOutTable(kind, s.num_blocks, group, group.table, shape, memory.data());
    uint8_t read_past_row[2] = {0, 0};
    const CheckedTableView view{ViewOf(memory.data(), shape, group.table.width, group.table.rows), read_past_row};
    EXPECT_EQ(5, view.Load(0, 0, 1));
    EXPECT_EQ(0, read_past_row[0]);
    // Past row 0: what the memory holds there (the next row in tight).
    EXPECT_EQ(memory[2], view.Load(1, 0, 2));
    EXPECT_EQ(1, read_past_row[1]);
    if (kind == TableLayoutKind::kTight) {
      EXPECT_EQ(2, view.Load(1, 0, 2));
    }
    if (kind == TableLayoutKind::kPadded) {
      EXPECT_EQ(kPoisonBlock, view.Load(1, 0, 2));
    }
    // Far past the allocation, and rows that do not exist: the poison, never a read outside.
    EXPECT_EQ(kPoisonBlock, view.Load(1, 2, int64_t{1} << 40));
    EXPECT_EQ(kPoisonBlock, view.Load(1, 3, 0));
    EXPECT_EQ(kPoisonBlock, view.Load(1, -1, 0));
  }
}

// The GPU kernels' view: no record of the read, but the same values, so a
// column past the laid-out room (a position near 2^62 through a kernel
// without its range guard) loads the poison instead of faulting the launch,
// and a column near INT64_MAX does not overflow the address.
TEST(TableMemoryTest, PlainReadsLoadWhatCheckedReadsLoadAndNeverLeaveTheAllocation) {
  const Scenario s = ParseTestScenario(kThreeRows);
  for (TableLayoutKind kind : {TableLayoutKind::kPadded, TableLayoutKind::kTight, TableLayoutKind::kStrided}) {
    SCOPED_TRACE(TableLayoutName(kind));
    const Group& group = s.groups[0];
    const TableShape shape = ShapeTable(kind, s.batch, group, group.table.rows);
    std::vector<int32_t> memory(static_cast<size_t>(shape.entries));
    LayOutTable(kind, s.num_blocks, group, group.table, shape, memory.data());
    const TableLayout layout = ViewOf(memory.data(), shape, group.table.width, group.table.rows);
    uint8_t read_past_row[1] = {0};
    const CheckedTableView checked{layout, read_past_row};
    const PlainTableView plain{layout};
    for (int32_t row : {-1, 0, 1, 2, 3})
      for (int64_t col : {int64_t{-1}, int64_t{0}, int64_t{1}, int64_t{2}, int64_t{4}, shape.entries,
                          int64_t{1} << 40, std::numeric_limits<int64_t>::max()})
        EXPECT_EQ(checked.Load(0, row, col), plain.Load(0, row, col)) << "row " << row << " column " << col;
    EXPECT_EQ(kPoisonBlock, plain.Load(0, 0, std::numeric_limits<int64_t>::max()));
    EXPECT_EQ(kPoisonBlock, plain.Load(0, 2, int64_t{1} << 40));
  }
}

}  // namespace
}  // namespace slotguard
