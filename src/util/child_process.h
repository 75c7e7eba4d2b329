// A child process slotguard talks to over two pipes: the fault-isolation
// worker (backend/isolated_backend.h) and a kernel provider
// (plugin/provider_process.h). The child reads requests on fd 3 and writes
// replies on fd 4.
#ifndef SLOTGUARD_UTIL_CHILD_PROCESS_H_
#define SLOTGUARD_UTIL_CHILD_PROCESS_H_

#include <string>
#include <vector>

#include <sys/types.h>

namespace slotguard {

constexpr int kChildRequestFd = 3;
constexpr int kChildReplyFd = 4;

struct ChildProcess {
  pid_t pid = -1;
  int to = -1;    // its requests (the child's fd 3)
  int from = -1;  // its replies (the child's fd 4)
  ChildProcess() = default;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  /// Kills (SIGKILL) and reaps it if it still runs.
  ~ChildProcess();
  /// Reaps it after it stopped answering, and says how it ended: "killed
  /// by SIGSEGV (Segmentation fault)", "exited with status 3". Closes its
  /// request pipe; when `timed_out`, or when it is still running half a
  /// second later, kills it first.
  std::string Ended(bool timed_out);
};

struct ChildOptions {
  std::vector<std::string> argv;          // argv[0] is the executable's path
  std::vector<std::string> extra_env;     // "NAME=value", added to slotguard's environment
  bool stdout_to_stderr = false;          // the child's stdout goes to slotguard's stderr
  bool stdin_null = false;                // the child's stdin is /dev/null
  int shared_fd = -1;                     // when >= 0: the child's fd 5 (util/running_group.h)
};

/// Starts it; false with *err when it cannot be started. SIGPIPE is ignored
/// from then on: a dead child must not take slotguard with it.
bool SpawnChild(const ChildOptions& options, ChildProcess* child, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_CHILD_PROCESS_H_
