// SARIF 2.1.0 (OASIS): the check results as code-scanning alerts, from the
// same reports as JUnit and JSON. One rule per invariant (ruleId
// "slotguard/<invariant>", the registry's description), plus rules for a
// scenario that expected a finding none gave, bad input and environment
// errors. A result is located at the scenario file and, as a logical
// location, the JSON pointer of the group (never at slotguard's own
// source); its partialFingerprints hash what the finding is, not where the
// run happened, so re-runs update one alert instead of adding one. A fuzz
// campaign's distinct findings are results at their reproducer files,
// fingerprinted by their signatures (runner/finding_signature.h), not by
// the seed or the stream index that found them. A finding a suppression
// covers is a result with a SARIF suppression (kind external, the entry's
// reason as its justification): code scanning shows it dismissed.
#include <nlohmann/json.hpp>

#include "registry/families.h"
#include "registry/invariants.h"
#include "report/fuzz_report.h"
#include "report/report.h"
#include "util/did_you_mean.h"
#include "util/fingerprint.h"

namespace slotguard {
namespace {

using nlohmann::ordered_json;

constexpr char kMissingRule[] = "slotguard/expected-finding-missing";
constexpr char kBadInputRule[] = "slotguard/bad-input";
constexpr char kEnvironmentRule[] = "slotguard/environment-error";

ordered_json Rule(const std::string& id, const std::string& name, const std::string& text) {
  ordered_json r;
  r["id"] = id;
  r["name"] = name;
  r["shortDescription"] = {{"text", text}};
  r["fullDescription"] = {{"text", text}};
  return r;
}

/// The JSON pointer at the start of a one-line load error
/// ("FILE:/groups/0/kernel: problem"), "" when it has none.
std::string ErrorPointer(const ScenarioReport& r) {
  if (r.error.compare(0, r.file.size() + 2, r.file + ":/") != 0) return "";
  const size_t start = r.file.size() + 1;
  const size_t end = r.error.find(": ", start);
  return r.error.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

ordered_json Result(const std::string& rule, const std::string& level, const std::string& message,
                    const std::string& file, const std::string& pointer, const std::string& identity) {
  ordered_json res;
  res["ruleId"] = rule;
  res["level"] = level;
  res["message"] = {{"text", message}};
  ordered_json location;
  location["physicalLocation"] = {{"artifactLocation", {{"uri", file}}}, {"region", {{"startLine", 1}}}};
  if (!pointer.empty())
    location["logicalLocations"] = ordered_json::array({{{"fullyQualifiedName", pointer}, {"kind", "object"}}});
  res["locations"] = ordered_json::array({location});
  res["partialFingerprints"] = {{"slotguardFinding/v1", Fingerprint(rule + "\n" + identity)}};
  return res;
}

/// A SARIF suppression: the finding is known, for `reason`. Its level is
/// note: GitHub code scanning does not read SARIF suppressions
/// (github/codeql-action#1230), so it shows a known difference as a note,
/// not as an error.
void Suppress(const std::string& id, const std::string& reason, ordered_json* result) {
  (*result)["level"] = "note";
  (*result)["suppressions"] =
      ordered_json::array({{{"kind", "external"}, {"status", "accepted"}, {"justification", id + ": " + reason}}});
}

ordered_json Rules() {
  ordered_json rules = ordered_json::array();
  for (const InvariantInfo& info : AllInvariants())
    rules.push_back(Rule(std::string("slotguard/") + info.name, info.name, info.description));
  rules.push_back(Rule(kMissingRule, "expected-finding-missing",
                       "the scenario expects a finding (its expect block), and the invariant did not fire"));
  rules.push_back(Rule(kBadInputRule, "bad-input", "the scenario file cannot be loaded"));
  rules.push_back(Rule(kEnvironmentRule, "environment-error",
                       "the backend failed to run the scenario (no device, out of memory, a CUDA error)"));
  return rules;
}

/// The log: one run of slotguard with `results`.
std::string Log(ordered_json results, ordered_json properties) {
  ordered_json driver;
  driver["name"] = "slotguard";
  driver["version"] = std::string(kSlotguardVersion);
  driver["rules"] = Rules();
  ordered_json run;
  run["tool"] = {{"driver", driver}};
  run["results"] = std::move(results);
  run["properties"] = std::move(properties);
  ordered_json root;
  root["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  root["version"] = "2.1.0";
  root["runs"] = ordered_json::array({run});
  return ReportJsonText(std::move(root));
}

}  // namespace

std::string CheckSarif(const std::vector<ScenarioReport>& reports, const CheckSummary& summary) {
  ordered_json results = ordered_json::array();
  for (const ScenarioReport& r : reports) {
    if (r.status == ScenarioStatus::kBadInput) {
      results.push_back(Result(kBadInputRule, "error", r.error, r.file, ErrorPointer(r), r.file + "\n" + r.error));
      continue;
    }
    if (r.status == ScenarioStatus::kEnvironmentError) {
      results.push_back(Result(kEnvironmentRule, "error", r.error, r.file, "", r.file + "\n" + r.name));
      continue;
    }
    const bool suppressed = r.suppressed_by >= 0;
    if (r.status != ScenarioStatus::kChecked || (r.holds && !suppressed)) continue;
    if (r.expect_finding) {  // it fails only by what did not fire (JudgeExpectation)
      std::vector<std::string> missing;
      for (const std::string& name : r.expected_invariants)
        if (!r.fired.count(name)) missing.push_back(name);
      if (r.total_findings == 0) missing = {""};
      for (const std::string& name : missing)
        results.push_back(Result(kMissingRule, "error",
                                 (name.empty() ? r.verdict : "expected " + name + ", it did not fire (" + r.verdict + ")") +
                                     " in scenario " + r.name,
                                 r.file, "/expect", r.file + "\n" + r.name + "\n" + name + "\n" + r.forced_variant));
      continue;
    }
    for (size_t g = 0; g < r.groups.size(); ++g) {  // every finding is unexpected
      const GroupReport& group = r.groups[g];
      for (const auto& [invariant, count] : group.counts) {
        std::string first;
        for (const Finding& f : group.findings)
          if (f.invariant == invariant) {
            first = FindingLine(r, group.name, f);
            break;
          }
        const std::string message = std::to_string(count) + " " + invariant + " finding" + (count == 1 ? "" : "s") +
                                    " in group " + group.name + " (" + GetFamily(group.family).name + ", variant " +
                                    GetVariant(group.variant).name + ") of scenario " + r.name +
                                    (first.empty() ? "" : ": " + first);
        // What the finding is: the scenario, the group, its kernel and
        // variant, the invariant (not the count, the backend or the run).
        const std::string identity = r.file + "\n" + r.name + "\n" + group.name + "\n" + GetFamily(group.family).name + "\n" +
                                     GetVariant(group.variant).name + "\n" + invariant;
        results.push_back(Result("slotguard/" + invariant, "error", message, r.file, "/groups/" + std::to_string(g),
                                 identity));
        if (suppressed) Suppress(r.suppressed_id, r.suppressed_reason, &results.back());
      }
    }
  }
  return Log(std::move(results), {{"backend", summary.backend}, {"implementation", summary.implementation}});
}

bool WriteSarif(const std::string& path, const std::vector<ScenarioReport>& reports, const CheckSummary& summary,
                std::string* err) {
  return WriteReportFile(path, CheckSarif(reports, summary), "SARIF", err);
}

std::string SarifLogText(nlohmann::ordered_json results, nlohmann::ordered_json properties) {
  return Log(std::move(results), std::move(properties));
}

nlohmann::ordered_json CampaignSarifResults(const FuzzReport& report,
                                            const std::function<std::string(const CampaignFinding&)>& origin) {
  ordered_json results = ordered_json::array();
  for (const CampaignFinding& f : report.result.findings) {
    const std::string message = origin(f) + ", signature " + f.signature.Id() + ": " +
                                f.signature.Text() + "; " + std::to_string(f.count) + " findings; the reproducer fires " +
                                JoinNames(f.fired) + (!f.reproducer_error.empty() ? "; " + f.reproducer_error
                                                     : f.file.empty() ? "" : "; replay it with: slotguard replay " + f.file);
    // The finding's signature: what it is, not where in the stream it was
    // found (another seed that finds the same bug gives the same one). A
    // suppressed signature has no reproducer: its result is at the entry
    // that suppresses it.
    const Suppression* e =
        f.suppressed_by >= 0 ? &report.suppressions->entries[static_cast<size_t>(f.suppressed_by)] : nullptr;
    results.push_back(Result("slotguard/" + f.invariant, "error", message, e ? report.suppressions->file : f.file,
                             e ? e->pointer : "", f.signature.Text()));
    if (e) Suppress(e->id, e->reason, &results.back());
  }
  return results;
}

std::string FuzzSarif(const FuzzReport& report) {
  ordered_json results = CampaignSarifResults(report, [&](const CampaignFinding& f) {
    return "fuzz (seed " + std::to_string(report.seed) + ", scenario " + std::to_string(f.finding_index) + ")";
  });
  return Log(std::move(results), {{"backend", report.backend}, {"seed", report.seed}});
}

bool WriteFuzzSarif(const std::string& path, const FuzzReport& report, std::string* err) {
  return WriteReportFile(path, FuzzSarif(report), "SARIF", err);
}

}  // namespace slotguard
