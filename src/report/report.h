// Reports of a `check` run: console lines, JUnit XML and JSON.
#ifndef SLOTGUARD_REPORT_REPORT_H_
#define SLOTGUARD_REPORT_REPORT_H_

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "invariants/finding.h"
#include "runner/scenario_run.h"
#include "suppressions/suppressions.h"

namespace slotguard {

/// slotguard's version, CMake's project version ("0.1.0"); reports carry it.
extern const char kSlotguardVersion[];

struct CheckSummary {
  std::string backend;
  std::string device;  // GPU description, "" on host
  std::string implementation;  // the plugin or compiled kernel checked, "" for slotguard's own
  double seconds = 0;
  const Suppressions* suppressions = nullptr;  // --suppressions; null: none
  std::string sarif_root;  // --sarif-root: SARIF's URIs are relative to it; "" DefaultSarifRoot()
};

/// What SARIF URIs are relative to by default: the repository the working
/// directory is in (the nearest folder up with a .git), else the working
/// directory.
std::string DefaultSarifRoot();

/// "FILE: SCENARIO: group G: token T (request R, pos P): INVARIANT: kernel K, reference F: detail"
std::string FindingLine(const ScenarioReport& report, const std::string& group, const Finding& f);

/// "ok   FILE (name) [variant]: verdict" or "FAIL ..." / "ERROR ...".
std::string ScenarioLine(const ScenarioReport& report);

/// Token lines per group that `check -v` prints under a headline.
constexpr size_t kCheckTokenLines = 8;

/// A check run on the console: per report its scenario line (with quiet,
/// only when it does not hold), then, when it does not hold (or with
/// verbose, when it has findings), one headline per group with findings
/// (report/cause_lines.h), indented; with verbose each headline's token
/// lines under it (at most kCheckTokenLines). Bad input and environment
/// errors go to err, one line each.
void PrintCheckReports(const std::vector<ScenarioReport>& reports, bool verbose, bool quiet, std::ostream& out,
                       std::ostream& err);

/// The counts of a check run, for the summary line and the JSON summary.
struct CheckTally {
  int64_t hold = 0, fail = 0, skipped = 0, bad_input = 0, environment_error = 0;
  int64_t groups = 0, tokens = 0, findings = 0, unexpected = 0;  // over checked scenarios
  std::map<std::string, int64_t> per_invariant;                  // findings
  int64_t suppressed = 0, suppressed_findings = 0;  // scenario runs a suppression covered, their findings
  std::map<int, int64_t> per_suppression;           // entry index -> scenario runs
};
CheckTally TallyReports(const std::vector<ScenarioReport>& reports);

/// Per suppression entry, what it covered ("PREFIXsuppressed N UNITs by
/// 'id' (reason)") or that it is stale ("PREFIXstale suppression 'id'
/// (FILE:/suppressions/2): it matched nothing in this run").
std::vector<std::string> SuppressionLines(const Suppressions& suppressions, const std::vector<int64_t>& matches,
                                          const std::string& prefix, const std::string& unit);

/// The per-entry counts of SuppressionLines for a check run.
std::vector<int64_t> SuppressionMatches(const CheckTally& tally, const Suppressions& suppressions);

/// The one summary line printed last.
std::string SummaryLine(const std::vector<ScenarioReport>& reports, const CheckSummary& summary);

/// A scenario run's outcome, one word: "pass", "expected_finding",
/// "unexpected_findings", "missing_expected", "suppressed", "skipped",
/// "bad_input" or "environment_error".
std::string Outcome(const ScenarioReport& report);

/// JUnit's time attributes: a plain decimal (xs:decimal), "0.000025", never
/// "2.5e-05".
std::string DecimalSeconds(double seconds);

bool WriteJUnit(const std::string& path, const std::vector<ScenarioReport>& reports,
                const CheckSummary& summary, std::string* err);
/// The --json report ("slotguard_report": 1; docs/report.schema.json), and
/// writing it (json_report.cc, the one JSON writer, beside fuzz's).
/// Writes a report's text (util/output_file.h: WriteOutputFile); false with
/// "PATH: cannot write the FORMAT report: REASON" (REASON the errno text),
/// leaving no partial file behind.
bool WriteReportFile(const std::string& path, const std::string& text, const std::string& format, std::string* err);

/// A JSON report's text (indented, one newline at the end): every string
/// and key made valid UTF-8 first (Utf8Text), so that a file name or a
/// provider's name with bytes that are not UTF-8 reaches it escaped.
std::string ReportJsonText(nlohmann::ordered_json root);

/// SARIF 2.1.0 for code scanning (report/sarif.cc): a result per cause (a
/// group of a scenario that fails), per missing expected finding, per bad
/// input and environment error, located at the scenario file (relative to
/// sarif_root) on the line of its JSON pointer.
std::string CheckSarif(const std::vector<ScenarioReport>& reports, const CheckSummary& summary);
bool WriteSarif(const std::string& path, const std::vector<ScenarioReport>& reports, const CheckSummary& summary,
                std::string* err);

std::string CheckJson(const std::vector<ScenarioReport>& reports, const CheckSummary& summary);
bool WriteJsonReport(const std::string& path, const std::vector<ScenarioReport>& reports,
                     const CheckSummary& summary, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_REPORT_REPORT_H_
