// The one form of every error slotguard prints (DESIGN section 6: one line
// each). The commands, the worker and the libFuzzer targets all build their
// error lines here.
#ifndef SLOTGUARD_UTIL_ERROR_LINE_H_
#define SLOTGUARD_UTIL_ERROR_LINE_H_

#include <string>

namespace slotguard {

/// "slotguard: error: PROBLEM\n": the whole line, newline included.
std::string ErrorLine(const std::string& problem);

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_ERROR_LINE_H_
