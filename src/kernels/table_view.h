// How kernels read a block table. Tables are laid out with a padded row
// stride: columns [width, row_stride) of every row hold kPoisonBlock, so a
// kernel that reads past a row stays inside the allocation and the value it
// read is recognisable in its output (the GPU's row_bounds evidence).
//
// PlainTableView is what the GPU kernels use. CheckedTableView (host backend)
// also records, per token, that a read went past the row: the host backend's
// instrumented row_bounds evidence.
#ifndef SLOTGUARD_KERNELS_TABLE_VIEW_H_
#define SLOTGUARD_KERNELS_TABLE_VIEW_H_

#include <cstdint>

#include "kernels/hd.h"

namespace slotguard {

/// Value of every padding column. Never a valid block id: the loader only
/// accepts ids below INT32_MAX.
constexpr int32_t kPoisonBlock = 0x7fffffff;

struct TableLayout {
  const int32_t* data = nullptr;  // [rows * row_stride]
  int64_t row_stride = 0;         // >= width + 1
  int32_t width = 0;              // columns that belong to the row
  int32_t rows = 0;
};

struct PlainTableView {
  TableLayout layout;
  SG_HD int32_t Load(int64_t /*token*/, int32_t row, int64_t col) const {
    return layout.data[row * layout.row_stride + col];
  }
};

struct CheckedTableView {
  TableLayout layout;
  uint8_t* read_past_row = nullptr;  // [num_tokens], set to 1 on a read past the row
  SG_HD int32_t Load(int64_t token, int32_t row, int64_t col) const {
    if (col < 0 || col >= layout.width || row < 0 || row >= layout.rows) {
      read_past_row[token] = 1;
      // Stay inside the padded allocation: report the poison a GPU would read.
      if (col < 0 || col >= layout.row_stride || row < 0 || row >= layout.rows) return kPoisonBlock;
    }
    return layout.data[row * layout.row_stride + col];
  }
};

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_TABLE_VIEW_H_
