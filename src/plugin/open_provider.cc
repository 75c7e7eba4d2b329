// Which provider the flags name. In the GPU library: a compiled kernel needs
// CUDA (cubin_kernel.cc, or its no-CUDA twin).
#include "plugin/mapping_provider.h"

namespace slotguard {

std::vector<std::string> ProviderSource::WorkerArgs() const {
  std::vector<std::string> args;
  if (!kernel_lib.empty()) args.insert(args.end(), {"--kernel-lib", kernel_lib});
  if (!kernel_cubin.empty()) args.insert(args.end(), {"--kernel-cubin", kernel_cubin});
  if (!kernel_spec.empty()) args.insert(args.end(), {"--kernel-spec", kernel_spec});
  return args;
}

std::unique_ptr<MappingProvider> OpenProvider(const ProviderSource& source, std::string* err) {
  if (!source.kernel_lib.empty() && !(source.kernel_cubin.empty() && source.kernel_spec.empty())) {
    *err = "--kernel-lib and --kernel-cubin/--kernel-spec: expected one of them, not both";
    return nullptr;
  }
  if (!source.kernel_lib.empty()) return OpenPluginLibrary(source.kernel_lib, err);
  if (source.kernel_cubin.empty() != source.kernel_spec.empty()) {
    *err = source.kernel_cubin.empty() ? "--kernel-spec needs --kernel-cubin FILE beside it"
                                       : "--kernel-cubin needs --kernel-spec SPEC.json beside it";
    return nullptr;
  }
  return OpenCubinKernel(source.kernel_cubin, source.kernel_spec, err);
}

}  // namespace slotguard
