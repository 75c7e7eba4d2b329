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

constexpr double kNoDeadline = 1e18;

}  // namespace

std::string ProgressLine(const CampaignOptions& o, const CampaignResult& r, double seconds) {
  char line[256];
  const std::string runs = o.settings.runs >= 0 ? " of " + std::to_string(o.settings.runs) : "";
  char time[64];
  if (o.settings.seconds > 0)
    std::snprintf(time, sizeof time, "%.0f of %.0f s", seconds, o.settings.seconds);
  else
    std::snprintf(time, sizeof time, "%.0f s", seconds);
  const int64_t suppressed = r.suppressed_scenarios;
  std::snprintf(line, sizeof line, "%s: %lld%s scenarios, %lld token-groups, %.0f scenarios/s, %s, %lld finding%s",
                o.source ? "prove" : "fuzz", static_cast<long long>(r.scenarios), runs.c_str(),
                static_cast<long long>(r.tokens), r.scenarios / std::max(seconds, 1e-9), time, static_cast<long long>(r.finding_scenarios),
                r.finding_scenarios == 1 ? "" : "s");
  std::string text = line;
  if (suppressed) text += " (+" + std::to_string(suppressed) + " suppressed)";
  if (r.deferred) text += ", " + std::to_string(r.deferred) + " deferred (known crash classes)";
  return text;
}

std::string ShrinkLine(const std::string& what, const Scenario& smallest, int attempts, double seconds,
                       const char* command) {
  char time[32];
  std::snprintf(time, sizeof time, "%.0f s", seconds);
  return std::string(command) + ": shrinking " + what + ": " + ScenarioShape(smallest) + " after " + std::to_string(attempts) +
         " candidates, " + time;
}

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
  return options_.settings.seconds > 0 ? options_.settings.seconds - Elapsed() : kNoDeadline;
}

bool Budget::Stopping() const {
  return (options_.stop && options_.stop->load() != 0) || SecondsLeft() <= 0;
}

void Budget::Note(CampaignResult* result) const {
  if (options_.stop && options_.stop->load() != 0) result->stop_signal = options_.stop->load();
  if (options_.settings.seconds > 0 && SecondsLeft() <= 0) result->deadline_reached = true;
}

int64_t Budget::ChunkEnd(int64_t base, int64_t chunk) const {
  if (Stopping()) return base;
  return options_.settings.runs >= 0 ? std::min(base + chunk, options_.settings.runs) : base + chunk;
}

void Budget::MaybePrint(const std::string& line) {
  const bool tty = options_.tty_progress;
  // A terminal's line is rewritten in place: padded to cover a longer one.
  progress_ << (tty ? "\r" : "") << line << (tty ? "\x1b[K" : "\n") << std::flush;
  showing_ = tty;
  next_report_ = Elapsed() + (tty ? 0.5 : 10);
}

void Budget::MaybeReport(const CampaignResult& result, bool force_checkpoint) {
  const double now = Elapsed();
  if (now >= next_report_) MaybePrint(ProgressLine(options_, result, now));
  if (options_.checkpoint && (force_checkpoint || now >= next_checkpoint_)) {
    options_.checkpoint(CheckpointSnapshot(options_, result, now));
    next_checkpoint_ = Elapsed() + options_.checkpoint_seconds;
  }
}

void Budget::MaybeReportShrink(const std::string& what, const Scenario& smallest, int attempts) {
  if (Elapsed() < next_report_) return;
  MaybePrint(ShrinkLine(what, smallest, attempts, Elapsed(), options_.source ? "prove" : "fuzz"));
}

void Budget::EndLine() {
  if (showing_) progress_ << "\n" << std::flush;
  showing_ = false;
}

void Budget::Say(const std::string& line) {
  EndLine();
  progress_ << line << "\n" << std::flush;
}

double Budget::ShrinkSecondsLeft() const {
  if (options_.settings.seconds <= 0) return kNoDeadline;
  return std::max(0.0, options_.settings.shrink_share * options_.settings.seconds - shrink_spent_);
}

void Budget::StartShrink() {
  shrink_started_ = Elapsed();
  share_spent_ = false;
  // Half of the share at most: one finding that shrinks slowly (a crash per
  // candidate) leaves time to the next.
  const double cap = options_.settings.seconds > 0 ? options_.settings.shrink_share * options_.settings.seconds / 2
                                                   : kNoDeadline;
  shrink_until_ = shrink_started_ + std::min(cap, ShrinkSecondsLeft());
}

void Budget::EndShrink() {
  if (shrink_started_ < 0) return;
  shrink_spent_ += Elapsed() - shrink_started_;
  shrink_started_ = -1;
  share_spent_ = false;  // a shrink at the end is cut short by the deadline alone
}

bool Budget::ShrinkStopping() const {
  if (Stopping()) return true;
  if (shrink_started_ < 0 || Elapsed() < shrink_until_) return false;
  share_spent_ = true;
  return true;
}

int64_t ChunkFor(const Budget& budget, int64_t scenarios, double took, double seconds, int64_t least, int64_t most) {
  least = std::max<int64_t>(1, std::min(least, most));
  double rate = took > 0 ? static_cast<double>(scenarios) / took : 0;
  if (scenarios <= 0 || rate <= 0) return least;
  const double by_time = rate * std::min(seconds, std::max(budget.SecondsLeft(), 0.0));
  // At most twice the last chunk: a chunk's cost can rise steeply from one
  // to the next (a provider's standbys spent, each crash then a new CUDA
  // context), and a deadline or a stop waits for the chunk on the backend.
  const double grown = 2.0 * static_cast<double>(scenarios);
  return std::clamp<int64_t>(static_cast<int64_t>(std::min(by_time, grown)), least, most);
}

}  // namespace campaign_internal
}  // namespace slotguard
