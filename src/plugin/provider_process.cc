#include "plugin/provider_process.h"
#include "util/error_line.h"

#include <poll.h>

#include <algorithm>
#include <cstdint>

namespace slotguard {

int ProviderProcess::TimeoutMs() const {
  if (command_.timeout_seconds <= 0) return -1;
  return static_cast<int>(std::min<double>(command_.timeout_seconds * 1000, INT32_MAX));
}

std::unique_ptr<ProviderProcess> ProviderProcess::Start(const ProviderCommand& command, ProviderWelcome* welcome,
                                                        std::string* err, std::atomic<int>* pid) {
  std::unique_ptr<ProviderProcess> p(new ProviderProcess());
  p->command_ = command;
  const std::string what = "--kernel-cmd " + QuoteName(command.command, 0, '"') + ": ";
  ChildOptions options;
  options.argv = {"/bin/sh", "-c", "exec " + command.command};
  options.extra_env = {"SLOTGUARD_PROVIDER_PROTOCOL=" + std::to_string(kProviderProtocolVersion),
                       "SLOTGUARD_REQUEST_FD=" + std::to_string(kChildRequestFd),
                       "SLOTGUARD_REPLY_FD=" + std::to_string(kChildReplyFd), "SLOTGUARD_DEVICE=" + command.device};
  std::string no_page;  // without it a death is found by bisecting its message
  if (p->page.Create(&no_page)) {
    options.shared_fd = p->page.fd();
    options.extra_env.push_back("SLOTGUARD_PROGRESS_FD=" + std::to_string(kChildSharedFd));
  }
  options.stdout_to_stderr = true;
  options.stdin_null = true;
  if (!SpawnChild(options, &p->child, err)) {
    *err = what + *err;
    return nullptr;
  }
  if (pid) *pid = p->child.pid;
  WireBuffer hello;
  PutHello(command.device, &hello);
  WireBuffer reply;
  bool timed_out = false;
  if (!WriteFrame(p->child.to, hello, p->TimeoutMs(), &timed_out) ||
      !ReadFrame(p->child.from, p->TimeoutMs(), &reply, &timed_out, kMaxWelcomeBytes)) {
    const std::string how = p->child.Ended(timed_out);
    *err = what + (timed_out ? "no WELCOME within " + std::to_string(static_cast<int64_t>(command.timeout_seconds)) +
                                   " s (--timeout); the provider was killed"
                             : "the provider " + std::string(how.rfind("killed", 0) == 0 ? "was " : "") + how +
                                   " before WELCOME") +
           "; expected a provider speaking docs/provider-protocol.md";
    return nullptr;
  }
  std::string problem;
  if (!GetWelcome(&reply, welcome, &problem)) {
    *err = what + "bad handshake: " + problem;
    return nullptr;
  }
  return p;
}

ProviderProcess::~ProviderProcess() {
  if (dead_ || child.pid <= 0) return;
  WireBuffer bye;
  PutBye(&bye);
  bool timed_out;
  WriteFrame(child.to, bye, 100, &timed_out);
  child.Ended(/*timed_out=*/false);  // half a second to exit, then killed
}

bool ProviderProcess::Run(const std::vector<ProviderRecord>& records, uint32_t flags,
                          std::vector<ProviderReply>* replies, ProviderLoss* loss) {
  WireBuffer request;
  PutRun(++sequence_, flags, records, &request);
  page.Clear();
  WireBuffer reply;
  bool timed_out = false;
  if (!WriteFrame(child.to, request, TimeoutMs(), &timed_out) ||
      !ReadFrame(child.from, TimeoutMs(), &reply, &timed_out, MaxResultsBytes(records))) {
    dead_ = true;
    const std::string how = child.Ended(timed_out);
    loss->timed_out = timed_out;
    loss->running = page.Read();
    loss->before_any_call = speaks_progress_ && page.LastStarted() < 0 && !timed_out;
    loss->how = timed_out ? "timed out after " + std::to_string(static_cast<int64_t>(command_.timeout_seconds)) +
                                " s (--timeout); the provider was killed"
                          : how;
    return false;
  }
  speaks_progress_ |= page.LastStarted() >= 0;
  std::string problem;
  uint32_t results_flags = 0;
  if (!GetResults(&reply, sequence_, records, replies, &problem, &results_flags)) {
    dead_ = true;
    child.Ended(/*timed_out=*/true);  // killed: its stream can no longer be trusted
    loss->how = "answered a malformed RESULTS (" + problem + ")";
    return false;
  }
  // More already waiting on the reply pipe: an answer no request asked for,
  // which the next RUN would otherwise read (its sequence number catches
  // it there too, but then on another scenario).
  pollfd pending{child.from, POLLIN, 0};
  if (poll(&pending, 1, 0) > 0 && (pending.revents & POLLIN)) {
    dead_ = true;
    child.Ended(/*timed_out=*/true);
    loss->how = "answered more than it was asked (a frame after RESULTS that no request asked for)";
    return false;
  }
  exiting_ = (results_flags & kResultsExiting) != 0;
  return true;
}

}  // namespace slotguard
