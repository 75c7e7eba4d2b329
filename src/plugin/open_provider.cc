// Which provider the flags name. In the GPU library: a compiled kernel needs
// CUDA (cubin_kernel.cc, or its no-CUDA twin).
#include "plugin/open_provider.h"
#include "plugin/plugin_probe.h"
#include "util/error_line.h"
#include "util/output_file.h"

namespace slotguard {
namespace {

/// The implementation's files are regular files: a FIFO would block dlopen
/// or the spec's read forever, a device never ends.
bool RegularFiles(const ProviderSource& source, std::string* err) {
  const struct {
    const char* flag;
    const std::string& path;
    const char* expected;
  } files[] = {{"--kernel-lib", source.kernel_lib, "a slotguard plugin (.so)"},
               {"--kernel-cubin", source.kernel_cubin, "a cubin, fatbin or PTX file"},
               {"--kernel-spec", source.kernel_spec, "a kernel spec (JSON)"}};
  for (const auto& f : files) {
    if (f.path.empty()) continue;
    const std::string problem = NotARegularFile(f.path);
    if (problem.empty()) continue;
    *err = std::string(f.flag) + " " + EscapeText(f.path, 0) + ": " + problem + "; expected " + f.expected;
    return false;
  }
  return true;
}

/// The checks of which flags go together.
bool Combination(const ProviderSource& source, std::string* err) {
  if (!source.kernel_lib.empty() && !(source.kernel_cubin.empty() && source.kernel_spec.empty())) {
    *err = "--kernel-lib and --kernel-cubin/--kernel-spec: expected one of them, not both";
    return false;
  }
  if (source.kernel_lib.empty() && source.kernel_cubin.empty() != source.kernel_spec.empty()) {
    *err = source.kernel_cubin.empty() ? "--kernel-spec needs --kernel-cubin FILE beside it"
                                       : "--kernel-cubin needs --kernel-spec SPEC.json beside it";
    return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> ProviderSource::WorkerArgs() const {
  std::vector<std::string> args;
  if (!kernel_lib.empty()) args.insert(args.end(), {"--kernel-lib", kernel_lib});
  if (!kernel_cubin.empty()) args.insert(args.end(), {"--kernel-cubin", kernel_cubin});
  if (!kernel_spec.empty()) args.insert(args.end(), {"--kernel-spec", kernel_spec});
  return args;
}

std::unique_ptr<MappingProvider> OpenProvider(const ProviderSource& source, std::string* err) {
  if (!Combination(source, err) || !RegularFiles(source, err)) return nullptr;
  if (!source.kernel_lib.empty()) return OpenPluginLibrary(source.kernel_lib, err);
  return OpenCubinKernel(source.kernel_cubin, source.kernel_spec, err);
}

std::unique_ptr<MappingProvider> OpenProviderForSlotguard(const ProviderSource& source, bool in_process,
                                                          double timeout_seconds, std::string* err) {
  if (!Combination(source, err) || !RegularFiles(source, err)) return nullptr;
  if (source.kernel_lib.empty()) return OpenCubinKernel(source.kernel_cubin, source.kernel_spec, err);
  // A plugin is loaded in a child first: one that crashes, exits or hangs
  // while loading is bad input there, never the end of this process.
  PluginDescription description;
  if (!ProbePlugin(source.kernel_lib, timeout_seconds, &description, err)) return nullptr;
  if (!in_process) return DescribedPlugin(description);
  return OpenPluginLibrary(source.kernel_lib, err);
}

}  // namespace slotguard
