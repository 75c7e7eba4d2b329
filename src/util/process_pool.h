// The one pool of slotguard's child processes that answer framed requests
// (util/wire.h): the fault-isolation workers (backend/isolated_backend.h) and
// the provider processes of --kernel-cmd (plugin/provider_processes.h).
//
// A process is taken for one request and given back when it answered; one
// that died (or can no longer be trusted) is not given back, and is
// replaced by a warm spare: a process already started and past its
// handshake, kept by a thread of the pool's own, so that a crash costs a
// swap, not a start (a provider's torch import and Triton compile take
// seconds). The pool keeps `spares` of them (twice as many, up to 8, each
// time a loss found none ready); with `eager` from the start, else from the
// first loss on. `starters` threads start them side by side: when processes
// die faster than one start takes, one thread would make every loss wait.
#ifndef SLOTGUARD_UTIL_PROCESS_POOL_H_
#define SLOTGUARD_UTIL_PROCESS_POOL_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "util/child_process.h"
#include "util/running_group.h"

namespace slotguard {

/// A pooled child: the process, and the page it says there which item of a
/// request it is running (util/running_group.h), when it has one.
struct PooledProcess {
  virtual ~PooledProcess() = default;
  ChildProcess child;
  RunningGroupPage page;
};

/// Starts one process past its handshake, or nullptr with a one-line *err.
/// With `pid`, it stores the child's pid there as soon as it runs (a
/// spare being started is killed when the pool is destroyed, so that no
/// handshake outlives it).
using StartProcess = std::function<std::unique_ptr<PooledProcess>(std::string* err, std::atomic<int>* pid)>;

class ProcessPool {
 public:
  ProcessPool(StartProcess start, int spares, bool eager, int starters = 1);
  ~ProcessPool();
  ProcessPool(const ProcessPool&) = delete;
  ProcessPool& operator=(const ProcessPool&) = delete;

  /// An idle process, else a warm spare (waiting for one being started),
  /// else one started now; nullptr with *err when none can be started.
  std::unique_ptr<PooledProcess> Acquire(std::string* err);
  /// A process that answered its request: idle again.
  void Release(std::unique_ptr<PooledProcess> process);
  /// A process that was lost (it died, or was killed): the spares are
  /// topped up in the background.
  void Lost();
  /// Adopts a process started elsewhere (the first one, whose handshake
  /// the command checked before anything ran).
  void Add(std::unique_ptr<PooledProcess> process) { Release(std::move(process)); }

  /// How many processes the pool started (spares included).
  int started() const;
  /// How many losses found a warm spare ready.
  int swaps() const;

 private:
  void KeepSpares(std::atomic<int>* spare_pid);  // a starter thread's loop
  void TopUp();       // asks the spare thread for what `target_` lacks (mu_ held)

  StartProcess start_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::vector<std::unique_ptr<PooledProcess>> idle_, spares_;
  int target_ = 0;        // spares to keep
  int first_target_ = 0;  // before the first loss (eager: the same)
  int pending_ = 0;       // spares the spare thread is asked to start
  int starting_ = 0;      // spares being started
  bool lost_ = false, stopping_ = false;
  int started_ = 0, swaps_ = 0;
  // Per starter thread: the pid of the spare it is starting (0: none).
  std::unique_ptr<std::atomic<int>[]> spare_pids_;
  std::vector<std::thread> threads_;
};

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_PROCESS_POOL_H_
