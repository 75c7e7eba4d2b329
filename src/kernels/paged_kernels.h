// CUDA launchers of the `paged` family. All pointers are device pointers.
#ifndef SLOTGUARD_KERNELS_PAGED_KERNELS_H_
#define SLOTGUARD_KERNELS_PAGED_KERNELS_H_

#include <cuda_runtime_api.h>

#include "kernels/geometry.h"
#include "kernels/mapping_batch.h"
#include "kernels/paged_slot.h"
#include "kernels/table_view.h"

namespace slotguard {

/// Launches the paged mapping with `geometry` on `stream`, writing out[t]
/// where the kernel writes. Returns the launch error, if any.
cudaError_t LaunchPaged(const PagedParams& params, const MappingBatch& batch,
                        const TableLayout& table, Geometry geometry, int64_t* out,
                        cudaStream_t stream);

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_PAGED_KERNELS_H_
