// A child process slotguard talks to over two pipes: the fault-isolation
// worker (backend/isolated_backend.h), a kernel provider
// (plugin/provider_process.h) and the plugin probe (plugin/plugin_probe.h).
// The child reads requests on fd 3 and writes replies on fd 4.
//
// Each child is the leader of a process group of its own, and slotguard
// deals with the whole group, never with the leader alone: whatever the
// child started (a torch compile worker, a shell's commands) is killed with
// it when it is restarted, timed out or reaped, when it dies on its own
// (a watcher thread kills the rest of its group at once, so that a
// descendant holding the reply pipe cannot make slotguard wait out
// --timeout), and when slotguard exits, normally or on SIGINT, SIGTERM or
// SIGHUP. A descendant that leaves the group (setsid) is on its own.
#ifndef SLOTGUARD_UTIL_CHILD_PROCESS_H_
#define SLOTGUARD_UTIL_CHILD_PROCESS_H_

#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

namespace slotguard {

constexpr int kChildRequestFd = 3;
constexpr int kChildReplyFd = 4;

struct ChildProcess {
  pid_t pid = -1;  // also its process group's id
  int to = -1;     // its requests (the child's fd 3)
  int from = -1;   // its replies (the child's fd 4)
  ChildProcess() = default;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  /// Kills (SIGKILL) its process group and reaps it if it still runs.
  ~ChildProcess();
  /// Reaps it after it stopped answering, and says how it ended: "killed
  /// by SIGSEGV (Segmentation fault)", "exited with status 3". Closes its
  /// request pipe; when `timed_out`, or when it is still running half a
  /// second later, kills it first. Its process group is killed either way.
  std::string Ended(bool timed_out);

  struct Watch;  // the watcher of the leader's end (child_process.cc)
  std::shared_ptr<Watch> watch;

 private:
  /// Kills the group (the leader may be a zombie already), reaps the
  /// leader; its wait status.
  int Reap();
};

struct ChildOptions {
  std::vector<std::string> argv;          // argv[0] is the executable's path
  std::vector<std::string> extra_env;     // "NAME=value", added to slotguard's environment
  bool stdout_to_stderr = false;          // the child's stdout goes to slotguard's stderr
  bool stdin_null = false;                // the child's stdin is /dev/null
  int shared_fd = -1;                     // when >= 0: the child's fd 5 (util/running_group.h)
};

/// Kills (SIGKILL) every child's process group still alive: what a fatal
/// signal does before slotguard dies. Async-signal-safe.
void KillChildGroups();

/// Starts it in a process group of its own; false with *err when it cannot
/// be started. SIGPIPE is ignored from then on: a dead child must not take
/// slotguard with it.
bool SpawnChild(const ChildOptions& options, ChildProcess* child, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_CHILD_PROCESS_H_
