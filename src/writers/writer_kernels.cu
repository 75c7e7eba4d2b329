// The writers' CUDA kernels: thin wrappers over cache_writer.h.
#include <algorithm>

#include "writers/writer_launch.h"

namespace slotguard {
namespace {

// Lane i: word i % words of token i / words.
__global__ void PagedWriterKernel(CacheView cache, WriterJob job, int64_t lanes) {
  const int32_t words = cache.head_bytes / kPayloadWordBytes;
  const int64_t lane = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (lane < lanes) PagedWriterWord(cache, job, lane / words, static_cast<int32_t>(lane % words));
}

// Program p: tokens [p * kRingWriterTile, +kRingWriterTile), the block's
// lanes striding over their (token, word) pairs.
__global__ void RingWriterKernel(CacheView cache, WriterJob job) {
  const int32_t words = cache.head_bytes / kPayloadWordBytes;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kRingWriterTile;
  const int64_t tokens = min(static_cast<int64_t>(kRingWriterTile), job.num_tokens - first);
  for (int64_t i = threadIdx.x; i < tokens * words; i += blockDim.x)
    RingWriterWord(cache, job, first + i / words, static_cast<int32_t>(i % words));
}

}  // namespace

cudaError_t InitCacheOnDevice(const CacheView& cache, cudaStream_t stream) {
  const size_t bytes = static_cast<size_t>(cache.slots) * cache.head_bytes;
  const size_t null_bytes = std::min(static_cast<size_t>(cache.page_slots) * cache.head_bytes, bytes);
  if (bytes == 0) return cudaSuccess;
  const cudaError_t e = cudaMemsetAsync(cache.bytes, kPoisonByte, bytes, stream);
  return e != cudaSuccess ? e : cudaMemsetAsync(cache.bytes, 0, null_bytes, stream);
}

cudaError_t LaunchWriter(WriterKind kind, const CacheView& cache, const WriterJob& job, cudaStream_t stream) {
  if (job.num_tokens == 0) return cudaSuccess;
  if (kind == WriterKind::kPaged) {
    const int64_t lanes = job.num_tokens * (cache.head_bytes / kPayloadWordBytes);
    const int64_t programs = (lanes + kPagedWriterThreads - 1) / kPagedWriterThreads;
    PagedWriterKernel<<<static_cast<unsigned>(programs), kPagedWriterThreads, 0, stream>>>(cache, job, lanes);
  } else {
    const int64_t programs = (job.num_tokens + kRingWriterTile - 1) / kRingWriterTile;
    RingWriterKernel<<<static_cast<unsigned>(programs), kPagedWriterThreads, 0, stream>>>(cache, job);
  }
  return cudaGetLastError();
}

}  // namespace slotguard
