// `slotguard bench` GPU part in a build without CUDA.
#include "bench/gpu_bench.h"

namespace slotguard {

bool BenchGpu(const std::vector<int64_t>&, int, std::vector<GpuBenchRow>*, std::string* err) {
  *err = "this slotguard was built without CUDA";
  return false;
}

bool BenchGpuWriters(const std::vector<int64_t>&, int, int32_t, std::vector<WriterBenchRow>*, std::string* err) {
  *err = "this slotguard was built without CUDA";
  return false;
}

}  // namespace slotguard
