// Console lines: one per finding, one per scenario, one summary.
#include <cstdio>

#include "registry/families.h"
#include "report/report.h"
#include "util/error_line.h"

namespace slotguard {
namespace {

// Names and paths from the input, as console lines show them: control
// characters escaped (a name cannot start a new line or send an ANSI
// escape), names elided past kEscapeLimit characters.
std::string File(const std::string& file) { return EscapeText(file, 0); }
std::string Name(const std::string& name) { return EscapeText(name); }

}  // namespace

std::string FindingLine(const ScenarioReport& report, const std::string& group, const Finding& f) {
  std::string line = File(report.file) + ": " + Name(report.name);
  if (!report.forced_variant.empty()) line += " [" + report.forced_variant + "]";
  line += ": group " + Name(group);
  if (f.output != group && !f.output.empty()) line += " output " + Name(f.output);
  if (f.token >= 0) {
    line += ": token " + std::to_string(f.token) + " (";
    line += f.request >= 0 ? "request " + std::to_string(f.request) : std::string("no request");
    line += ", pos " + std::to_string(f.position) + ")";
  } else if (f.request >= 0) {  // an element of a per-request output
    line += ": request " + std::to_string(f.request);
    if (f.op >= 0) line += " op " + std::to_string(f.op);
  }
  line += ": " + f.invariant;
  if (f.has_values)
    line += ": kernel " + std::to_string(f.kernel) + ", reference " + std::to_string(f.reference);
  if (!f.detail.empty()) line += ": " + EscapeText(f.detail, 0);
  return line;
}

std::string ScenarioLine(const ScenarioReport& report) {
  std::string tag;
  switch (report.status) {
    case ScenarioStatus::kBadInput:
      return "ERROR " + report.error;
    case ScenarioStatus::kEnvironmentError:
      return "ERROR " + report.error;
    case ScenarioStatus::kSkipped:
      tag = "skip  ";
      break;
    case ScenarioStatus::kChecked:
      tag = report.suppressed_by >= 0 ? "supp  " : report.holds ? "ok    " : "FAIL  ";
      break;
  }
  std::string line = tag + File(report.file) + " (" + Name(report.name) + ")";
  if (!report.forced_variant.empty()) line += " [variant " + report.forced_variant + "]";
  return line + ": " + report.verdict;
}

void PrintCheckReports(const std::vector<ScenarioReport>& reports, bool verbose, bool quiet, std::ostream& out,
                       std::ostream& err) {
  for (const ScenarioReport& r : reports) {
    if (r.status == ScenarioStatus::kSkipped) {
      if (!quiet) out << ScenarioLine(r) << "\n";
      continue;
    }
    if (r.status != ScenarioStatus::kChecked) {
      err << ScenarioLine(r) << "\n";
      continue;
    }
    if (verbose || !r.holds)
      for (const GroupReport& g : r.groups) {
        for (const Finding& f : g.findings) out << FindingLine(r, g.name, f) << "\n";
        for (const auto& [name, count] : g.counts) {
          int64_t shown = 0;
          for (const Finding& f : g.findings) shown += f.invariant == name;
          if (count > shown)
            out << File(r.file) << ": " << Name(r.name) << ": group " << Name(g.name) << ": " << name << ": "
                << count - shown << " more findings not shown\n";
        }
      }
    if (!quiet || !r.holds) out << ScenarioLine(r) << "\n";
  }
}

CheckTally TallyReports(const std::vector<ScenarioReport>& reports) {
  CheckTally t;
  for (const ScenarioReport& r : reports) {
    switch (r.status) {
      case ScenarioStatus::kBadInput:
        ++t.bad_input;
        continue;
      case ScenarioStatus::kEnvironmentError:
        ++t.environment_error;
        continue;
      case ScenarioStatus::kSkipped:
        ++t.skipped;
        continue;
      case ScenarioStatus::kChecked:
        break;
    }
    if (r.suppressed_by >= 0) {
      ++t.suppressed;
      ++t.per_suppression[r.suppressed_by];
    } else {
      (r.holds ? t.hold : t.fail)++;
    }
    t.groups += static_cast<int64_t>(r.groups.size());
    t.tokens += r.tokens;
    t.findings += r.total_findings;
    if (r.suppressed_by >= 0)
      t.suppressed_findings += r.total_findings;
    else if (!r.expect_finding)
      t.unexpected += r.total_findings;
    for (const GroupReport& g : r.groups)
      for (const auto& [name, count] : g.counts) t.per_invariant[name] += count;
  }
  return t;
}

std::string SummaryLine(const std::vector<ScenarioReport>& reports, const CheckSummary& summary) {
  const CheckTally t = TallyReports(reports);
  const int64_t hold = t.hold, fail = t.fail, skipped = t.skipped, bad = t.bad_input, env = t.environment_error,
                groups = t.groups, tokens = t.tokens, findings = t.findings, unexpected = t.unexpected;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f", summary.seconds);
  std::string line = "slotguard: " + std::to_string(reports.size()) + " scenario runs (" +
                     std::to_string(hold) + " hold, " + std::to_string(fail) + " fail";
  if (t.suppressed) line += ", " + std::to_string(t.suppressed) + " suppressed";
  if (skipped) line += ", " + std::to_string(skipped) + " skipped";
  if (bad) line += ", " + std::to_string(bad) + " bad input";
  if (env) line += ", " + std::to_string(env) + " environment errors";
  line += "), " + std::to_string(groups) + " groups, " + std::to_string(tokens) +
          " tokens checked, " + std::to_string(findings) + " findings (" +
          std::to_string(findings - unexpected - t.suppressed_findings) + " expected, " + std::to_string(unexpected) +
          " unexpected" + (t.suppressed ? ", " + std::to_string(t.suppressed_findings) + " suppressed" : "") +
          "), backend " + summary.backend;
  if (!summary.device.empty()) line += " on " + summary.device;
  if (!summary.implementation.empty()) line += ", kernels from " + summary.implementation;
  return line + ", " + seconds + " s";
}

std::vector<std::string> SuppressionLines(const Suppressions& suppressions, const std::vector<int64_t>& matches,
                                          const std::string& prefix, const std::string& unit) {
  std::vector<std::string> lines;
  for (size_t i = 0; i < suppressions.entries.size(); ++i) {
    const Suppression& e = suppressions.entries[i];
    const int64_t n = i < matches.size() ? matches[i] : 0;
    if (n > 0)
      lines.push_back(prefix + "suppressed " + std::to_string(n) + " " + unit + (n == 1 ? "" : "s") + " by " +
                      SuppressionLabel(e));
    else
      lines.push_back(prefix + "stale suppression " + QuoteName(e.id) + " (" + File(suppressions.file) + ":" +
                      e.pointer + "): it matched nothing in this run");
  }
  return lines;
}

std::vector<int64_t> SuppressionMatches(const CheckTally& tally, const Suppressions& suppressions) {
  std::vector<int64_t> matches(suppressions.entries.size(), 0);
  for (const auto& [entry, n] : tally.per_suppression) matches[static_cast<size_t>(entry)] = n;
  return matches;
}

}  // namespace slotguard
