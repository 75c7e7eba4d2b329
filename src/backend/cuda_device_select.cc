#include "backend/cuda_device_select.h"

#include <cstdlib>
#include <vector>

namespace slotguard {

bool SelectCudaDevice(int device, std::string* err) {
  std::string chosen = std::to_string(device);
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible && *visible) {
    std::vector<std::string> listed;
    std::string item;
    for (const char* c = visible;; ++c) {
      if (*c == ',' || *c == '\0') {
        listed.push_back(item);
        item.clear();
        if (*c == '\0') break;
      } else {
        item += *c;
      }
    }
    if (static_cast<size_t>(device) >= listed.size()) {
      *err = "--device " + std::to_string(device) + ": CUDA_VISIBLE_DEVICES=" + visible + " lists " +
             std::to_string(listed.size()) + " device" + (listed.size() == 1 ? "" : "s") +
             "; expected an index from 0 to " + std::to_string(listed.size() - 1) + " into that list";
      return false;
    }
    chosen = listed[static_cast<size_t>(device)];
  }
  setenv("CUDA_VISIBLE_DEVICES", chosen.c_str(), 1);
  return true;
}

}  // namespace slotguard
