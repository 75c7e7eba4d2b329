// GPU side of `slotguard bench`: every family's mapping in both geometries
// against a device-to-device copy of the same bytes, measured in the same run.
#ifndef SLOTGUARD_BENCH_GPU_BENCH_H_
#define SLOTGUARD_BENCH_GPU_BENCH_H_

#include <cstdint>
#include <string>
#include <vector>

namespace slotguard {

struct GpuBenchRow {
  std::string family;
  int64_t tokens = 0;
  int32_t requests = 0;
  double bytes = 0;      // bytes the mapping must move: read + written
  double engine_us = 0;  // median per launch
  double flat_us = 0;
  double copy_us = 0;    // cudaMemcpy D2D of bytes/2 (moves `bytes`)
};

bool BenchGpu(const std::vector<int64_t>& sizes, int repeats, std::vector<GpuBenchRow>* rows,
              std::string* err);

/// A cache writer over `tokens` distinct slots (none PAD) of head_bytes each,
/// against a device-to-device copy of the same bytes.
struct WriterBenchRow {
  std::string writer;  // "paged_writer" or "ring_writer"
  int64_t tokens = 0;
  int32_t head_bytes = 0;
  double bytes = 0;      // slot mapping read + payload written
  double writer_us = 0;  // median per launch
  double copy_us = 0;    // cudaMemcpy D2D of bytes/2 (moves `bytes`)
};

bool BenchGpuWriters(const std::vector<int64_t>& sizes, int repeats, int32_t head_bytes,
                     std::vector<WriterBenchRow>* rows, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_BENCH_GPU_BENCH_H_
