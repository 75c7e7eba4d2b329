#include "scenario/found_by.h"

#include "util/invoked_as.h"
#include "util/shell_quote.h"

namespace slotguard {

std::string ImplementationFlags(const FoundBy& f) {
  if (!f.kernel_cmd.empty()) return "--kernel-cmd " + ShellQuote(f.kernel_cmd);
  if (!f.kernel_lib.empty()) return "--kernel-lib " + ShellQuote(f.kernel_lib);
  if (!f.kernel_cubin.empty())
    return "--kernel-cubin " + ShellQuote(f.kernel_cubin) + " --kernel-spec " + ShellQuote(f.kernel_spec);
  return "";
}

std::string ReplayCommand(const FoundBy& f, const std::string& file) {
  std::string command = InvokedAsWord() + " replay";
  if (f.present) {
    if (!f.backend.empty()) command += " --backend " + ShellQuote(f.backend);
    if (f.writers) {
      command += " --writers";
      if (f.head_bytes > 0) command += " --head-bytes " + std::to_string(f.head_bytes);
    }
    for (const std::string& family : f.family_files) command += " --family-file " + ShellQuote(family);
    const std::string flags = ImplementationFlags(f);
    if (!flags.empty()) command += " " + flags;
  }
  // A file name that starts with '-' is still the file.
  return command + (file.size() > 0 && file[0] == '-' ? " -- " : " ") + ShellQuote(file);
}

}  // namespace slotguard
