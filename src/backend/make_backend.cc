// Backend selection: `auto` takes the GPU when one is usable.
#include "backend/backend.h"

namespace slotguard {

std::unique_ptr<Backend> MakeBackend(BackendKind kind, std::string* why) {
  if (kind == BackendKind::kHost) return MakeHostBackend();
  std::unique_ptr<Backend> gpu = MakeGpuBackend(why);
  if (gpu || kind == BackendKind::kGpu) return gpu;
  return MakeHostBackend();
}

}  // namespace slotguard
