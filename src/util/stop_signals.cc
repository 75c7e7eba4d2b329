#include "util/stop_signals.h"

#include <csignal>
#include <cstring>

#include <unistd.h>

#include "util/child_process.h"
#include "util/output_file.h"

namespace slotguard {
namespace {

std::atomic<int> g_stop{0};

void OnStopSignal(int sig) {
  int none = 0;
  if (g_stop.compare_exchange_strong(none, sig)) {
    // Async-signal-safe: a fixed text and write(2).
    const char text[] =
        "slotguard: stopping at the next scenario; the findings so far, the reports and the summary follow (a "
        "second signal exits at once)\n";
    const ssize_t ignored = write(STDERR_FILENO, text, sizeof text - 1);
    (void)ignored;
    return;
  }
  KillChildGroups();
  RemoveTemporaryFiles();  // a report being written atomically leaves no NAME.tmp-PID
  _exit(128 + sig);
}

}  // namespace

void InstallStopSignals() {
  g_stop = 0;
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction action {};
    action.sa_handler = OnStopSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(sig, &action, nullptr);
  }
}

std::atomic<int>& StopSignalFlag() { return g_stop; }

std::string SignalName(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(sig);
}

}  // namespace slotguard
