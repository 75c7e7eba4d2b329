// How this slotguard was run: the path a user typed (build/slotguard, an
// absolute path, or `slotguard` found on PATH), so that the commands it
// prints for a user to copy (a reproducer's replay command) run as printed.
#ifndef SLOTGUARD_UTIL_INVOKED_AS_H_
#define SLOTGUARD_UTIL_INVOKED_AS_H_

#include <string>

namespace slotguard {

/// main() registers argv[0]: kept when it holds a '/' (the path it was run
/// by) or when PATH finds this very executable under that name; otherwise
/// (a name PATH does not resolve to this file) the executable's own path.
void SetInvokedAs(const char* argv0);

/// The registered path; "slotguard" when none was (the library's tests).
const std::string& InvokedAs();

/// `InvokedAs()` as a shell reads it back, for a printed command.
std::string InvokedAsWord();

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_INVOKED_AS_H_
