// A --kernel-lib plugin asked what it is from another process. Loading a
// shared library runs its code (constructors, slotguard_plugin_info), and
// code that dereferences NULL or calls _exit(0) there would end slotguard
// itself: exit 139 with no output, or exit 0 having checked nothing. So
// slotguard never loads a plugin before a child process (`slotguard
// __worker --describe`) has loaded it and answered; when isolating it never
// loads it at all, and the worker processes run it.
#ifndef SLOTGUARD_PLUGIN_PLUGIN_PROBE_H_
#define SLOTGUARD_PLUGIN_PLUGIN_PROBE_H_

#include <memory>
#include <string>
#include <vector>

#include "plan/mapping_provider.h"

namespace slotguard {

/// What the parent knows of a plugin: what OpenPluginLibrary made of it in
/// the child.
struct PluginDescription {
  std::string name;  // MappingProvider::name(): "plugin NAME (PATH)"
  std::vector<Family> families;
  bool has_host = false, has_device = false, reads_persistent_tables = true;
};

/// "plugin NAME (PATH)", the path escaped; `name` is the plugin's own name
/// already made ForeignText (one printable line of at most 200 characters).
std::string PluginDisplayName(const std::string& name, const std::string& path);

/// Loads the plugin at `path` in a child process (the worker executable)
/// and reads its description within `timeout_seconds` (0: no limit). False
/// with one line *err "--kernel-lib PATH: ..." when it cannot be loaded or
/// used (OpenPluginLibrary's own refusals), or the child crashed, exited or
/// hung while loading it: bad input (exit 2), never a run.
bool ProbePlugin(const std::string& path, double timeout_seconds, PluginDescription* out, std::string* err);

/// The parent's stand-in for a plugin the worker processes run: its name,
/// families and entry points for the reports, the generator and the
/// backends' checks. Launch is an error: nothing of the plugin runs here.
std::unique_ptr<MappingProvider> DescribedPlugin(const PluginDescription& description);

/// The child's side (`slotguard __worker --describe --kernel-lib PATH`):
/// opens the plugin (OpenPluginLibrary) and writes its description, or the
/// reason it cannot be used, as one frame on the reply fd. Exit 0 when an
/// answer was written.
int AnswerPluginProbe(const std::string& path);

}  // namespace slotguard

#endif  // SLOTGUARD_PLUGIN_PLUGIN_PROBE_H_
