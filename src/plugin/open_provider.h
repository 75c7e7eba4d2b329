// Which implementation the flags name, and opening it: a plugin library
// (--kernel-lib), a compiled kernel (--kernel-cubin with --kernel-spec) or
// a provider process (--kernel-cmd, plugin/provider_processes.h).
#ifndef SLOTGUARD_PLUGIN_OPEN_PROVIDER_H_
#define SLOTGUARD_PLUGIN_OPEN_PROVIDER_H_

#include <memory>
#include <string>
#include <vector>

#include "plan/mapping_provider.h"

namespace slotguard {

/// Where a provider comes from: what the CLI flags said, and what a worker
/// process is told to open again.
struct ProviderSource {
  std::string kernel_lib;    // --kernel-lib PATH
  std::string kernel_cubin;  // --kernel-cubin FILE (with kernel_spec)
  std::string kernel_spec;   // --kernel-spec SPEC.json
  std::string kernel_cmd;    // --kernel-cmd "COMMAND ARGS": provider processes (plugin/provider_processes.h)
  bool empty() const { return kernel_lib.empty() && kernel_cubin.empty() && kernel_spec.empty() && kernel_cmd.empty(); }
  /// The worker's flags for the same provider.
  std::vector<std::string> WorkerArgs() const;
};

/// Opens the provider in this process, or nullptr with a one-line *err
/// (bad input: exit 2): what a worker process does. Its files must be
/// regular files (a FIFO would block).
std::unique_ptr<MappingProvider> OpenProvider(const ProviderSource& source, std::string* err);

/// Opens it for slotguard's own process: a plugin is first loaded in a
/// child process (plugin_probe.h), so that one that crashes, exits or hangs
/// while loading is a one-line error (exit 2); then, only when `in_process`
/// (--no-isolate), loaded here too. Isolated, the result only names the
/// plugin (the worker processes run it). A compiled kernel loads no user
/// code on the host and opens as OpenProvider does.
std::unique_ptr<MappingProvider> OpenProviderForSlotguard(const ProviderSource& source, bool in_process,
                                                          double timeout_seconds, std::string* err);

/// The shared-library plugin (plugin_library.cc).
std::unique_ptr<MappingProvider> OpenPluginLibrary(const std::string& path, std::string* err);

/// The compiled kernel (cubin_kernel.cc; needs the CUDA driver).
std::unique_ptr<MappingProvider> OpenCubinKernel(const std::string& cubin, const std::string& spec,
                                                 std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_PLUGIN_OPEN_PROVIDER_H_
