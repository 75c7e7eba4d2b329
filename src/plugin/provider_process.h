// One kernel-provider process (--kernel-cmd): started with `/bin/sh -c
// 'exec COMMAND'`, handshaken, then asked RUN after RUN
// (docs/provider-protocol.md, plugin/provider_protocol.h).
#ifndef SLOTGUARD_PLUGIN_PROVIDER_PROCESS_H_
#define SLOTGUARD_PLUGIN_PROVIDER_PROCESS_H_

#include <memory>
#include <string>
#include <vector>

#include "plugin/provider_protocol.h"
#include "util/child_process.h"

namespace slotguard {

struct ProviderCommand {
  std::string command;          // --kernel-cmd "COMMAND ARGS"
  std::string device = "cpu";   // "cpu" or "cuda": SLOTGUARD_DEVICE and HELLO
  double timeout_seconds = 120; // per message (the handshake included); 0: none
};

class ProviderProcess {
 public:
  /// Starts the command and shakes hands; nullptr with a one-line *err
  /// ("--kernel-cmd \"python3 p.py\": the provider exited with status 1
  /// before WELCOME") when it cannot.
  static std::unique_ptr<ProviderProcess> Start(const ProviderCommand& command, ProviderWelcome* welcome,
                                                std::string* err);
  ~ProviderProcess();

  /// Sends RUN and reads RESULTS. False with *failure ("killed by SIGSEGV
  /// (Segmentation fault)", "timed out after 120 s (--timeout)", "answered
  /// a malformed RESULTS: ...") when the process is gone or cannot be
  /// trusted any more: then it is dead and must be replaced.
  bool Run(const std::vector<ProviderRecord>& records, std::vector<ProviderReply>* replies, std::string* failure);

 private:
  ProviderProcess() = default;
  int TimeoutMs() const;
  ChildProcess child_;
  ProviderCommand command_;
  bool dead_ = false;
  uint32_t sequence_ = 0;  // the last RUN's number (RESULTS echoes it)
};

}  // namespace slotguard

#endif  // SLOTGUARD_PLUGIN_PROVIDER_PROCESS_H_
