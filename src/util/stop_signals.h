// Stopping a long command from outside: SIGINT and SIGTERM ask `fuzz` (its
// regressions' replay and its campaign) and `prove` to stop at their next
// scenario boundary and write everything they found; a second one ends the
// process at once (its child processes' groups killed, the report being
// written atomically removed, exit 128 + the signal), writing nothing more.
#ifndef SLOTGUARD_UTIL_STOP_SIGNALS_H_
#define SLOTGUARD_UTIL_STOP_SIGNALS_H_

#include <atomic>
#include <string>

namespace slotguard {

/// Installs the handlers of SIGINT and SIGTERM (before any child process
/// starts: util/child_process.h then leaves them alone), and clears the flag.
void InstallStopSignals();

/// The flag the handlers set: the signal that asked for a stop, or 0.
std::atomic<int>& StopSignalFlag();

/// "SIGINT", "SIGTERM" or "signal N".
std::string SignalName(int sig);

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_STOP_SIGNALS_H_
