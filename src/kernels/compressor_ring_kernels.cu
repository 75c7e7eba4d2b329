// CUDA kernels of the `compressor_ring` family: the launch layer over compressor_ring_slot.h.
#include "kernels/family_kernels.cuh"
#include "kernels/launchers.h"

namespace slotguard {

cudaError_t LaunchMapping(const CompressorRingParams& params, const MappingBatch& batch, const TableLayout& table,
                   Geometry geometry, const MappingOutputs& out, cudaStream_t stream) {
  return family_kernels::Launch<CompressorRingFamily>(params, batch, table, geometry, out, stream);
}

cudaError_t LaunchMappingBatch(const MappingJob<CompressorRingParams>* jobs, int count, int64_t max_programs,
                               int64_t max_tokens, cudaStream_t stream) {
  return family_kernels::LaunchBatch<CompressorRingFamily>(jobs, count, max_programs, max_tokens, stream);
}

}  // namespace slotguard
