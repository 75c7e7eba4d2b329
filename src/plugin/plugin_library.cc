// --kernel-lib: a shared library speaking include/slotguard/plugin.h.
#include <dlfcn.h>

#include <slotguard/plugin_v1.h>

#include "plugin/abi_provider.h"
#include "plugin/open_provider.h"
#include "family/group_model.h"
#include "plugin/plugin_probe.h"
#include "registry/families.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"

namespace slotguard {
namespace {

class PluginLibrary : public AbiProvider {
 public:
  // The library is never unloaded (no dlclose): CUDA code in it stays
  // registered with the runtime until the process ends.
  PluginLibrary(std::string path, std::string name, uint32_t abi, std::vector<Family> families, void* device,
                void* host)
      : path_(std::move(path)), name_(std::move(name)), abi_(abi), families_(std::move(families)), device_(device),
        host_(host) {}

  std::string name() const override { return PluginDisplayName(name_, path_); }
  const std::vector<Family>& families() const override { return families_; }
  bool has_host() const override { return host_ != nullptr; }
  bool reads_persistent_tables() const override { return abi_ != SLOTGUARD_PLUGIN_V1_ABI_VERSION; }
  bool has_device() const override { return device_ != nullptr; }

  bool Launch(const sg_mapping_call& call, bool device, std::string* err) override {
    void* fn = device ? device_ : host_;
    int status;
    if (abi_ == SLOTGUARD_PLUGIN_V1_ABI_VERSION) {
      if (call.block_table_rows_by_idx_mapping) {  // a safety net: the backends hand it the gathered table
        *err = "plugin " + name_ + " is built against plugin ABI 1, which has no persistent block tables "
               "(batch.table_rows \"idx_mapping\"); rebuild it against this slotguard's plugin.h (ABI 2)";
        return false;
      }
      const sg_mapping_call_v1 v1 = ToVersion1(call);
      status = reinterpret_cast<sg_plugin_launch_v1_fn>(fn)(&v1);
    } else {
      sg_mapping_call own = call;
      own.abi_version = abi_;  // the plugin's own version: an ABI-2 plugin may check it
      status = reinterpret_cast<sg_plugin_launch_fn>(fn)(&own);
    }
    if (status == 0) return true;
    *err = "plugin " + name_ + ": slotguard_plugin_launch_" + (device ? "device" : "host") + " returned " +
           std::to_string(status) + " for family " + call.family;
    return false;
  }

 private:
  /// The same call as ABI 1 lays it out: seq_lens as int32 (saturated).
  static sg_mapping_call_v1 ToVersion1(const sg_mapping_call& c) {
    sg_mapping_call_v1 v{};
    v.abi_version = SLOTGUARD_PLUGIN_V1_ABI_VERSION;
    v.family = c.family;
    v.variant = c.variant;
    v.query_start_loc = c.query_start_loc;
    v.positions = c.positions;
    v.seq_lens = c.seq_lens_i32;
    v.idx_mapping = c.idx_mapping;
    v.slot_mapping_in = c.slot_mapping_in;
    v.num_reqs = c.num_reqs;
    v.num_actual_tokens = c.num_actual_tokens;
    v.num_tokens = c.num_tokens;
    v.block_table = c.block_table;
    v.block_table_row_stride = c.block_table_row_stride;
    v.block_table_width = c.block_table_width;
    v.block_table_rows = c.block_table_rows;
    v.slot_mapping = c.slot_mapping;
    v.tail_slot_mapping = c.tail_slot_mapping;
    v.paged.block_size = c.paged.block_size;
    v.paged.kernel_block_size = c.paged.kernel_block_size;
    v.paged.dcp_world = c.paged.dcp_world;
    v.paged.dcp_rank = c.paged.dcp_rank;
    v.paged.dcp_interleave = c.paged.dcp_interleave;
    v.paged.enabled = c.paged.enabled;
    v.kpool_tail.kpool = c.kpool_tail.kpool;
    v.qsa_ring.ring = c.qsa_ring.ring;
    v.qsa_compressed.block_size = c.qsa_compressed.block_size;
    v.qsa_compressed.compress_ratio = c.qsa_compressed.compress_ratio;
    v.qsa_compressed.common_slot_mapping = c.qsa_compressed.common_slot_mapping;
    v.compressor_ring.capacity = c.compressor_ring.capacity;
    v.compressor_ring.ring_block_size = c.compressor_ring.ring_block_size;
    v.stream = c.stream;
    return v;
  }

  std::string path_, name_;
  uint32_t abi_;
  std::vector<Family> families_;
  void* device_;
  void* host_;
};

}  // namespace

std::unique_ptr<MappingProvider> OpenPluginLibrary(const std::string& path, std::string* err) {
  const std::string where = "--kernel-lib " + EscapeText(path, 0) + ": ";
  // A path without a slash would be searched for on the library path.
  const std::string open_path = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    *err = where + "cannot load the library: " + EscapeText(why ? why : "unknown error", 0) + "; expected a slotguard plugin (.so)";
    return nullptr;
  }
  auto info_fn = reinterpret_cast<sg_plugin_info_fn>(dlsym(handle, "slotguard_plugin_info"));
  void* device = dlsym(handle, "slotguard_plugin_launch_device");
  void* host = dlsym(handle, "slotguard_plugin_launch_host");
  if (!info_fn) {
    *err = where + "not a slotguard plugin; expected an exported slotguard_plugin_info (see include/slotguard/plugin.h)";
    return nullptr;
  }
  const sg_plugin_info* info = info_fn();
  if (!info) {
    *err = where + "slotguard_plugin_info() returned NULL; expected its sg_plugin_info";
    return nullptr;
  }
  if (info->abi_version < SLOTGUARD_PLUGIN_V1_ABI_VERSION || info->abi_version > SLOTGUARD_PLUGIN_ABI_VERSION) {
    *err = where + "plugin ABI version " + std::to_string(info->abi_version) + "; expected " +
           std::to_string(SLOTGUARD_PLUGIN_ABI_VERSION) + ", 3, 2 or " + std::to_string(SLOTGUARD_PLUGIN_V1_ABI_VERSION) +
           " (rebuild it against this slotguard's plugin.h)";
    return nullptr;
  }
  // The plugin's own words: one printable line of at most 200 characters.
  const std::string name = ForeignText(info->name ? info->name : "unnamed");
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
    // ABI 1 and 2 carry only the built-in kernels' families' parameters.
    if (info->abi_version < 3 && !GetFamily(family).kernel) {
      *err = where + "plugin " + name + " lists family " + QuoteName(*f) + " under plugin ABI " +
             std::to_string(info->abi_version) + ", whose call carries only the built-in families' parameters; "
             "expected it rebuilt against plugin ABI 3 (this slotguard's plugin.h: param_names, param_values)";
      return nullptr;
    }
    // ABI 3 and older carry no inputs: a family that declares some needs ABI 4.
    if (info->abi_version < 4 && !FamilyModel(family).inputs().empty()) {
      *err = where + "plugin " + name + " lists family " + QuoteName(*f) + " under plugin ABI " +
             std::to_string(info->abi_version) + ", whose call carries no inputs, and the family reads some; "
             "expected it rebuilt against plugin ABI 4 (this slotguard's plugin.h: input_names, input_values)";
      return nullptr;
    }
    families.push_back(family);
  }
  if (families.empty()) {
    *err = where + "plugin " + name + " implements no family; expected at least one in sg_plugin_info.families";
    return nullptr;
  }
  return std::make_unique<PluginLibrary>(path, name, info->abi_version, std::move(families), device, host);
}

}  // namespace slotguard
