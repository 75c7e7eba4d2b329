#include "plugin/plugin_probe.h"

#include <algorithm>
#include <cstdint>

#include "plugin/abi_provider.h"
#include "plugin/open_provider.h"
#include "util/child_process.h"
#include "util/wire.h"
#include "util/worker_executable.h"
#include "util/error_line.h"

namespace slotguard {
namespace {

// The answer: u8 ok; ok: string name, u32 families (u32 each), u8 has_host,
// u8 has_device, u8 reads_persistent_tables; else string error.
constexpr uint64_t kMaxAnswerBytes = uint64_t{1} << 16;

class Described : public AbiProvider {
 public:
  explicit Described(PluginDescription d) : d_(std::move(d)) {}
  std::string name() const override { return d_.name; }
  const std::vector<Family>& families() const override { return d_.families; }
  bool has_host() const override { return d_.has_host; }
  bool has_device() const override { return d_.has_device; }
  bool reads_persistent_tables() const override { return d_.reads_persistent_tables; }
  bool Launch(const sg_mapping_call&, bool, std::string* err) override {
    *err = d_.name + " runs in the worker processes, not in slotguard's own";
    return false;
  }

 private:
  PluginDescription d_;
};

}  // namespace

std::string PluginDisplayName(const std::string& name, const std::string& path) {
  return "plugin " + name + " (" + EscapeText(path, 0) + ")";
}

bool ProbePlugin(const std::string& path, double timeout_seconds, PluginDescription* out, std::string* err) {
  const std::string where = "--kernel-lib " + EscapeText(path, 0) + ": ";
  const std::string& exe = WorkerExecutable();
  if (exe.empty()) {
    *err = where + "no slotguard executable registered to load the plugin in a child process";
    return false;
  }
  ChildOptions options;
  options.argv = {exe, "__worker", "--describe", "--kernel-lib", path};
  options.stdout_to_stderr = true;  // what the plugin prints never mixes with slotguard's output
  options.stdin_null = true;
  ChildProcess child;
  std::string why;
  if (!SpawnChild(options, &child, &why)) {
    *err = where + "cannot start a process to load it: " + why;
    return false;
  }
  const int timeout_ms =
      timeout_seconds > 0 ? static_cast<int>(std::min<double>(timeout_seconds * 1000, INT32_MAX)) : -1;
  WireBuffer answer;
  bool timed_out = false;
  if (!ReadFrame(child.from, timeout_ms, &answer, &timed_out, kMaxAnswerBytes)) {
    const std::string how = child.Ended(timed_out);
    *err = where + (timed_out ? "loading it did not finish within " +
                                    std::to_string(static_cast<int64_t>(timeout_seconds)) + " s (--timeout)"
                              : "the process loading it " + how) +
           " (in its constructors or slotguard_plugin_info); expected a slotguard plugin that loads and answers";
    return false;
  }
  child.Ended(false);
  uint8_t ok;
  uint32_t count;
  if (!answer.GetU8(&ok)) {
    *err = where + "the process loading it answered nothing";
    return false;
  }
  if (!ok) {
    std::string problem;
    *err = answer.GetString(&problem) ? problem : where + "the process loading it answered a malformed refusal";
    return false;
  }
  PluginDescription d;
  bool fine = answer.GetString(&d.name) && answer.GetU32(&count) && count <= 64;
  for (uint32_t i = 0; fine && i < count; ++i) {
    uint32_t f;
    fine = answer.GetU32(&f) && f < static_cast<uint32_t>(AllFamilies().size());
    if (fine) d.families.push_back(static_cast<Family>(f));
  }
  uint8_t host, device, persistent;
  fine = fine && answer.GetU8(&host) && answer.GetU8(&device) && answer.GetU8(&persistent);
  if (!fine) {
    *err = where + "the process loading it answered a malformed description";
    return false;
  }
  d.has_host = host != 0;
  d.has_device = device != 0;
  d.reads_persistent_tables = persistent != 0;
  *out = std::move(d);
  return true;
}

std::unique_ptr<MappingProvider> DescribedPlugin(const PluginDescription& description) {
  return std::make_unique<Described>(description);
}

int AnswerPluginProbe(const std::string& path) {
  std::string err;
  std::unique_ptr<MappingProvider> plugin = OpenPluginLibrary(path, &err);
  WireBuffer answer;
  answer.PutU8(plugin ? 1 : 0);
  if (!plugin) {
    answer.PutString(err);
  } else {
    answer.PutString(plugin->name());
    answer.PutU32(static_cast<uint32_t>(plugin->families().size()));
    for (Family f : plugin->families()) answer.PutU32(static_cast<uint32_t>(f));
    answer.PutU8(plugin->has_host());
    answer.PutU8(plugin->has_device());
    answer.PutU8(plugin->reads_persistent_tables());
  }
  return WriteFrame(kChildReplyFd, answer) ? 0 : 1;
}

}  // namespace slotguard
