#include "kernels/paged_host.h"

namespace slotguard {

void RunPagedHost(const PagedParams& params, const MappingBatch& batch, const TableLayout& table,
                  Geometry geometry, int64_t* out, uint8_t* read_past_row) {
  const CheckedTableView view{table, read_past_row};
  if (geometry == Geometry::kEngine) {
    // Grid: (num_reqs + 1,), one lane per program on the host.
    for (int32_t program = 0; program <= batch.num_reqs; ++program)
      PagedEngineProgram(params, batch, view, program, 0, 1, out);
  } else {
    RequestCursor cursor;
    for (int64_t t = 0; t < batch.num_tokens; ++t) PagedFlatToken(params, batch, view, t, batch.positions[t], &cursor, out);
  }
}

}  // namespace slotguard
