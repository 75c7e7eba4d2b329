#include "backend/isolated_backend.h"

#include <csignal>
#include <cstring>
#include <mutex>

#include <fcntl.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/worker_messages.h"

extern char** environ;

namespace slotguard {
namespace {

std::string& WorkerPath() {
  static std::string path;
  return path;
}

// One worker process and its two pipes (the worker reads kWorkerRequestFd,
// writes kWorkerResponseFd).
struct Worker {
  pid_t pid = -1;
  int to = -1;    // requests
  int from = -1;  // responses
  ~Worker() {
    if (to >= 0) close(to);
    if (from >= 0) close(from);
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

// "killed by SIGSEGV (Segmentation fault)" / "exited with status 3".
std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sig == SIGSEGV ? "SIGSEGV" : sig == SIGABRT ? "SIGABRT" : sig == SIGBUS ? "SIGBUS"
                     : sig == SIGFPE  ? "SIGFPE"  : sig == SIGILL  ? "SIGILL"  : sig == SIGKILL ? "SIGKILL"
                                                                                                : nullptr;
    return std::string("killed by ") + (name ? name : "signal " + std::to_string(sig)) + " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

class IsolatedBackend : public Backend {
 public:
  explicit IsolatedBackend(IsolationOptions options) : options_(std::move(options)) {
    std::signal(SIGPIPE, SIG_IGN);  // a dead worker must not take slotguard with it
  }
  const char* name() const override { return options_.backend_name.c_str(); }
  bool Batches() const override { return options_.backend_name == "gpu"; }  // the worker's backend does

  bool Run(const Scenario& scenario, std::vector<GroupOutputs>* outputs, std::string* err) override {
    std::vector<std::vector<GroupOutputs>> results;
    std::string fault;
    if (!Request(WorkerOp::kRun, {&scenario}, &results, &fault, err)) return false;
    if (!fault.empty()) {
      MarkFaulted(fault, scenario.groups.size(), outputs);
      return true;
    }
    if (results.size() != 1) return Malformed(err);
    *outputs = std::move(results[0]);
    return true;
  }

  bool RunReplays(const std::vector<Scenario>& replays, std::vector<std::vector<GroupOutputs>>* outputs,
                  std::string* err) override {
    std::vector<const Scenario*> pointers;
    for (const Scenario& s : replays) pointers.push_back(&s);
    std::string fault;
    if (!Request(WorkerOp::kRunReplays, pointers, outputs, &fault, err)) return false;
    if (!fault.empty()) {  // one replay's worth of faulted groups
      outputs->assign(1, {});
      MarkFaulted(fault, replays.empty() ? 0 : replays[0].groups.size(), &(*outputs)[0]);
    }
    return true;
  }

  bool RunMany(const std::vector<const Scenario*>& scenarios, std::vector<std::vector<GroupOutputs>>* outputs,
               std::string* err, int threads) override {
    std::string fault;
    if (!Request(WorkerOp::kRunMany, scenarios, outputs, &fault, err, threads)) return false;
    if (fault.empty()) return outputs->size() == scenarios.size() || Malformed(err);
    // Which one faulted: each on its own.
    return Backend::RunMany(scenarios, outputs, err, 1);
  }

 private:
  bool Malformed(std::string* err) const {
    *err = "the worker process answered with a malformed response";
    return false;
  }

  // Sends one request to a worker and reads its answer. A fault (the
  // kernel's, or the worker dying or timing out) fills *fault and still
  // returns true; false is an environment error.
  bool Request(WorkerOp op, const std::vector<const Scenario*>& scenarios,
               std::vector<std::vector<GroupOutputs>>* results, std::string* fault, std::string* err,
               int threads = 1) {
    std::unique_ptr<Worker> worker = Acquire(err);
    if (!worker) return false;
    WireBuffer request;
    PutWorkerRequest(op, writers_, threads, scenarios, &request);
    WireBuffer response;
    bool timed_out = false;
    const int timeout_ms =
        options_.timeout_seconds > 0 ? static_cast<int>(options_.timeout_seconds * 1000 * std::max<size_t>(1, scenarios.size()))
                                     : -1;
    if (!WriteFrame(worker->to, request) || !ReadFrame(worker->from, timeout_ms, &response, &timed_out)) {
      *fault = Ended(worker.get(), timed_out);
      return true;  // the worker is gone; the next request starts another
    }
    WorkerStatus status;
    std::string message;
    if (!GetWorkerResponse(&response, &status, &message, results)) return Malformed(err);
    if (status == WorkerStatus::kFault) {
      *fault = message;
      Ended(worker.get(), false);
      return true;
    }
    if (status != WorkerStatus::kOk) {
      *err = message;
      Release(std::move(worker));
      return false;
    }
    Release(std::move(worker));
    return true;
  }

  // Reaps a worker that stopped answering and says how it ended.
  std::string Ended(Worker* worker, bool timed_out) {
    if (timed_out) kill(worker->pid, SIGKILL);
    int status = 0;
    waitpid(worker->pid, &status, 0);
    worker->pid = -1;
    if (timed_out)
      return "timed out after " + std::to_string(static_cast<int64_t>(options_.timeout_seconds)) +
             " s (--timeout); the worker process was killed";
    return "the worker process " + DescribeExit(status);
  }

  std::unique_ptr<Worker> Acquire(std::string* err) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!idle_.empty()) {
        std::unique_ptr<Worker> w = std::move(idle_.back());
        idle_.pop_back();
        return w;
      }
    }
    return Spawn(err);
  }

  void Release(std::unique_ptr<Worker> worker) {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back(std::move(worker));
  }

  std::unique_ptr<Worker> Spawn(std::string* err) {
    const std::string& exe = WorkerExecutable();
    if (exe.empty()) {
      *err = "fault isolation needs the slotguard executable, and none is registered";
      return nullptr;
    }
    int requests[2], responses[2];
    if (pipe2(requests, O_CLOEXEC) != 0) {
      *err = std::string("pipe2: ") + std::strerror(errno);
      return nullptr;
    }
    if (pipe2(responses, O_CLOEXEC) != 0) {
      *err = std::string("pipe2: ") + std::strerror(errno);
      close(requests[0]);
      close(requests[1]);
      return nullptr;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, requests[0], kWorkerRequestFd);
    posix_spawn_file_actions_adddup2(&actions, responses[1], kWorkerResponseFd);
    std::vector<std::string> args = {exe};
    args.insert(args.end(), options_.worker_args.begin(), options_.worker_args.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    auto worker = std::make_unique<Worker>();
    const int spawned = posix_spawn(&worker->pid, exe.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(requests[0]);
    close(responses[1]);
    worker->to = requests[1];
    worker->from = responses[0];
    if (spawned != 0) {
      worker->pid = -1;
      *err = "could not start the worker process " + exe + ": " + std::strerror(spawned);
      return nullptr;
    }
    return worker;
  }

  IsolationOptions options_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Worker>> idle_;
};

}  // namespace

void SetWorkerExecutable(const std::string& path) { WorkerPath() = path; }
const std::string& WorkerExecutable() { return WorkerPath(); }

std::unique_ptr<Backend> MakeIsolatedBackend(const IsolationOptions& options) {
  return std::make_unique<IsolatedBackend>(options);
}

}  // namespace slotguard
