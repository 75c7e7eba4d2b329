// CUDA kernels of the `kpool_tail` family: the launch layer over kpool_tail_slot.h.
#include "kernels/family_kernels.cuh"
#include "kernels/launchers.h"

namespace slotguard {

cudaError_t LaunchMapping(const KpoolTailParams& params, const MappingBatch& batch, const TableLayout& table,
                   Geometry geometry, const MappingOutputs& out, cudaStream_t stream) {
  return family_kernels::Launch<KpoolTailFamily>(params, batch, table, geometry, out, stream);
}

cudaError_t LaunchMappingBatch(const MappingJob<KpoolTailParams>* jobs, int count, int64_t max_programs,
                               int64_t max_tokens, cudaStream_t stream) {
  return family_kernels::LaunchBatch<KpoolTailFamily>(jobs, count, max_programs, max_tokens, stream);
}

}  // namespace slotguard
