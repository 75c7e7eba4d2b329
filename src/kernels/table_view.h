// How kernels read a block table. The backends lay each table out in the
// scenario's table_layout (plan/table_memory.h): a row stride that may
// equal the width (tight) or exceed it, with poison (padded) or other rows'
// block ids (strided) in the columns between. A read past a row, up to the
// farthest column a position selects (at most kMaxPoisonColumns past the
// width), stays inside the allocation in every layout; in the padded one the
// value it read is recognisable in the output (the GPU's row_bounds
// evidence). A read farther than that, or before the table, loads the
// poison instead of leaving the allocation, on both backends: slotguard's
// own kernels never fault, so one far read does not end a batched launch of
// thousands of scenarios (an engine's kernel would read garbage or fault;
// the reference comparison judges the poison the same way).
//
// PlainTableView is what the GPU kernels use. CheckedTableView (host backend)
// also records, per token, that a read went past the row: the host backend's
// instrumented row_bounds evidence, in every layout.
#ifndef SLOTGUARD_KERNELS_TABLE_VIEW_H_
#define SLOTGUARD_KERNELS_TABLE_VIEW_H_

#include <cstdint>

#include "kernels/hd.h"

namespace slotguard {

/// Value of every poison entry (the padded layout's columns past each row,
/// the tight layout's entries past the last row). Never a valid block id:
/// the loader only accepts ids below INT32_MAX.
constexpr int32_t kPoisonBlock = 0x7fffffff;

struct TableLayout {
  const int32_t* data = nullptr;  // [entries]
  int64_t row_stride = 0;         // >= width, and >= 1
  int32_t width = 0;              // columns that belong to the row
  int32_t rows = 0;
  int64_t entries = 0;            // the allocation: >= rows * row_stride
};

/// Whether (row, col) lies outside the rows or the allocation: the load
/// returns the poison there. Tested before the multiply, so that a column
/// near INT64_MAX cannot overflow the address.
SG_HD bool OutsideTable(const TableLayout& layout, int32_t row, int64_t col) {
  return col < 0 || col >= layout.entries || row < 0 || row >= layout.rows ||
         row * layout.row_stride + col >= layout.entries;
}

struct PlainTableView {
  TableLayout layout;
  SG_HD int32_t Load(int64_t /*token*/, int32_t row, int64_t col) const {
    if (OutsideTable(layout, row, col)) return kPoisonBlock;
    return layout.data[row * layout.row_stride + col];
  }
};

struct CheckedTableView {
  TableLayout layout;
  uint8_t* read_past_row = nullptr;  // [num_tokens], set to 1 on a read past the row
  SG_HD int32_t Load(int64_t token, int32_t row, int64_t col) const {
    if (col < 0 || col >= layout.width || row < 0 || row >= layout.rows) {
      read_past_row[token] = 1;
      // What a GPU reads there (poison, the next row, a filler); never a
      // read outside the allocation: the poison instead.
      if (OutsideTable(layout, row, col)) return kPoisonBlock;
    }
    return layout.data[row * layout.row_stride + col];
  }
};

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_TABLE_VIEW_H_
