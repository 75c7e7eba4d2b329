#include "util/child_process.h"

#include <cerrno>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

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

}  // namespace

ChildProcess::~ChildProcess() {
  if (to >= 0) close(to);
  if (from >= 0) close(from);
  if (pid > 0) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
}

std::string ChildProcess::Ended(bool timed_out) {
  if (pid <= 0) return "ended";
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  pid = -1;
  return DescribeExit(status);
}

bool SpawnChild(const ChildOptions& options, ChildProcess* child, std::string* err) {
  std::signal(SIGPIPE, SIG_IGN);
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
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, requests[0], kChildRequestFd);
  posix_spawn_file_actions_adddup2(&actions, replies[1], kChildReplyFd);
  if (options.stdin_null) posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
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
  const int spawned = posix_spawn(&child->pid, args[0].c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(requests[0]);
  close(replies[1]);
  child->to = requests[1];
  child->from = replies[0];
  if (spawned != 0) {
    child->pid = -1;
    *err = "could not start " + args[0] + ": " + std::strerror(spawned);
    return false;
  }
  return true;
}

}  // namespace slotguard
