// The writers' CUDA kernels: thin wrappers over cache_writer.h.
#include "writers/writer_launch.h"

namespace slotguard {
namespace {

__global__ void PagedWriterKernel(CacheView cache, WriterJob job) {
  PagedWriterProgram(cache, job, blockIdx.x, threadIdx.x, blockDim.x);
}

__global__ void RingWriterKernel(CacheView cache, WriterJob job) {
  const int64_t token = static_cast<int64_t>(blockIdx.x) * kRingWriterTile + threadIdx.x;
  if (token < job.num_tokens) RingWriterToken(cache, job, token);
}

}  // namespace

cudaError_t LaunchWriter(WriterKind kind, const CacheView& cache, const WriterJob& job, cudaStream_t stream) {
  if (job.num_tokens == 0) return cudaSuccess;
  if (kind == WriterKind::kPaged) {
    PagedWriterKernel<<<static_cast<unsigned>(job.num_tokens), kPagedWriterThreads, 0, stream>>>(cache, job);
  } else {
    const int64_t programs = (job.num_tokens + kRingWriterTile - 1) / kRingWriterTile;
    RingWriterKernel<<<static_cast<unsigned>(programs), kRingWriterTile, 0, stream>>>(cache, job);
  }
  return cudaGetLastError();
}

}  // namespace slotguard
