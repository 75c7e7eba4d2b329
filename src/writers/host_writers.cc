// The writers on the host: the grid of writer_kernels.cu as loops.
#include "writers/writer_launch.h"

namespace slotguard {

void RunWriterOnHost(WriterKind kind, const CacheView& cache, const WriterJob& job) {
  const int32_t words = cache.head_bytes / kPayloadWordBytes;
  for (int64_t token = 0; token < job.num_tokens; ++token)
    for (int32_t w = 0; w < words; ++w) {
      if (kind == WriterKind::kPaged) {
        PagedWriterWord(cache, job, token, w);
      } else {
        RingWriterWord(cache, job, token, w);
      }
    }
}

}  // namespace slotguard
