#include "util/child_process.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/running_group.h"

extern char** environ;

namespace slotguard {
namespace {

std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sig == SIGSEGV ? "SIGSEGV" : sig == SIGABRT ? "SIGABRT" : sig == SIGBUS ? "SIGBUS"
                     : sig == SIGFPE  ? "SIGFPE"  : sig == SIGILL  ? "SIGILL"  : sig == SIGKILL ? "SIGKILL"
                     : sig == SIGTERM ? "SIGTERM" : nullptr;
    return std::string("killed by ") + (name ? name : "signal " + std::to_string(sig)) + " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

// The process groups alive, for slotguard's exit (atexit) and its fatal
// signals: a fixed table a signal handler can walk (async-signal-safe).
constexpr int kMaxGroups = 4096;
std::atomic<pid_t> live_groups[kMaxGroups];

void KillLiveGroups() {
  for (std::atomic<pid_t>& g : live_groups) {
    const pid_t pgid = g.load();
    if (pgid > 0) kill(-pgid, SIGKILL);
  }
}

void OnFatalSignal(int sig) {
  KillLiveGroups();
  signal(sig, SIG_DFL);
  raise(sig);
}

void ListenForExit() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::atexit(KillLiveGroups);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      // Only where nobody else handles it (an embedding program keeps its own).
      if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) {
        struct sigaction action {};
        action.sa_handler = OnFatalSignal;
        sigemptyset(&action.sa_mask);
        sigaction(sig, &action, nullptr);
      }
    }
  });
}

void Register(pid_t pgid) {
  for (std::atomic<pid_t>& g : live_groups) {
    pid_t empty = 0;
    if (g.compare_exchange_strong(empty, pgid)) return;
  }
}

void Unregister(pid_t pgid) {
  for (std::atomic<pid_t>& g : live_groups) {
    pid_t mine = pgid;
    if (g.compare_exchange_strong(mine, 0)) return;
  }
}

}  // namespace

void KillChildGroups() { KillLiveGroups(); }

// The leader's end, seen from a thread of its own: once it is a zombie
// (waitid WNOWAIT: not reaped, so its pid and group id cannot be reused),
// the rest of its group is killed, and with it every copy of the reply
// pipe, so that a read waiting on it ends now instead of at --timeout.
struct ChildProcess::Watch {
  std::mutex mu;
  bool reaped = false;
  pid_t pid = -1;
  std::thread thread;

  void Run() {
    siginfo_t info{};
    int r;
    do {
      r = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT);
    } while (r != 0 && errno == EINTR);
    std::lock_guard<std::mutex> lock(mu);
    if (r == 0 && !reaped) kill(-pid, SIGKILL);
  }
};

int ChildProcess::Reap() {
  int status = 0;
  {
    std::lock_guard<std::mutex> lock(watch->mu);
    kill(-pid, SIGKILL);  // the group: the leader's descendants, and the leader if it still runs
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    watch->reaped = true;
  }
  if (watch->thread.joinable()) watch->thread.join();
  Unregister(pid);
  pid = -1;
  return status;
}

ChildProcess::~ChildProcess() {
  if (to >= 0) close(to);
  if (from >= 0) close(from);
  if (pid > 0) Reap();
}

std::string ChildProcess::Ended(bool timed_out) {
  if (pid <= 0) return "ended";
  if (to >= 0) {  // no more requests: a child that reads them sees the end
    close(to);
    to = -1;
  }
  if (!timed_out) {
    // It stopped answering: it exited (a crash), or it closed its pipe, or
    // it wrote something that is not a frame and still runs. Half a second
    // to exit on its own, then it is killed.
    for (int i = 0; i < 50; ++i) {
      siginfo_t info{};
      if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
        return DescribeExit(Reap());
      usleep(10 * 1000);
    }
  }
  const int status = Reap();
  return timed_out ? DescribeExit(status) : "stopped answering in frames and was killed";
}

bool SpawnChild(const ChildOptions& options, ChildProcess* child, std::string* err) {
  std::signal(SIGPIPE, SIG_IGN);
  ListenForExit();
  int requests[2], replies[2];
  if (pipe2(requests, O_CLOEXEC) != 0) {
    *err = std::string("pipe2: ") + std::strerror(errno);
    return false;
  }
  if (pipe2(replies, O_CLOEXEC) != 0) {
    *err = std::string("pipe2: ") + std::strerror(errno);
    close(requests[0]);
    close(requests[1]);
    return false;
  }
  // The child's ends above the fds they go to, so that one dup2 cannot
  // overwrite the other's source (stdio closed, fds 3 and 4 taken).
  for (int* fd : {&requests[0], &replies[1]}) {
    const int high = fcntl(*fd, F_DUPFD_CLOEXEC, 10);
    if (high >= 0) {
      close(*fd);
      *fd = high;
    }
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, requests[0], kChildRequestFd);
  posix_spawn_file_actions_adddup2(&actions, replies[1], kChildReplyFd);
  // slotguard ignores SIGPIPE; the child starts with the default. It leads
  // a process group of its own (pgid = its pid).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &pipe_signal);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  if (options.stdin_null) posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  // Above fd 10 too (a memfd may be fd 5 itself, and dup2 onto itself
  // would keep its close-on-exec flag).
  const int shared = options.shared_fd >= 0 ? fcntl(options.shared_fd, F_DUPFD_CLOEXEC, 10) : -1;
  if (shared >= 0) posix_spawn_file_actions_adddup2(&actions, shared, kChildSharedFd);
  if (options.stdout_to_stderr) posix_spawn_file_actions_adddup2(&actions, 2, 1);
  std::vector<std::string> args = options.argv;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  env_strings.insert(env_strings.end(), options.extra_env.begin(), options.extra_env.end());
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int spawned = posix_spawn(&child->pid, args[0].c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(requests[0]);
  close(replies[1]);
  if (shared >= 0) close(shared);
  child->to = requests[1];
  child->from = replies[0];
  // Writes never block: a child that stops reading costs a timeout, not a hang.
  fcntl(child->to, F_SETFL, fcntl(child->to, F_GETFL) | O_NONBLOCK);
  if (spawned != 0) {
    child->pid = -1;
    *err = "could not start " + args[0] + ": " + std::strerror(spawned);
    return false;
  }
  Register(child->pid);
  child->watch = std::make_shared<ChildProcess::Watch>();
  child->watch->pid = child->pid;
  child->watch->thread = std::thread([w = child->watch.get()] { w->Run(); });
  return true;
}

}  // namespace slotguard
