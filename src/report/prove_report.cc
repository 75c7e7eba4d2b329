#include "report/prove_report.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "report/cause_lines.h"
#include "report/report.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"
#include "util/utc_time.h"

namespace slotguard {

using nlohmann::ordered_json;

namespace {

/// The claim as the console shows it: the scope file's name and path
/// escaped (one line each, whatever bytes they hold).
ScopeClaim ConsoleClaim(const ScopeClaim& claim) {
  ScopeClaim c = claim;
  c.scope = EscapeText(claim.scope, 0);
  c.scope_file = EscapeText(claim.scope_file, 0);
  return c;
}

}  // namespace

void PrintProveReport(const ProveReport& report, std::ostream& out) {
  const CampaignResult& r = report.campaign.result;
  const ScopeClaim c = ConsoleClaim(report.claim);
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.0f batches/s, %.2f s", r.scenarios / std::max(r.seconds, 1e-9), r.seconds);
  out << "prove: scope " << c.scope << " (" << c.scope_file << "): " << c.what << "\n";
  out << "prove: " << ClaimLine(c) << "\n";
  if (c.inconsistent)
    out << "prove: " << r.runner_state_findings
        << " runner-state findings (the batch state routes tokens to block 0; a correct kernel has them too)"
        << (r.first_runner_state_finding >= 0 ? "; the first in batch " + std::to_string(r.first_runner_state_finding)
                                              : std::string())
        << "\n";
  if (r.skipped)
    out << "prove: " << r.skipped << " batches skipped: the implementation does not take them (first: "
        << r.first_skip << ")\n";
  if (report.campaign.suppressions)
    for (const std::string& line :
         SuppressionLines(*report.campaign.suppressions, r.suppression_matches, "prove: ", "finding"))
      out << line << "\n";
  const int64_t distinct = r.Distinct();
  int64_t k = 0;
  for (const CampaignFinding& f : r.findings) {
    const std::string counts = std::to_string(f.count) + " finding" + (f.count == 1 ? "" : "s") + " (" +
                               std::to_string(f.shrunk) + " shrunk), reproducer from batch " +
                               std::to_string(f.finding_index);
    if (f.suppressed_by >= 0) {
      out << "prove: suppressed finding, signature " << f.signature.Id() << ": " << f.signature.Text() << "; "
          << counts << "; by "
          << SuppressionLabel(report.campaign.suppressions->entries[static_cast<size_t>(f.suppressed_by)]) << "\n";
      continue;
    }
    for (const GroupReport& g : f.groups) out << "prove: " << GroupHeadline(g) << "\n";  // one line per cause
    out << "prove: finding " << ++k << " of " << distinct << ", signature " << f.signature.Id() << ": "
        << f.signature.Text() << "\n";
    out << "prove:   " << counts << ", firing " << JoinNames(f.fired) << "; minimized from "
        << ScenarioShape(f.original) << " to " << ScenarioShape(f.minimized) << "; "
        << (f.written() ? "written to " + EscapeText(f.file, 0) : f.reproducer_error) << "\n";
    if (f.written()) out << "prove:   replay it with: " << EscapeText(f.replay_command, 0) << "\n";
  }
  if (r.unattributed)
    out << "prove: " << r.unattributed
        << " more findings not shrunk: their keys' shrunk findings gave several signatures\n";
  if (!c.complete()) out << "prove: incomplete: " << CoverageText(c) << "\n";
  const int64_t suppressed = r.SuppressedFindings();
  const std::string suppressed_text =
      suppressed ? ", " + std::to_string(suppressed) + " suppressed finding" + (suppressed == 1 ? "" : "s") : std::string();
  const std::string where = ", backend " + report.campaign.backend + " (" + rate + ")";
  const std::string checked =
      c.complete() ? std::to_string(c.covered) + " batches" + (c.shards > 1 ? " of shard " + std::to_string(c.shard) + "/" + std::to_string(c.shards) : "")
                   : "the first " + std::to_string(c.covered) + " of " + std::to_string(c.shard_batches) +
                         " batches (cut short: the claim covers only those)";
  if (!r.Found()) {
    out << "slotguard: prove: no finding in " << checked << " of scope " << c.scope << " (" << CountText(c.before)
        << " before reduction) of " << JoinNames(c.families) << ", implementation " << c.implementation
        << suppressed_text << where << "\n";
    return;
  }
  const CampaignFinding* replayable = r.FirstWritten();
  out << "slotguard: prove: " << distinct << " distinct finding" << (distinct == 1 ? "" : "s") << " in " << checked
      << " of scope " << c.scope << " (" << r.finding_scenarios << " with findings)" << suppressed_text << where
      << (replayable ? "; replay one with: " + EscapeText(replayable->replay_command, 0)
                     : "; no reproducer could be written")
      << "\n";
}

void PrintScopeCount(const ScopeClaim& claim, std::ostream& out) {
  const ScopeClaim c = ConsoleClaim(claim);
  out << "prove: scope " << c.scope << " (" << c.scope_file << "): " << c.what << "\n";
  for (const ConfigCoverage& k : c.coverage) out << "prove:   " << k.label << ": " << k.batches << " batches\n";
  out << "slotguard: prove: " << ClaimLine(c) << "\n";
}

ordered_json ClaimJson(const ScopeClaim& c) {
  ordered_json j;
  j["name"] = c.scope;
  j["file"] = c.scope_file;
  j["what"] = c.what;
  j["batches"] = c.inconsistent ? "every" : "consistent";
  j["families"] = c.families;
  j["implementation"] = c.implementation;
  j["variant"] = c.variant.empty() ? "fixed" : c.variant;
  j["configurations"] = c.configs;
  j["batches_after_reduction"] = c.batches;
  // Exact below 2^53; past it a double (the count of a long double).
  if (c.before < 0)
    j["batches_before_reduction"] = nullptr;
  else if (c.before < 9007199254740992.0L)
    j["batches_before_reduction"] = static_cast<int64_t>(c.before);
  else if (c.before <= static_cast<long double>(std::numeric_limits<double>::max()))
    j["batches_before_reduction"] = static_cast<double>(c.before);
  else  // past a double: the count in words ("3.09e+509")
    j["batches_before_reduction"] = CountText(c.before);
  j["shard"] = std::to_string(c.shard) + "/" + std::to_string(c.shards);
  j["shard_batches"] = c.shard_batches;
  j["checked"] = c.covered;
  j["complete"] = c.complete();
  j["first_unchecked"] = c.complete() ? ordered_json(nullptr) : ordered_json(c.FirstUncovered());
  ordered_json configs = ordered_json::array();
  for (const ConfigCoverage& k : c.coverage)
    configs.push_back({{"configuration", k.label}, {"batches", k.batches}, {"checked", k.covered}});
  j["coverage"] = configs;
  return j;
}

std::string ProveJson(const ProveReport& report) {
  const CampaignResult& r = report.campaign.result;
  ordered_json j;
  j["slotguard_prove"] = 1;
  j["finished"] = report.campaign.finished.empty() ? UtcNow() : report.campaign.finished;
  j["scope"] = ClaimJson(report.claim);
  j["backend"] = report.campaign.backend;
  j["batches"] = r.scenarios;
  j["token_groups"] = r.tokens;
  j["seconds"] = r.seconds;
  j["batches_per_second"] = r.scenarios / std::max(r.seconds, 1e-9);
  if (r.kernel_seconds > 0)
    j["phase_seconds"] = {{"generate", r.generate_seconds}, {"kernels", r.kernel_seconds}, {"check", r.check_seconds}};
  if (r.skipped) {
    j["skipped"] = r.skipped;
    j["first_skip"] = r.first_skip;
  }
  if (report.claim.inconsistent) {
    j["runner_state_findings"] = r.runner_state_findings;
    j["first_runner_state_finding"] = r.first_runner_state_finding;
  }
  j["found"] = r.Found();
  j["distinct_findings"] = r.Distinct();
  j["finding_scenarios"] = r.finding_scenarios;
  j["unattributed"] = r.unattributed;
  j["suppressed_findings"] = r.SuppressedFindings();
  j["findings"] = CampaignFindingsJson(report.campaign);
  j["suppressions"] = CampaignSuppressionsJson(report.campaign);
  return ReportJsonText(std::move(j));
}

bool WriteProveJson(const std::string& path, const ProveReport& report, std::string* err) {
  return WriteReportFile(path, ProveJson(report), "JSON", err);
}

std::string ProveSarif(const ProveReport& report) {
  ordered_json results = CampaignSarifResults(report.campaign, [&](const CampaignFinding& f) {
    return "prove (scope " + report.claim.scope + ", batch " + std::to_string(f.finding_index) + ")";
  });
  return SarifLogText(std::move(results), {{"backend", report.campaign.backend}, {"scope", ClaimJson(report.claim)}},
                      report.campaign.sarif_root);
}

bool WriteProveSarif(const std::string& path, const ProveReport& report, std::string* err) {
  return WriteReportFile(path, ProveSarif(report), "SARIF", err);
}

}  // namespace slotguard
