// The JSON reports: of a `check` run (--json), of a `fuzz` campaign
// (--json) and of a `merge` of campaigns' reports (--json), built and
// written here, one writer for them.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "registry/families.h"
#include "report/cause_lines.h"
#include "report/fuzz_report.h"
#include "report/merge_report.h"
#include "report/report.h"
#include "util/error_line.h"
#include "util/output_file.h"
#include "util/utc_time.h"

namespace slotguard {

#ifndef SLOTGUARD_PROJECT_VERSION  // set by CMakeLists.txt on this file
#error "SLOTGUARD_PROJECT_VERSION: build with CMake (the project version)"
#endif
const char kSlotguardVersion[] = SLOTGUARD_PROJECT_VERSION;

namespace {

using nlohmann::ordered_json;

/// Every string and key of `j` as valid UTF-8 (Utf8Text).
void MakeUtf8(ordered_json* j) {
  if (j->is_string()) {
    std::string& s = j->get_ref<std::string&>();
    s = Utf8Text(s);
  } else if (j->is_object()) {
    ordered_json fixed = ordered_json::object();
    for (auto it = j->begin(); it != j->end(); ++it) {
      ordered_json value = std::move(it.value());
      MakeUtf8(&value);
      fixed[Utf8Text(it.key())] = std::move(value);
    }
    *j = std::move(fixed);
  } else if (j->is_array()) {
    for (ordered_json& e : *j) MakeUtf8(&e);
  }
}

std::string Text(ordered_json root) { return ReportJsonText(std::move(root)); }

}  // namespace

std::string ReportJsonText(nlohmann::ordered_json root) {
  MakeUtf8(&root);  // a path or name that is not UTF-8 is escaped, never a refused report
  return root.dump(2) + "\n";
}

bool WriteReportFile(const std::string& path, const std::string& text, const std::string& format, std::string* err) {
  std::string why;
  // Atomically: fuzz rewrites its --json while it runs (its checkpoints), and
  // a run killed mid-write must leave the last whole file.
  if (WriteOutputFileAtomically(path, text, &why)) return true;
  *err = EscapeText(path, 0) + ": cannot write the " + format + " report: " + why;
  return false;
}

std::string Outcome(const ScenarioReport& r) {
  switch (r.status) {
    case ScenarioStatus::kSkipped:
      return "skipped";
    case ScenarioStatus::kBadInput:
      return "bad_input";
    case ScenarioStatus::kEnvironmentError:
      return "environment_error";
    case ScenarioStatus::kChecked:
      break;
  }
  if (r.suppressed_by >= 0) return "suppressed";
  if (r.expect_finding) return r.holds ? "expected_finding" : "missing_expected";
  return r.holds ? "pass" : "unexpected_findings";
}

namespace {

/// Every outcome Outcome() gives, in the order its comment lists them.
constexpr const char* kOutcomes[] = {"pass", "expected_finding", "unexpected_findings", "missing_expected",
                                     "suppressed", "skipped", "bad_input", "environment_error"};

ordered_json OrNull(const std::string& s) { return s.empty() ? ordered_json(nullptr) : ordered_json(s); }

/// Counts over the whole run, the numbers of the console's summary line and
/// more (findings per invariant); every key always present.
ordered_json SummaryJson(const std::vector<ScenarioReport>& reports, const CheckSummary& summary) {
  const CheckTally t = TallyReports(reports);
  std::map<std::string, int64_t> outcomes;
  for (const char* o : kOutcomes) outcomes[o] = 0;
  for (const ScenarioReport& r : reports) ++outcomes[Outcome(r)];
  const int64_t hold = t.hold, fail = t.fail, skipped = t.skipped, bad = t.bad_input, env = t.environment_error,
                groups = t.groups, tokens = t.tokens, findings = t.findings, unexpected = t.unexpected;
  const std::map<std::string, int64_t>& per_invariant = t.per_invariant;
  ordered_json j;
  j["slotguard_version"] = kSlotguardVersion;
  j["backend"] = summary.backend;
  j["device"] = OrNull(summary.device);
  j["implementation"] = OrNull(summary.implementation);
  j["seconds"] = summary.seconds;
  j["scenario_runs"] = reports.size();
  j["hold"] = hold;
  j["fail"] = fail;
  j["suppressed"] = t.suppressed;
  j["skipped"] = skipped;
  j["bad_input"] = bad;
  j["environment_error"] = env;
  ordered_json by_outcome;  // in the order Outcome's comment gives
  for (const char* o : kOutcomes) by_outcome[o] = outcomes[o];
  j["outcomes"] = by_outcome;
  j["groups"] = groups;
  j["tokens"] = tokens;
  j["findings"] = findings;
  j["expected_findings"] = findings - unexpected - t.suppressed_findings;
  j["unexpected_findings"] = unexpected;
  j["suppressed_findings"] = t.suppressed_findings;
  j["findings_per_invariant"] = per_invariant;
  return j;
}

/// Each suppression entry, what it matched, whether it is stale.
/// A finding's signature, as fuzz, prove and merge reports open each
/// finding's object: its id (`id`), text and parts.
ordered_json SignatureJson(const std::string& id, const FindingSignature& sig) {
  ordered_json fj;
  fj["signature"] = id;
  fj["text"] = sig.Text();
  fj["implementation"] = sig.implementation;
  fj["families"] = sig.families;
  fj["variants"] = sig.variants;
  fj["invariants"] = sig.invariants;
  fj["cause"] = sig.Cause();
  fj["blame"] = sig.Blame();
  fj["shape"] = sig.shape;
  return fj;
}

ordered_json SuppressionsJson(const Suppressions* suppressions, const std::vector<int64_t>& matches) {
  ordered_json list = ordered_json::array();
  if (!suppressions) return list;
  for (size_t i = 0; i < suppressions->entries.size(); ++i) {
    const Suppression& e = suppressions->entries[i];
    const int64_t n = i < matches.size() ? matches[i] : 0;
    list.push_back({{"id", e.id}, {"reason", e.reason}, {"pointer", e.pointer}, {"matched", n}, {"stale", n == 0}});
  }
  return list;
}

}  // namespace

std::string CheckJson(const std::vector<ScenarioReport>& reports, const CheckSummary& summary) {
  ordered_json root;
  root["slotguard_report"] = 1;
  root["slotguard_version"] = kSlotguardVersion;
  root["backend"] = summary.backend;
  if (!summary.device.empty()) root["device"] = summary.device;
  if (!summary.implementation.empty()) root["implementation"] = summary.implementation;
  root["seconds"] = summary.seconds;
  ordered_json list = ordered_json::array();
  bool all_hold = true;
  // One shape for every entry: what a status does not have is null (or [] for
  // the lists), so a consumer reads the same keys everywhere.
  for (const ScenarioReport& r : reports) {
    const bool checked = r.status == ScenarioStatus::kChecked;
    const bool error = r.status == ScenarioStatus::kBadInput || r.status == ScenarioStatus::kEnvironmentError;
    ordered_json s;
    s["file"] = r.file;
    s["name"] = r.name;
    s["variant"] = OrNull(r.forced_variant);
    switch (r.status) {
      case ScenarioStatus::kChecked: s["status"] = "checked"; break;
      case ScenarioStatus::kSkipped: s["status"] = "skipped"; break;
      case ScenarioStatus::kBadInput: s["status"] = "bad_input"; break;
      case ScenarioStatus::kEnvironmentError: s["status"] = "environment_error"; break;
    }
    s["outcome"] = Outcome(r);
    s["holds"] = checked ? ordered_json(r.holds) : ordered_json(nullptr);
    s["verdict"] = error ? ordered_json(nullptr) : ordered_json(r.verdict);
    s["error"] = error ? ordered_json(r.error) : ordered_json(nullptr);
    s["expected"] = checked ? ordered_json(r.expect_finding ? "finding" : "pass") : ordered_json(nullptr);
    s["expected_invariants"] = checked ? r.expected_invariants : std::vector<std::string>();
    s["tokens"] = checked ? ordered_json(r.tokens) : ordered_json(nullptr);
    s["total_findings"] = checked ? ordered_json(r.total_findings) : ordered_json(nullptr);
    s["seconds"] = r.seconds;
    s["signature"] = r.fired.empty() ? ordered_json(nullptr) : ordered_json(r.signature.Id());
    s["suppressed_by"] = OrNull(r.suppressed_id);
    if (error || (checked && !r.holds)) all_hold = false;
    ordered_json groups = ordered_json::array();
    for (const GroupReport& g : r.groups) {
      ordered_json gj;
      gj["name"] = g.name;
      gj["kernel"] = GetFamily(g.family).name;
      gj["variant"] = GetVariant(g.variant).name;
      gj["counts"] = g.counts;
      gj["cause"] = g.counts.empty() ? ordered_json(nullptr) : ordered_json(CauseText(g));
      gj["null_block"] = g.null_block == NullBlockEffect::kNone ? ordered_json(nullptr)
                                                                : ordered_json(EffectName(g.null_block));
      ordered_json findings = ordered_json::array();
      for (const Finding& f : g.findings) {
        ordered_json fj;
        fj["invariant"] = f.invariant;
        fj["output"] = f.output;
        if (f.token >= 0) {
          fj["token"] = f.token;
          fj["request"] = f.request;
          fj["position"] = f.position;
        } else if (f.request >= 0) {  // an element of a per-request output (a state index, an operation)
          fj["request"] = f.request;
          if (f.op >= 0) fj["op"] = f.op;
        }
        if (f.has_values) {
          fj["kernel"] = f.kernel;
          fj["reference"] = f.reference;
        }
        fj["detail"] = f.detail;
        findings.push_back(fj);
      }
      gj["findings"] = findings;
      groups.push_back(gj);
    }
    s["groups"] = groups;
    list.push_back(s);
  }
  root["all_hold"] = all_hold;
  root["summary"] = SummaryJson(reports, summary);
  if (summary.suppressions)
    root["suppressions"] =
        SuppressionsJson(summary.suppressions, SuppressionMatches(TallyReports(reports), *summary.suppressions));
  root["scenarios"] = list;
  return Text(root);
}

bool WriteJsonReport(const std::string& path, const std::vector<ScenarioReport>& reports,
                     const CheckSummary& summary, std::string* err) {
  return WriteReportFile(path, CheckJson(reports, summary), "JSON", err);
}

std::string FuzzJson(const FuzzReport& report) {
  const CampaignResult& r = report.result;
  ordered_json j;
  j["slotguard_fuzz"] = 1;
  j["slotguard_version"] = kSlotguardVersion;
  j["finished"] = report.finished.empty() ? UtcNow() : report.finished;
  j["seed"] = report.seed;
  if (!report.shard.empty()) j["shard"] = report.shard;
  j["backend"] = report.backend;
  if (!report.device.empty()) j["device"] = report.device;
  j["variant"] = report.variant.empty() ? "fixed" : report.variant;
  j["families"] = report.families;
  j["max_requests"] = report.max_requests;
  j["keep_going"] = report.keep_going;
  j["scenarios"] = r.scenarios;
  j["token_groups"] = r.tokens;
  j["seconds"] = r.seconds;
  j["scenarios_per_second"] = r.scenarios / std::max(r.seconds, 1e-9);
  if (r.kernel_seconds > 0)  // batched campaigns: where the time went
    j["phase_seconds"] = {{"generate", r.generate_seconds}, {"kernels", r.kernel_seconds}, {"check", r.check_seconds}};
  j["classification"] = r.classes;
  if (r.skipped) {  // the implementation being checked did not take them
    j["skipped"] = r.skipped;
    j["first_skip"] = r.first_skip;
  }
  if (!r.crash_classes.empty()) {  // fuzzing/crash_classes.h: each class once, with its counts
    j["deferred"] = r.deferred;
    ordered_json classes = ordered_json::array();
    for (const CrashClassReport& c : r.crash_classes)
      classes.push_back({{"signature", c.signature}, {"text", c.text}, {"shape", c.shape}, {"crashes", c.crashes},
                         {"active", c.active}, {"retired", c.retired}, {"deferred", c.deferred},
                         {"sampled", c.sampled}});
    j["crash_classes"] = classes;
  }
  if (report.inconsistent) {
    j["runner_state_findings"] = r.runner_state_findings;
    j["first_runner_state_finding"] = r.first_runner_state_finding;
  }
  j["found"] = r.Found();
  if (const CampaignFinding* first = r.FirstFound()) {  // as before --keep-going
    j["file"] = OrNull(first->written() ? first->file : "");
    j["replay_command"] = OrNull(first->written() ? first->replay_command : "");
    j["reproducer_error"] = OrNull(first->reproducer_error);
    j["invariant"] = first->invariant;
    j["fired"] = first->fired;
    j["scenario_index"] = first->finding_index;
  }
  j["distinct_findings"] = r.Distinct();
  j["finding_scenarios"] = r.finding_scenarios;
  j["unattributed"] = r.unattributed;
  j["suppressed_findings"] = r.SuppressedFindings();
  j["findings"] = CampaignFindingsJson(report);
  j["suppressions"] = CampaignSuppressionsJson(report);
  // --regressions: the folder, each file replayed with whether it holds, and what was added.
  if (report.regressions_dir.empty()) {
    j["regressions"] = nullptr;
  } else {
    ordered_json replayed = ordered_json::array();
    for (const ScenarioReport& reg : report.regressions)
      replayed.push_back({{"file", reg.file}, {"outcome", Outcome(reg)}});
    j["regressions"] = {{"dir", report.regressions_dir},
                        {"replayed", replayed},
                        {"failing", report.FailingRegressions()},
                        {"campaign_ran", report.campaign_ran},
                        {"added", report.regressions_added}};
  }
  return Text(j);
}

ordered_json CampaignFindingsJson(const FuzzReport& report) {
  const CampaignResult& r = report.result;
  ordered_json findings = ordered_json::array();
  for (const CampaignFinding& f : r.findings) {
    ordered_json fj = SignatureJson(f.signature.Id(), f.signature);
    fj["count"] = f.count;
    fj["shrunk"] = f.shrunk;
    fj["scenario_index"] = f.finding_index;
    fj["invariant"] = f.invariant;
    fj["fired"] = f.fired;
    fj["original_shape"] = ScenarioShape(f.original);
    ordered_json headlines = ordered_json::array();
    for (const GroupReport& g : f.groups) headlines.push_back(GroupHeadline(g));
    fj["causes"] = headlines;
    fj["recurred"] = f.recurred;
    fj["file"] = OrNull(f.written() ? f.file : "");
    fj["replay_command"] = OrNull(f.written() ? f.replay_command : "");
    fj["reproducer_error"] = OrNull(f.reproducer_error);
    fj["suppressed_by"] =
        f.suppressed_by < 0 ? ordered_json(nullptr)
                            : ordered_json(report.suppressions->entries[static_cast<size_t>(f.suppressed_by)].id);
    findings.push_back(fj);
  }
  return findings;
}

ordered_json CampaignSuppressionsJson(const FuzzReport& report) {
  return SuppressionsJson(report.suppressions, report.result.suppression_matches);
}

bool WriteFuzzJson(const std::string& path, const FuzzReport& report, std::string* err) {
  return WriteReportFile(path, FuzzJson(report), "JSON", err);
}

namespace {

/// Where a signature was seen: the report's file, its time, its index.
ordered_json SeenJson(const MergeResult& m, size_t report) {
  const CampaignReportFile& r = m.reports[report];
  return {{"report", r.path}, {"index", report}, {"finished", OrNull(r.finished)}};
}

}  // namespace

std::string MergeJson(const MergeResult& m) {
  ordered_json j;
  j["slotguard_merge"] = 1;
  j["slotguard_version"] = kSlotguardVersion;
  j["finished"] = UtcNow();
  j["ordered_by"] = m.by_finished ? "finished" : "arguments";
  ordered_json reports = ordered_json::array();
  for (size_t i = 0; i < m.reports.size(); ++i) {
    const CampaignReportFile& r = m.reports[i];
    size_t campaign = 0;
    for (size_t k = 0; k < m.campaigns.size(); ++k)
      for (size_t ri : m.campaigns[k].reports)
        if (ri == i) campaign = k;
    reports.push_back({{"file", r.path},
                       {"kind", r.kind},
                       {"finished", OrNull(r.finished)},
                       {"shard", OrNull(r.shard)},
                       {"campaign", campaign},
                       {"findings", r.findings.size()}});
  }
  j["reports"] = reports;
  ordered_json campaigns = ordered_json::array();
  for (const MergedCampaign& c : m.campaigns) {
    ordered_json cj = c.campaign;
    std::vector<std::string> shards;
    for (size_t i : c.reports)
      if (!m.reports[i].shard.empty()) shards.push_back(m.reports[i].shard);
    cj["shards"] = shards;
    cj["reports"] = c.reports;
    campaigns.push_back(cj);
  }
  j["campaigns"] = campaigns;
  j["distinct_findings"] = m.Unsuppressed();
  j["suppressed_signatures"] = static_cast<int64_t>(m.findings.size()) - m.Unsuppressed();
  ordered_json findings = ordered_json::array();
  for (const MergedFinding& f : m.findings) {
    const ReportFinding& last = m.Last(f);
    ordered_json fj = SignatureJson(last.id, last.signature);
    fj["first_seen"] = SeenJson(m, f.seen.front().report);
    fj["last_seen"] = SeenJson(m, f.seen.back().report);
    fj["reports"] = f.seen.size();
    fj["count"] = f.count;
    ordered_json seen = ordered_json::array();
    for (const Sighting& s : f.seen) {
      const ReportFinding& rf = m.reports[s.report].findings[s.finding];
      seen.push_back({{"report", s.report},
                      {"count", rf.count},
                      {"shape", rf.signature.shape},
                      {"file", OrNull(rf.file)},
                      {"suppressed_by", s.entry < 0 ? ordered_json(nullptr)
                                                    : ordered_json(m.suppressions[static_cast<size_t>(s.entry)].id)}});
    }
    fj["seen"] = seen;
    fj["reproducers"] = f.reproducers;
    fj["replay_command"] = OrNull(last.replay_command);
    fj["causes"] = last.causes;
    fj["suppressed_by"] =
        f.entry < 0 ? ordered_json(nullptr) : ordered_json(m.suppressions[static_cast<size_t>(f.entry)].id);
    findings.push_back(fj);
  }
  j["findings"] = findings;
  j["suppressions_file"] = OrNull(m.suppressions_file);
  ordered_json entries = ordered_json::array();
  for (const MergedSuppression& e : m.suppressions)
    entries.push_back({{"id", e.id},
                       {"reason", e.reason},
                       {"pointer", e.pointer},
                       {"matched", e.matched},
                       {"matched_in_reports", e.matched_in_reports},
                       {"stale", e.stale()}});
  j["suppressions"] = entries;
  return Text(j);
}

bool WriteMergeJson(const std::string& path, const MergeResult& merge, std::string* err) {
  return WriteReportFile(path, MergeJson(merge), "JSON", err);
}

}  // namespace slotguard
