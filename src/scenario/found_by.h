// How a fuzz reproducer was found: the implementation it ran on, so that it
// reproduces (`replay FILE` uses it when given none) and its replay command
// names it. Paths are as fuzz was given them: relative ones are from the
// folder it ran in.
#ifndef SLOTGUARD_SCENARIO_FOUND_BY_H_
#define SLOTGUARD_SCENARIO_FOUND_BY_H_

#include <cstdint>
#include <string>
#include <vector>

namespace slotguard {

struct FoundBy {
  bool present = false;
  std::string backend;                    // "host" or "gpu": the backend that ran it
  std::string kernel_lib;                 // --kernel-lib
  std::string kernel_cubin, kernel_spec;  // --kernel-cubin, --kernel-spec
  std::string kernel_cmd;                 // --kernel-cmd
  std::vector<std::string> family_files;  // the descriptions of its families that are not built in
  bool writers = false;                   // --writers (its findings may be the memory's)
  int32_t head_bytes = 0;                 // --head-bytes with writers; 0: the default

  /// slotguard's own kernels: no plugin, compiled kernel or provider.
  bool OwnKernels() const { return kernel_lib.empty() && kernel_cubin.empty() && kernel_cmd.empty(); }
  bool operator==(const FoundBy& o) const {
    return present == o.present && backend == o.backend && kernel_lib == o.kernel_lib &&
           kernel_cubin == o.kernel_cubin && kernel_spec == o.kernel_spec && kernel_cmd == o.kernel_cmd &&
           family_files == o.family_files && writers == o.writers && head_bytes == o.head_bytes;
  }
};

/// The implementation flags that select what `found` records, as one
/// shell-quoted text ("--kernel-cmd 'python3 p.py'"); "" for slotguard's
/// own kernels.
std::string ImplementationFlags(const FoundBy& found);

/// A command that reproduces the finding in `file`: `slotguard replay` with
/// the backend, the writers, the family files and the implementation it
/// was found with; `slotguard` is the path this process was run by
/// (util/invoked_as.h), so that the command runs as printed.
std::string ReplayCommand(const FoundBy& found, const std::string& file);

}  // namespace slotguard

#endif  // SLOTGUARD_SCENARIO_FOUND_BY_H_
