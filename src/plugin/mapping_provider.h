// Slot-mapping implementations slotguard did not write (issue: bring your own
// kernel): a plugin library (--kernel-lib, include/slotguard/plugin.h) or a
// compiled kernel with a launch spec (--kernel-cubin, --kernel-spec). A
// backend given a provider runs it instead of its own kernels for the
// families it implements; everything else stays the same.
#ifndef SLOTGUARD_PLUGIN_MAPPING_PROVIDER_H_
#define SLOTGUARD_PLUGIN_MAPPING_PROVIDER_H_

#include <memory>
#include <string>
#include <vector>

#include "registry/families.h"
#include "scenario/scenario.h"
#include "slotguard/plugin.h"

namespace slotguard {

class MappingProvider {
 public:
  virtual ~MappingProvider() = default;
  /// For reports: "plugin example-rings (build/examples/libx.so)".
  virtual std::string name() const = 0;
  virtual const std::vector<Family>& families() const = 0;
  bool Implements(Family family) const {
    for (Family f : families())
      if (f == family) return true;
    return false;
  }
  /// Whether it runs this group: it replaces slotguard's `fixed` kernel of
  /// its families. A group forcing a historical variant still runs
  /// slotguard's variant: those scenarios test the oracle, not the kernel.
  bool Runs(Family family, Variant variant) const { return Implements(family) && variant == FixedVariant(family); }
  /// Whether it can read a persistent block table (format 2's
  /// batch.table_rows "idx_mapping"): plugin ABI 2 and spec 2 can. One that
  /// cannot is handed the table gathered per request instead, as the v1
  /// runner built it (backend/table_memory.h GatheredTable).
  virtual bool reads_persistent_tables() const { return true; }
  virtual bool has_host() const = 0;
  virtual bool has_device() const = 0;
  /// One mapping call: device pointers and a stream when `device`, host
  /// pointers otherwise. False with *err when the implementation reported
  /// an error (a fault of the implementation, not of the environment).
  /// Launch may be called for many calls on one stream before slotguard
  /// synchronizes: device memory a call needs must stay valid until the
  /// stream's work is done (stream-ordered allocation, or a pool).
  virtual bool Launch(const sg_mapping_call& call, bool device, std::string* err) = 0;

  /// Whether it takes all its groups of a scenario in one call (a kernel
  /// launched over every KV-cache group at once, as vLLM v2's is): the
  /// backends then call LaunchScenario once per scenario, with its groups
  /// in run order, instead of Launch once per group.
  virtual bool takes_whole_scenarios() const { return false; }
  virtual bool LaunchScenario(const std::vector<sg_mapping_call>& calls, bool device, std::string* err) {
    for (const sg_mapping_call& call : calls)
      if (!Launch(call, device, err)) return false;
    return true;
  }

  /// Why it does not take this group of this scenario, or "" when it does:
  /// a compiled kernel specialized for another ring size, a launch
  /// precondition (`num_reqs >= 1`) under which the engine's launcher would
  /// route the batch elsewhere. Such a scenario is reported as skipped,
  /// never as a finding (GroupOutputs::skipped).
  virtual std::string SkipReason(const Scenario& scenario, const Group& group) const {
    (void)scenario;
    (void)group;
    return "";
  }
};

/// Where a provider comes from: what the CLI flags said, and what a worker
/// process is told to open again.
struct ProviderSource {
  std::string kernel_lib;    // --kernel-lib PATH
  std::string kernel_cubin;  // --kernel-cubin FILE (with kernel_spec)
  std::string kernel_spec;   // --kernel-spec SPEC.json
  std::string kernel_cmd;    // --kernel-cmd "COMMAND ARGS": a provider process (backend/provider_backend.h)
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

#endif  // SLOTGUARD_PLUGIN_MAPPING_PROVIDER_H_
