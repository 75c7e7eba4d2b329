// GPU entry points of a build without CUDA (no nvcc at configure time, or
// -DSLOTGUARD_CUDA=OFF): the GPU backend is reported as unusable.
#include "backend/backend.h"
#include "backend/gpu_device.h"

namespace slotguard {

namespace {
const char kNoCuda[] =
    "no usable CUDA device: this slotguard was built without CUDA (nvcc not found at configure "
    "time, or -DSLOTGUARD_CUDA=OFF)";
}  // namespace

bool GpuUsable(std::string* why) {
  *why = kNoCuda;
  return false;
}

bool GpuContextBroken(std::string* /*why*/) { return false; }

std::string GpuDescription() { return ""; }

std::unique_ptr<Backend> MakeGpuBackend(std::string* why) {
  *why = kNoCuda;
  return nullptr;
}

}  // namespace slotguard
