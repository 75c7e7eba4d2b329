// Thin __global__ wrappers over paged_slot.h.
#include "kernels/paged_kernels.h"

namespace slotguard {
namespace {

constexpr int kFlatThreads = 256;

// Grid: (num_reqs + 1,); block: kPagedEngineTile threads, one tile per loop.
__global__ void PagedEngineKernel(PagedParams params, MappingBatch batch, PlainTableView table,
                                  int64_t* __restrict__ out) {
  PagedEngineProgram(params, batch, table, static_cast<int32_t>(blockIdx.x), threadIdx.x,
                     blockDim.x, out);
}

// Grid: (cdiv(num_tokens, kFlatThreads),) with a grid-stride loop.
__global__ void PagedFlatKernel(PagedParams params, MappingBatch batch, PlainTableView table,
                                int64_t* __restrict__ out) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  int32_t hint = -1;
  for (int64_t t = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; t < batch.num_tokens;
       t += stride)
    PagedFlatToken(params, batch, table, t, &hint, out);
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
    const int64_t blocks = (batch.num_tokens + kFlatThreads - 1) / kFlatThreads;
    const unsigned grid = static_cast<unsigned>(blocks < (1LL << 30) ? blocks : (1LL << 30));
    PagedFlatKernel<<<grid, kFlatThreads, 0, stream>>>(params, batch, view, out);
  }
  return cudaGetLastError();
}

}  // namespace slotguard
