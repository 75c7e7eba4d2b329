// One kernel-provider process (--kernel-cmd): started with `/bin/sh -c
// 'exec COMMAND'`, handshaken, then asked RUN after RUN
// (docs/provider-protocol.md, plugin/provider_protocol.h). It shares a page
// with slotguard (util/running_group.h, the provider's SLOTGUARD_PROGRESS_FD)
// where a provider that speaks it says which record's call is running, so
// that a process that dies names the record that killed it.
#ifndef SLOTGUARD_PLUGIN_PROVIDER_PROCESS_H_
#define SLOTGUARD_PLUGIN_PROVIDER_PROCESS_H_

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "plugin/provider_protocol.h"
#include "util/process_pool.h"

namespace slotguard {

struct ProviderCommand {
  std::string command;          // --kernel-cmd "COMMAND ARGS"
  std::string device = "cpu";   // "cpu" or "cuda": SLOTGUARD_DEVICE and HELLO
  double timeout_seconds = 120; // per message (the handshake included); 0: none
};

/// How a RUN ended when the process did not answer it.
struct ProviderLoss {
  std::string how;        // "killed by SIGSEGV (Segmentation fault)", "timed out after 120 s (--timeout); ..."
  bool timed_out = false;
  int64_t running = -1;   // the record whose call was running (its progress page), -1: not known
  // A provider that keeps its progress page started no call of this RUN:
  // it died before the message reached its calls (nothing of it to blame).
  bool before_any_call = false;
};

class ProviderProcess : public PooledProcess {
 public:
  /// Starts the command and shakes hands; nullptr with a one-line *err
  /// ("--kernel-cmd \"python3 p.py\": the provider exited with status 1
  /// before WELCOME") when it cannot. With `pid`, the child's pid is
  /// stored there once it runs (util/process_pool.h).
  static std::unique_ptr<ProviderProcess> Start(const ProviderCommand& command, ProviderWelcome* welcome,
                                                std::string* err, std::atomic<int>* pid = nullptr);
  ~ProviderProcess() override;

  /// Sends RUN (with `flags`) and reads RESULTS, whose outputs go to the
  /// records' destinations. False with *loss ("killed by SIGSEGV
  /// (Segmentation fault)", "timed out after 120 s (--timeout)", "answered a
  /// malformed RESULTS: ...") when the process is gone or cannot be trusted
  /// any more: then it is dead and must be replaced.
  bool Run(const std::vector<ProviderRecord>& records, uint32_t flags, std::vector<ProviderReply>* replies,
           ProviderLoss* loss);
  /// Its last RESULTS said it exits now (kResultsExiting): it answered, but
  /// takes no more messages.
  bool exiting() const { return exiting_; }

 private:
  ProviderProcess() = default;
  int TimeoutMs() const;
  ProviderCommand command_;
  bool dead_ = false;
  bool exiting_ = false;
  bool speaks_progress_ = false;  // it wrote its progress page at least once
  uint32_t sequence_ = 0;  // the last RUN's number (RESULTS echoes it)
};

}  // namespace slotguard

#endif  // SLOTGUARD_PLUGIN_PROVIDER_PROCESS_H_
