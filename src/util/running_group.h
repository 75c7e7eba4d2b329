// Which group a worker process is running a kernel provider's call for,
// in a page of memory the worker shares with slotguard (fd 5 of the
// worker, a memfd). A worker that crashes inside a plugin cannot say
// which group it was running; slotguard reads the page after it died and
// blames the group whose call was in flight (GroupOutputs::culprit), not
// the scenario's first group. One store per call, no system call.
#ifndef SLOTGUARD_UTIL_RUNNING_GROUP_H_
#define SLOTGUARD_UTIL_RUNNING_GROUP_H_

#include <cstdint>
#include <string>

namespace slotguard {

/// The worker's fd that holds the page.
constexpr int kChildSharedFd = 5;

/// Worker side: maps the page at `fd` when it is open (a no-op when not:
/// a worker started by hand, or slotguard's own process).
void ShareRunningGroup(int fd);
/// Worker side: the group whose call starts now (index in the scenario), or
/// -1 once it returned; the page also keeps the last group that started a
/// call. A no-op without a shared page.
void SetRunningGroup(int64_t group);

/// slotguard's side: one page per worker process.
class RunningGroupPage {
 public:
  RunningGroupPage() = default;
  RunningGroupPage(const RunningGroupPage&) = delete;
  RunningGroupPage& operator=(const RunningGroupPage&) = delete;
  ~RunningGroupPage();
  /// False with *err when the page cannot be made (then crashes are blamed
  /// on the first group, as without it).
  bool Create(std::string* err);
  int fd() const { return fd_; }
  /// The group whose call is in flight, -1 for none (a crash: its group).
  int64_t Read() const;
  /// The last group whose call started, -1 for none (a device fault, which
  /// CUDA reports at a later synchronization: the last launch before it).
  int64_t LastStarted() const;
  /// -1 again, before the next request.
  void Clear();

 private:
  int fd_ = -1;
  volatile int64_t* words_ = nullptr;  // [0] in flight, [1] last started
};

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_RUNNING_GROUP_H_
