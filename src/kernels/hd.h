// SG_HD marks per-token math that compiles for both the GPU (nvcc) and the
// host (g++): the host backend runs the very same functions as the kernels.
#ifndef SLOTGUARD_KERNELS_HD_H_
#define SLOTGUARD_KERNELS_HD_H_

#if defined(__CUDACC__)
#define SG_HD __host__ __device__ __forceinline__
#else
#define SG_HD inline
#endif

#endif  // SLOTGUARD_KERNELS_HD_H_
