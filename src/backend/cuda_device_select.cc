#include "backend/cuda_device_select.h"
#include "util/error_line.h"

#include <cstdlib>
#include <mutex>
#include <vector>

namespace slotguard {

bool SelectCudaDevice(int device, std::string* err) {
  // The devices this process was started with: a second selection (a test
  // that opens two backends) indexes the same list, not the narrowed one.
  static std::once_flag once;
  static bool was_set = false;
  static std::string started_with;
  std::call_once(once, [] {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    was_set = visible != nullptr;
    if (visible) started_with = visible;
  });
  std::string chosen = std::to_string(device);
  if (was_set) {
    std::vector<std::string> listed;
    std::string item;
    for (size_t i = 0; i <= started_with.size(); ++i) {
      if (i == started_with.size() || started_with[i] == ',') {
        if (!item.empty()) listed.push_back(item);
        item.clear();
      } else {
        item += started_with[i];
      }
    }
    if (static_cast<size_t>(device) >= listed.size()) {
      *err = "--device " + std::to_string(device) + ": CUDA_VISIBLE_DEVICES=" + QuoteName(started_with, 0) + " lists " +
             std::to_string(listed.size()) + " device" + (listed.size() == 1 ? "" : "s") +
             (listed.empty() ? "; expected a CUDA_VISIBLE_DEVICES that lists the device, or none set"
                             : "; expected an index from 0 to " + std::to_string(listed.size() - 1) + " into that list");
      return false;
    }
    chosen = listed[static_cast<size_t>(device)];
  }
  setenv("CUDA_VISIBLE_DEVICES", chosen.c_str(), 1);
  return true;
}

}  // namespace slotguard
