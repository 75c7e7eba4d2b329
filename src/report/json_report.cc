// The JSON reports: of a `check` run (--json) and of a `fuzz` campaign
// (--json), built and written here, one writer for both.
#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "registry/families.h"
#include "report/fuzz_report.h"
#include "report/report.h"

namespace slotguard {
namespace {

using nlohmann::ordered_json;

std::string Text(const ordered_json& root) { return root.dump(2) + "\n"; }

bool WriteJsonFile(const std::string& path, const std::string& text, std::string* err) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) {
    *err = path + ": cannot write the JSON report";
    return false;
  }
  return true;
}

}  // namespace

std::string CheckJson(const std::vector<ScenarioReport>& reports, const CheckSummary& summary) {
  ordered_json root;
  root["slotguard_report"] = 1;
  root["backend"] = summary.backend;
  if (!summary.device.empty()) root["device"] = summary.device;
  if (!summary.implementation.empty()) root["implementation"] = summary.implementation;
  root["seconds"] = summary.seconds;
  ordered_json list = ordered_json::array();
  bool all_hold = true;
  for (const ScenarioReport& r : reports) {
    ordered_json s;
    s["file"] = r.file;
    s["name"] = r.name;
    if (!r.forced_variant.empty()) s["variant"] = r.forced_variant;
    if (r.status == ScenarioStatus::kSkipped) {
      s["status"] = "skipped";
      s["verdict"] = r.verdict;
      list.push_back(s);
      continue;
    }
    if (r.status != ScenarioStatus::kChecked) {
      s["status"] = r.status == ScenarioStatus::kBadInput ? "bad_input" : "environment_error";
      s["error"] = r.error;
      all_hold = false;
      list.push_back(s);
      continue;
    }
    s["status"] = "checked";
    s["holds"] = r.holds;
    s["verdict"] = r.verdict;
    s["expected"] = r.expect_finding ? "finding" : "pass";
    s["tokens"] = r.tokens;
    s["seconds"] = r.seconds;
    all_hold = all_hold && r.holds;
    ordered_json groups = ordered_json::array();
    for (const GroupReport& g : r.groups) {
      ordered_json gj;
      gj["name"] = g.name;
      gj["kernel"] = GetFamily(g.family).name;
      gj["variant"] = GetVariant(g.variant).name;
      gj["counts"] = g.counts;
      ordered_json findings = ordered_json::array();
      for (const Finding& f : g.findings) {
        ordered_json fj;
        fj["invariant"] = f.invariant;
        fj["output"] = f.output;
        if (f.token >= 0) {
          fj["token"] = f.token;
          fj["request"] = f.request;
          fj["position"] = f.position;
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
  root["scenarios"] = list;
  return Text(root);
}

bool WriteJsonReport(const std::string& path, const std::vector<ScenarioReport>& reports,
                     const CheckSummary& summary, std::string* err) {
  return WriteJsonFile(path, CheckJson(reports, summary), err);
}

std::string FuzzJson(const FuzzReport& report) {
  ordered_json j;
  j["slotguard_fuzz"] = 1;
  j["seed"] = report.seed;
  j["backend"] = report.backend;
  j["variant"] = report.variant.empty() ? "fixed" : report.variant;
  j["max_requests"] = report.max_requests;
  j["scenarios"] = report.scenarios;
  j["token_groups"] = report.tokens;
  j["seconds"] = report.seconds;
  j["scenarios_per_second"] = report.scenarios / std::max(report.seconds, 1e-9);
  if (report.kernel_seconds > 0)  // batched campaigns: where the time went
    j["phase_seconds"] = {{"generate", report.generate_seconds},
                          {"kernels", report.kernel_seconds},
                          {"check", report.check_seconds}};
  j["classification"] = report.classes;
  if (report.skipped) {  // the implementation being checked did not take them
    j["skipped"] = report.skipped;
    j["first_skip"] = report.first_skip;
  }
  if (report.inconsistent) {
    j["runner_state_findings"] = report.runner_state_findings;
    j["first_runner_state_finding"] = report.first_runner_state_finding;
  }
  j["found"] = report.found;
  if (report.found) {
    j["file"] = report.file;
    j["invariant"] = report.invariant;
    j["fired"] = report.fired;
    j["scenario_index"] = report.finding_index;
  }
  return Text(j);
}

bool WriteFuzzJson(const std::string& path, const FuzzReport& report, std::string* err) {
  return WriteJsonFile(path, FuzzJson(report), err);
}

}  // namespace slotguard
