// Running the cache writers: CUDA launchers (device pointers) and their host
// twins, which call the same per-token functions (cache_writer.h).
#ifndef SLOTGUARD_WRITERS_WRITER_LAUNCH_H_
#define SLOTGUARD_WRITERS_WRITER_LAUNCH_H_

#include "writers/cache_writer.h"

#if defined(SLOTGUARD_HAVE_CUDA) || defined(__CUDACC__)
#include <cuda_runtime_api.h>
#endif

namespace slotguard {

enum class WriterKind { kPaged, kRing };

#if defined(SLOTGUARD_HAVE_CUDA) || defined(__CUDACC__)
/// Grid: ceil(num_tokens * words / kPagedWriterThreads) (paged) or
/// ceil(num_tokens / kRingWriterTile) (ring).
cudaError_t LaunchWriter(WriterKind kind, const CacheView& cache, const WriterJob& job, cudaStream_t stream);

/// Puts a device pool in its before-the-run state (FillInitialCache's twin):
/// block 0 all zero, every other byte kPoisonByte.
cudaError_t InitCacheOnDevice(const CacheView& cache, cudaStream_t stream);
#endif

/// The same writer on the host, over the same grid.
void RunWriterOnHost(WriterKind kind, const CacheView& cache, const WriterJob& job);

}  // namespace slotguard

#endif  // SLOTGUARD_WRITERS_WRITER_LAUNCH_H_
