// CUDA launchers, one per built-in kernel family (one generated .cu each), overloaded on the parameter type. All pointers are device
// pointers; each returns the launch error, if any.
#ifndef SLOTGUARD_KERNELS_LAUNCHERS_H_
#define SLOTGUARD_KERNELS_LAUNCHERS_H_

#include <cuda_runtime_api.h>

#include "kernels/family_slots.h"  // generated from registry/families.def
#include "kernels/geometry.h"
#include "kernels/mapping_batch.h"
#include "kernels/table_view.h"

namespace slotguard {

// LaunchMapping is overloaded on the family's parameter block.
#define SG_DECLARE_LAUNCHER(Params)                                                            \
  cudaError_t LaunchMapping(const Params& params, const MappingBatch& batch,                 \
                            const TableLayout& table, Geometry geometry, const MappingOutputs& out, \
                            cudaStream_t stream);
#define SG_FAMILY(id, name) SG_DECLARE_LAUNCHER(id##Params)
#include "registry/families.def"
#undef SG_FAMILY
#undef SG_DECLARE_LAUNCHER

// LaunchMappingBatch runs `count` jobs (a device array) of one family in both
// geometries: max_programs / max_tokens are the largest of the jobs.
#define SG_DECLARE_BATCH_LAUNCHER(Params)                                                          \
  cudaError_t LaunchMappingBatch(const MappingJob<Params>* jobs, int count, int64_t max_programs, \
                                 int64_t max_tokens, cudaStream_t stream);
#define SG_FAMILY(id, name) SG_DECLARE_BATCH_LAUNCHER(id##Params)
#include "registry/families.def"
#undef SG_FAMILY
#undef SG_DECLARE_BATCH_LAUNCHER

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_LAUNCHERS_H_
