// --kernel-lib: a shared library speaking include/slotguard/plugin.h.
#include <dlfcn.h>

#include "plugin/mapping_provider.h"
#include "registry/families.h"
#include "util/did_you_mean.h"

namespace slotguard {
namespace {

class PluginLibrary : public MappingProvider {
 public:
  // The library is never unloaded (no dlclose): CUDA code in it stays
  // registered with the runtime until the process ends.
  PluginLibrary(std::string path, std::string name, std::vector<Family> families, sg_plugin_launch_fn device,
                sg_plugin_launch_fn host)
      : path_(std::move(path)), name_(std::move(name)), families_(std::move(families)), device_(device),
        host_(host) {}

  std::string name() const override { return "plugin " + name_ + " (" + path_ + ")"; }
  const std::vector<Family>& families() const override { return families_; }
  bool has_host() const override { return host_ != nullptr; }
  bool has_device() const override { return device_ != nullptr; }

  bool Launch(const sg_mapping_call& call, bool device, std::string* err) override {
    sg_plugin_launch_fn fn = device ? device_ : host_;
    const int status = fn(&call);
    if (status == 0) return true;
    *err = "plugin " + name_ + ": slotguard_plugin_launch_" + (device ? "device" : "host") + " returned " +
           std::to_string(status) + " for family " + call.family;
    return false;
  }

 private:
  std::string path_, name_;
  std::vector<Family> families_;
  sg_plugin_launch_fn device_, host_;
};

}  // namespace

std::unique_ptr<MappingProvider> OpenPluginLibrary(const std::string& path, std::string* err) {
  const std::string where = "--kernel-lib " + path + ": ";
  // A path without a slash would be searched for on the library path.
  const std::string open_path = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    *err = where + "cannot load the library: " + (why ? why : "unknown error") + "; expected a slotguard plugin (.so)";
    return nullptr;
  }
  auto info_fn = reinterpret_cast<sg_plugin_info_fn>(dlsym(handle, "slotguard_plugin_info"));
  auto device = reinterpret_cast<sg_plugin_launch_fn>(dlsym(handle, "slotguard_plugin_launch_device"));
  auto host = reinterpret_cast<sg_plugin_launch_fn>(dlsym(handle, "slotguard_plugin_launch_host"));
  if (!info_fn) {
    *err = where + "not a slotguard plugin; expected an exported slotguard_plugin_info (see include/slotguard/plugin.h)";
    return nullptr;
  }
  const sg_plugin_info* info = info_fn();
  if (!info) {
    *err = where + "slotguard_plugin_info() returned NULL; expected its sg_plugin_info";
    return nullptr;
  }
  if (info->abi_version != SLOTGUARD_PLUGIN_ABI_VERSION) {
    *err = where + "plugin ABI version " + std::to_string(info->abi_version) + "; expected " +
           std::to_string(SLOTGUARD_PLUGIN_ABI_VERSION) + " (rebuild it against this slotguard's plugin.h)";
    return nullptr;
  }
  const std::string name = info->name ? info->name : "unnamed";
  if (!device) {
    *err = where + "plugin " + name + " exports no slotguard_plugin_launch_device; expected it (required)";
    return nullptr;
  }
  std::vector<Family> families;
  for (const char* const* f = info->families; f && *f; ++f) {
    Family family;
    std::string problem;
    if (!FindFamily(*f, &family, &problem)) {
      *err = where + "plugin " + name + " lists " + problem;
      return nullptr;
    }
    families.push_back(family);
  }
  if (families.empty()) {
    *err = where + "plugin " + name + " implements no family; expected at least one in sg_plugin_info.families";
    return nullptr;
  }
  return std::make_unique<PluginLibrary>(path, name, std::move(families), device, host);
}

}  // namespace slotguard
