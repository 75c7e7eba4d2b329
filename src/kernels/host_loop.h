// The host backend's launcher: runs a family's own per-token functions (the
// same source as the CUDA kernels) in a host loop over the same grid, with a
// CheckedTableView that records every read past a row.
#ifndef SLOTGUARD_KERNELS_HOST_LOOP_H_
#define SLOTGUARD_KERNELS_HOST_LOOP_H_

#include <cstdint>

#include "kernels/geometry.h"
#include "kernels/mapping_batch.h"
#include "kernels/table_view.h"

namespace slotguard {

/// read_past_row: [num_tokens], set to 1 for tokens that read past their row.
template <class F>
void RunOnHost(const typename F::Params& params, const MappingBatch& batch, const TableLayout& table,
               Geometry geometry, const MappingOutputs& out, uint8_t* read_past_row) {
  const CheckedTableView view{table, read_past_row};
  if (geometry == Geometry::kEngine) {
    // Grid: F::EnginePrograms(); one lane per program on the host.
    const int64_t programs = F::EnginePrograms(params, batch);
    for (int64_t program = 0; program < programs; ++program)
      F::EngineProgram(params, batch, view, program, 0, 1, out);
  } else {
    RequestCursor cursor;
    for (int64_t t = 0; t < batch.num_tokens; ++t) F::FlatToken(params, batch, view, t, &cursor, out);
  }
}

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_HOST_LOOP_H_
