// Thin __global__ wrappers over paged_slot.h.
#include "kernels/paged_kernels.h"

namespace slotguard {
namespace {

constexpr int kFlatThreads = 256;
constexpr int kFlatTokensPerThread = 8;
constexpr int64_t kFlatTile = int64_t{kFlatThreads} * kFlatTokensPerThread;

// Grid: (num_reqs + 1,); block: kPagedEngineTile threads, one tile per loop.
__global__ void PagedEngineKernel(PagedParams params, MappingBatch batch, PlainTableView table,
                                  int64_t* __restrict__ out) {
  PagedEngineProgram(params, batch, table, static_cast<int32_t>(blockIdx.x), threadIdx.x,
                     blockDim.x, out);
}

// FindRequest(qsl, num_reqs, t) computed by the whole thread block: every
// round, each thread probes one point of (lo, hi) and __syncthreads_count
// tells how many probes are <= t (qsl is non-decreasing, so the answers are
// monotone), shrinking the range blockDim.x-fold. Two or three rounds for
// 10^5 requests, instead of 17 dependent loads on one thread.
// kThreads is blockDim.x, a power of two, so the probe spacing is a shift.
template <int kThreads>
__device__ int32_t BlockFindRequest(const int32_t* query_start_loc, int32_t num_reqs, int64_t t) {
  static_assert((kThreads & (kThreads - 1)) == 0, "kThreads must be a power of two");
  if (t >= query_start_loc[num_reqs]) return num_reqs;
  int32_t lo = 0, hi = num_reqs;  // qsl[lo] <= t < qsl[hi]
  constexpr int n = kThreads;
  while (hi - lo > 1) {
    const uint64_t span = hi - lo;
    auto probe = [&](uint32_t i) { return lo + 1 + static_cast<int32_t>((span - 1) * i / n); };
    const int count = __syncthreads_count(query_start_loc[probe(threadIdx.x)] <= t);
    if (count == 0) {
      hi = probe(0);
    } else {
      const int32_t new_lo = probe(count - 1);
      hi = count < n ? probe(count) : hi;
      lo = new_lo;
    }
  }
  return lo;
}

// Grid: (cdiv(num_tokens, kFlatTile),) capped, grid-stride over tiles of
// kFlatTile consecutive tokens. The block finds the tile's first request
// together. Each warp then walks its own kFlatTokensPerThread * 32
// consecutive tokens, 32 at a time (coalesced), and each thread's request
// cursor mostly stays valid from one step to the next.
__global__ void __launch_bounds__(kFlatThreads)
    PagedFlatKernel(PagedParams params, MappingBatch batch, PlainTableView table,
                    int64_t* __restrict__ out) {
  const int64_t warp_offset = int64_t{threadIdx.x / 32} * 32 * kFlatTokensPerThread + threadIdx.x % 32;
  for (int64_t start = int64_t{blockIdx.x} * kFlatTile; start < batch.num_tokens;
       start += int64_t{gridDim.x} * kFlatTile) {
    // Issue every position load of the thread before any dependent work.
    int64_t pos[kFlatTokensPerThread];
#pragma unroll
    for (int i = 0; i < kFlatTokensPerThread; ++i) {
      const int64_t t = start + warp_offset + i * 32;
      pos[i] = t < batch.num_tokens ? batch.positions[t] : 0;
    }
    RequestCursor cursor;
    cursor.request = BlockFindRequest<kFlatThreads>(batch.query_start_loc, batch.num_reqs, start);
#pragma unroll
    for (int i = 0; i < kFlatTokensPerThread; ++i) {
      const int64_t t = start + warp_offset + i * 32;
      if (t < batch.num_tokens) PagedFlatToken(params, batch, table, t, pos[i], &cursor, out);
    }
  }
}

}  // namespace

cudaError_t LaunchPaged(const PagedParams& params, const MappingBatch& batch,
                        const TableLayout& table, Geometry geometry, int64_t* out,
                        cudaStream_t stream) {
  const PlainTableView view{table};
  if (geometry == Geometry::kEngine) {
    PagedEngineKernel<<<batch.num_reqs + 1, kPagedEngineTile, 0, stream>>>(params, batch, view,
                                                                         out);
  } else {
    if (batch.num_tokens == 0) return cudaSuccess;
    const int64_t blocks = (batch.num_tokens + kFlatTile - 1) / kFlatTile;
    const unsigned grid = static_cast<unsigned>(blocks < (1LL << 30) ? blocks : (1LL << 30));
    PagedFlatKernel<<<grid, kFlatThreads, 0, stream>>>(params, batch, view, out);
  }
  return cudaGetLastError();
}

}  // namespace slotguard
