// Host backend of the `paged` family: the kernel's own per-token functions
// (paged_slot.h) driven by a host loop that walks the same grid.
#ifndef SLOTGUARD_KERNELS_PAGED_HOST_H_
#define SLOTGUARD_KERNELS_PAGED_HOST_H_

#include <cstdint>

#include "kernels/geometry.h"
#include "kernels/mapping_batch.h"
#include "kernels/paged_slot.h"
#include "kernels/table_view.h"

namespace slotguard {

/// Writes out[0, num_tokens) where the kernel writes; sets read_past_row[t]
/// (size num_tokens) for every token whose table read went past its row.
void RunPagedHost(const PagedParams& params, const MappingBatch& batch, const TableLayout& table,
                  Geometry geometry, int64_t* out, uint8_t* read_past_row);

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_PAGED_HOST_H_
