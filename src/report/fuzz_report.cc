#include "report/fuzz_report.h"

#include <algorithm>
#include <cstdio>

#include "report/cause_lines.h"
#include "report/report.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"

namespace slotguard {

int64_t FuzzReport::FailingRegressions() const {
  int64_t n = 0;
  for (const ScenarioReport& r : regressions) n += r.status == ScenarioStatus::kChecked && !r.holds;
  return n;
}

int64_t FuzzReport::BadRegressions() const {
  int64_t n = 0;
  for (const ScenarioReport& r : regressions)
    n += r.status == ScenarioStatus::kBadInput || r.status == ScenarioStatus::kEnvironmentError;
  return n;
}

namespace {

/// "minimized from SHAPE to SHAPE", or why it was not.
std::string Minimized(const CampaignFinding& f) {
  if (!f.recurred)
    return "not minimized: it did not recur when its scenario (" + ScenarioShape(f.original) + ") ran again";
  return "minimized from " + ScenarioShape(f.original) + " to " + ScenarioShape(f.minimized);
}

}  // namespace

void PrintFuzzReport(const FuzzReport& report, const std::vector<std::string>& operators, std::ostream& out) {
  const CampaignResult& r = report.result;
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.0f scenarios/s, %.2f s", r.scenarios / std::max(r.seconds, 1e-9), r.seconds);
  if (report.inconsistent)
    out << "fuzz: " << r.runner_state_findings
        << " runner-state findings (the batch state routes tokens to block 0; a correct kernel has them too)"
        << (r.first_runner_state_finding >= 0 ? "; the first in scenario " + std::to_string(r.first_runner_state_finding)
                                              : std::string())
        << "\n";
  if (r.skipped)
    out << "fuzz: " << r.skipped << " scenarios skipped: the implementation does not take them (first: "
        << r.first_skip << ")\n";
  const bool found = r.Found();
  if (report.verbose && report.campaign_ran && (!found || report.keep_going)) {
    std::string classes, never;
    for (const std::string& op : operators) {
      auto it = r.classes.find(op);
      if (it == r.classes.end()) {
        if (op.rfind("fault_", 0) == 0 && !report.inconsistent) continue;  // only with --inconsistent
        never += (never.empty() ? "" : ", ") + op;
      } else {
        classes += (classes.empty() ? "" : " ") + op + "=" + std::to_string(it->second);
      }
    }
    out << "fuzz: classification: " << classes << "\n";
    if (!never.empty()) out << "fuzz: operators never exercised: " << never << "\n";
  }
  // The suppressions: what each covered, and the stale ones.
  if (report.suppressions)
    for (const std::string& line : SuppressionLines(*report.suppressions, r.suppression_matches, "fuzz: ", "finding"))
      out << line << "\n";
  // Each distinct finding: its reproducer's lines, then what it is.
  const int64_t distinct = r.Distinct();
  int64_t k = 0;
  for (const CampaignFinding& f : r.findings) {
    const std::string counts = std::to_string(f.count) + " finding" + (f.count == 1 ? "" : "s") + " (" +
                               std::to_string(f.shrunk) + " shrunk), reproducer from scenario " +
                               std::to_string(f.finding_index);
    if (f.suppressed_by >= 0) {
      out << "fuzz: suppressed finding, signature " << f.signature.Id() << ": " << f.signature.Text() << "; " << counts
          << "; by " << SuppressionLabel(report.suppressions->entries[static_cast<size_t>(f.suppressed_by)]) << "\n";
      continue;
    }
    for (const GroupReport& g : f.groups) out << "fuzz: " << GroupHeadline(g) << "\n";
    if (!f.reproducer_error.empty()) out << "fuzz: " << f.reproducer_error << "\n";
    if (!report.keep_going) {  // the one finding the campaign stopped at
      out << "fuzz: finding in scenario " << f.finding_index << " after " << r.scenarios << " scenarios (" << rate
          << "): " << JoinNames(f.fired) << "; " << Minimized(f) << "\n";
      out << "fuzz: signature " << f.signature.Id() << ": " << f.signature.Text() << "\n";
      continue;
    }
    out << "fuzz: finding " << ++k << " of " << distinct << ", signature " << f.signature.Id() << ": "
        << f.signature.Text() << "\n";
    out << "fuzz:   " << counts << ", firing " << JoinNames(f.fired) << "; " << Minimized(f) << "; "
        << (f.written() ? "written to " + EscapeText(f.file, 0) : f.reproducer_error) << "\n";
    if (f.written()) out << "fuzz:   replay it with: " << EscapeText(f.replay_command, 0) << "\n";
  }
  if (!report.regressions_dir.empty()) {
    const int64_t failing = report.FailingRegressions(), bad = report.BadRegressions();
    out << "fuzz: " << report.regressions.size() << " regression" << (report.regressions.size() == 1 ? "" : "s")
        << " replayed from " << EscapeText(report.regressions_dir, 0) << " first: "
        << (failing ? std::to_string(failing) + " fail again" : std::string("every one holds"))
        << (bad ? ", " + std::to_string(bad) + " do not load" : std::string()) << "\n";
    for (const std::string& added : report.regressions_added)
      out << "fuzz: added to the regressions: " << EscapeText(added, 0) << "\n";
  }
  if (!report.campaign_ran) {
    out << "slotguard: fuzz: " << report.FailingRegressions() << " of " << report.regressions.size()
        << " regressions from " << EscapeText(report.regressions_dir, 0)
        << " fail again (above); the campaign did not run: fix them first, or --keep-going runs it all the same\n";
    return;
  }
  // Each crash class once: what it deferred, never counted as checked.
  for (const CrashClassReport& c : r.crash_classes) {
    if (c.deferred == 0 && !c.retired && !c.active) continue;  // learnt, never recurred
    out << "fuzz: deferred: known crash class " << c.signature << " (" << c.text << "): " << c.deferred
        << " scenario" << (c.deferred == 1 ? "" : "s") << " not run (" << c.sampled << " sampled"
        << (c.retired ? "; retired: a sample ran without the crash, its scenarios ran again" : "")
        << "); class: " << c.shape << "\n";
  }
  if (r.unattributed)
    out << "fuzz: " << r.unattributed << " more findings not shrunk: their keys' shrunk findings gave several signatures\n";
  const std::string where = ", backend " + report.backend + (report.device.empty() ? "" : " on " + report.device) + ", seed " + std::to_string(report.seed) +
                            (report.shard.empty() ? "" : ", shard " + report.shard);
  const int64_t suppressed = r.SuppressedFindings();
  const std::string suppressed_text =
      (suppressed ? ", " + std::to_string(suppressed) + " suppressed finding" + (suppressed == 1 ? "" : "s")
                  : std::string()) +
      (r.deferred ? ", " + std::to_string(r.deferred) + " deferred (known crash classes, not checked)" : std::string());
  if (report.conform)  // the summary of a conformance campaign: what it checked, and what disagreed
    out << "fuzz: conform: " << r.scenarios - r.skipped << " scenarios compared with the engine variants, "
        << r.skipped << " skipped, " << r.finding_scenarios << " disagreeing"
        << (r.finding_scenarios ? " (bugs of the description, not of the kernel)" : "") << "\n";
  if (!found) {
    out << "slotguard: fuzz: " << r.scenarios << " scenarios, " << r.tokens << " token-groups, " << rate
        << ", no finding" << suppressed_text << where << "\n";
    return;
  }
  const CampaignFinding* first = r.FirstFound();
  if (!report.keep_going) {
    if (first->written())
      out << "slotguard: fuzz: finding written to " << EscapeText(first->file, 0)
          << "; replay it with: " << EscapeText(first->replay_command, 0) << "\n";
    else
      out << "slotguard: fuzz: finding in scenario " << first->finding_index << ", signature "
          << first->signature.Id() << "; " << first->reproducer_error << "\n";
    return;
  }
  const CampaignFinding* replayable = r.FirstWritten();
  out << "slotguard: fuzz: " << distinct << " distinct finding" << (distinct == 1 ? "" : "s") << " in "
      << r.scenarios << " scenarios (" << r.finding_scenarios << " with findings, " << rate << ")"
      << suppressed_text << where
      << (replayable ? "; replay one with: " + EscapeText(replayable->replay_command, 0)
                     : "; no reproducer could be written")
      << "\n";
}

}  // namespace slotguard
