// A campaign's budget: --runs, --time as a deadline (checked before each
// scenario and each shrink candidate, not only between chunks), a stop
// asked from outside (SIGINT, SIGTERM), the progress line and the
// checkpoints of its result.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "fuzzing/campaign_checkpoint.h"
#include "fuzzing/campaign_internal.h"

namespace slotguard {
namespace campaign_internal {
namespace {

/// The campaign's progress line.
void Report(const CampaignResult& r, double seconds, bool tty, const char* command, std::ostream& progress) {
  char line[160];
  std::snprintf(line, sizeof line, "%s: %lld scenarios, %lld token-groups, %.0f scenarios/s, %.0f s", command,
                static_cast<long long>(r.scenarios), static_cast<long long>(r.tokens),
                r.scenarios / std::max(seconds, 1e-9), seconds);
  progress << (tty ? "\r" : "") << line << (tty ? "" : "\n") << std::flush;
}

constexpr double kNoDeadline = 1e18;

}  // namespace

Budget::Budget(const CampaignOptions& options, std::ostream& progress)
    : options_(options),
      progress_(progress),
      start_(std::chrono::steady_clock::now()),
      next_report_(options.tty_progress ? 0.5 : 10),
      next_checkpoint_(options.checkpoint_seconds) {}

double Budget::Elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double Budget::SecondsLeft() const {
  return options_.seconds > 0 ? options_.seconds - Elapsed() : kNoDeadline;
}

bool Budget::Stopping() const {
  return (options_.stop && options_.stop->load() != 0) || SecondsLeft() <= 0;
}

void Budget::Note(CampaignResult* result) const {
  if (options_.stop && options_.stop->load() != 0) result->stop_signal = options_.stop->load();
  if (options_.seconds > 0 && SecondsLeft() <= 0) result->deadline_reached = true;
}

int64_t Budget::ChunkEnd(int64_t base, int64_t chunk) const {
  if (Stopping()) return base;
  return options_.runs >= 0 ? std::min(base + chunk, options_.runs) : base + chunk;
}

void Budget::MaybeReport(const CampaignResult& result, bool force_checkpoint) {
  const double now = Elapsed();
  if (now >= next_report_) {
    Report(result, now, options_.tty_progress, options_.source ? "prove" : "fuzz", progress_);
    next_report_ = now + (options_.tty_progress ? 0.5 : 10);
  }
  if (options_.checkpoint && (force_checkpoint || now >= next_checkpoint_)) {
    options_.checkpoint(CheckpointSnapshot(options_, result, now));
    next_checkpoint_ = Elapsed() + options_.checkpoint_seconds;
  }
}

void Budget::Say(const std::string& line) const {
  progress_ << (options_.tty_progress ? "\n" : "") << line << "\n" << std::flush;
}

int64_t ChunkFor(const Budget& budget, int64_t scenarios, double took, double seconds, int64_t least, int64_t most) {
  least = std::max<int64_t>(1, std::min(least, most));
  double rate = took > 0 ? static_cast<double>(scenarios) / took : 0;
  if (scenarios <= 0 || rate <= 0) return least;
  const double by_time = rate * std::min(seconds, std::max(budget.SecondsLeft(), 0.0));
  return std::clamp<int64_t>(static_cast<int64_t>(by_time), least, most);
}

}  // namespace campaign_internal
}  // namespace slotguard
