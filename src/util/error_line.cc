#include "util/error_line.h"

namespace slotguard {

std::string ErrorLine(const std::string& problem) { return "slotguard: error: " + problem + "\n"; }

}  // namespace slotguard
