// The writers on the host: the grid of writer_kernels.cu as loops.
#include "writers/writer_launch.h"

namespace slotguard {

void RunWriterOnHost(WriterKind kind, const CacheView& cache, const WriterJob& job) {
  if (kind == WriterKind::kPaged) {
    for (int64_t token = 0; token < job.num_tokens; ++token)
      PagedWriterProgram(cache, job, token, 0, 1);
  } else {
    for (int64_t token = 0; token < job.num_tokens; ++token) RingWriterToken(cache, job, token);
  }
}

}  // namespace slotguard
