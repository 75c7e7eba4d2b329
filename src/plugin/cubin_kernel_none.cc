// --kernel-cubin in a build without CUDA.
#include "plugin/open_provider.h"

namespace slotguard {

std::unique_ptr<MappingProvider> OpenCubinKernel(const std::string& cubin, const std::string&, std::string* err) {
  *err = "--kernel-cubin " + cubin + ": this slotguard was built without CUDA; expected a build with the GPU backend";
  return nullptr;
}

}  // namespace slotguard
