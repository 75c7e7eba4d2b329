// The launch layer shared by every family: thin __global__ wrappers that run
// a family's per-token functions in its engine geometry or in the flat one.
// A family F provides (see paged_slot.h):
//   F::Params, F::kEngineThreads, F::EnginePrograms(params, batch),
//   F::EngineProgram(params, batch, table, program, lane, lanes, out),
//   F::FlatToken(params, batch, table, t, cursor, out).
// Include only from the .cu file of one family.
#ifndef SLOTGUARD_KERNELS_FAMILY_KERNELS_CUH_
#define SLOTGUARD_KERNELS_FAMILY_KERNELS_CUH_

#include <cuda_runtime_api.h>

#include "kernels/geometry.h"
#include "kernels/mapping_batch.h"
#include "kernels/table_view.h"

namespace slotguard {
namespace family_kernels {

// kFlatThreads, kFlatTokensPerThread and kFlatTile: kernels/geometry.h.

// FindRequest(qsl, num_reqs, t) computed by the whole thread block: every
// round, each thread probes one point of (lo, hi) and __syncthreads_count
// tells how many probes are <= t (qsl is non-decreasing, so the answers are
// monotone), shrinking the range kThreads-fold. Two or three rounds for
// 10^5 requests, instead of 17 dependent loads on one thread. kThreads is
// blockDim.x, a power of two, so the probe spacing is a shift.
template <int kThreads>
__device__ int32_t BlockFindRequest(const int32_t* query_start_loc, int32_t num_reqs, int64_t t) {
  static_assert((kThreads & (kThreads - 1)) == 0, "kThreads must be a power of two");
  if (t >= query_start_loc[num_reqs]) return num_reqs;
  int32_t lo = 0, hi = num_reqs;  // qsl[lo] <= t < qsl[hi]
  while (hi - lo > 1) {
    const uint64_t span = hi - lo;
    auto probe = [&](uint32_t i) { return lo + 1 + static_cast<int32_t>((span - 1) * i / kThreads); };
    const int count = __syncthreads_count(query_start_loc[probe(threadIdx.x)] <= t);
    if (count == 0) {
      hi = probe(0);
    } else {
      const int32_t new_lo = probe(count - 1);
      hi = count < kThreads ? probe(count) : hi;
      lo = new_lo;
    }
  }
  return lo;
}

// Grid: (F::EnginePrograms(),); block: F::kEngineThreads lanes per program.
template <class F>
__global__ void EngineKernel(typename F::Params params, MappingBatch batch, PlainTableView table,
                             MappingOutputs out) {
  F::EngineProgram(params, batch, table, blockIdx.x, threadIdx.x, blockDim.x, out);
}

// One tile of kFlatTile consecutive tokens from `start`, by the whole block.
// The block finds the tile's first request together; each warp then walks its
// own kFlatTokensPerThread * 32 consecutive tokens, 32 at a time (coalesced),
// and each thread's request cursor mostly stays valid from one step to the next.
template <class F>
__device__ void FlatTile(const typename F::Params& params, const MappingBatch& batch,
                         const PlainTableView& table, const MappingOutputs& out, int64_t start) {
  const int64_t warp_offset =
      int64_t{threadIdx.x / 32} * 32 * kFlatTokensPerThread + threadIdx.x % 32;
  RequestCursor cursor;
  cursor.request = BlockFindRequest<kFlatThreads>(batch.query_start_loc, batch.num_reqs, start);
#pragma unroll
  for (int i = 0; i < kFlatTokensPerThread; ++i) {
    const int64_t t = start + warp_offset + i * 32;
    if (t < batch.num_tokens) F::FlatToken(params, batch, table, t, &cursor, out);
  }
}

// Grid: (cdiv(num_tokens, kFlatTile),) capped, grid-stride over the tiles.
template <class F>
__global__ void __launch_bounds__(kFlatThreads)
    FlatKernel(typename F::Params params, MappingBatch batch, PlainTableView table,
               MappingOutputs out) {
  for (int64_t start = int64_t{blockIdx.x} * kFlatTile; start < batch.num_tokens;
       start += int64_t{gridDim.x} * kFlatTile)
    FlatTile<F>(params, batch, table, out, start);
}

// Many scenarios in one launch: blockIdx.y picks the job (one group of one
// scenario); blocks past a job's own programs or tiles return at once.
template <class F>
__global__ void BatchedEngineKernel(const MappingJob<typename F::Params>* jobs) {
  const MappingJob<typename F::Params>& job = jobs[blockIdx.y];
  if (blockIdx.x >= job.engine_programs) return;
  F::EngineProgram(job.params, job.batch, PlainTableView{job.table}, blockIdx.x, threadIdx.x,
                   blockDim.x, job.engine);
}

template <class F>
__global__ void __launch_bounds__(kFlatThreads) BatchedFlatKernel(const MappingJob<typename F::Params>* jobs) {
  const MappingJob<typename F::Params>& job = jobs[blockIdx.y];
  const int64_t start = int64_t{blockIdx.x} * kFlatTile;
  if (start >= job.batch.num_tokens) return;  // uniform per block: no barrier is skipped by half
  FlatTile<F>(job.params, job.batch, PlainTableView{job.table}, job.flat, start);
}

/// Launches family F in `geometry` on `stream`. Returns the launch error.
template <class F>
cudaError_t Launch(const typename F::Params& params, const MappingBatch& batch,
                   const TableLayout& table, Geometry geometry, const MappingOutputs& out,
                   cudaStream_t stream) {
  const PlainTableView view{table};
  if (geometry == Geometry::kEngine) {
    const int64_t programs = F::EnginePrograms(params, batch);
    if (programs <= 0) return cudaSuccess;
    if (programs > 0x7fffffff) return cudaErrorInvalidConfiguration;
    EngineKernel<F><<<static_cast<unsigned>(programs), F::kEngineThreads, 0, stream>>>(params, batch,
                                                                                      view, out);
  } else {
    if (batch.num_tokens == 0) return cudaSuccess;
    const int64_t tiles = CeilDiv(batch.num_tokens, kFlatTile);
    const unsigned grid = static_cast<unsigned>(tiles < (int64_t{1} << 30) ? tiles : (int64_t{1} << 30));
    FlatKernel<F><<<grid, kFlatThreads, 0, stream>>>(params, batch, view, out);
  }
  return cudaGetLastError();
}

/// Launches `count` jobs of family F (device array), both geometries.
template <class F>
cudaError_t LaunchBatch(const MappingJob<typename F::Params>* jobs, int count, int64_t max_programs,
                        int64_t max_tokens, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  if (count > 65535 || max_programs > 0x7fffffff) return cudaErrorInvalidConfiguration;
  if (max_programs > 0)
    BatchedEngineKernel<F><<<dim3(static_cast<unsigned>(max_programs), count), F::kEngineThreads, 0, stream>>>(jobs);
  const int64_t tiles = CeilDiv(max_tokens, kFlatTile);
  if (tiles > 0) BatchedFlatKernel<F><<<dim3(static_cast<unsigned>(tiles), count), kFlatThreads, 0, stream>>>(jobs);
  return cudaGetLastError();
}

}  // namespace family_kernels
}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_FAMILY_KERNELS_CUH_
