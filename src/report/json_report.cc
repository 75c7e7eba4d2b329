// Machine-readable report of a `check` run.
#include <fstream>

#include <nlohmann/json.hpp>

#include "registry/families.h"
#include "report/report.h"

namespace slotguard {

bool WriteJsonReport(const std::string& path, const std::vector<ScenarioReport>& reports,
                     const CheckSummary& summary, std::string* err) {
  using nlohmann::ordered_json;
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
  std::ofstream out(path);
  out << root.dump(2) << "\n";
  out.close();
  if (!out) {
    *err = path + ": cannot write the JSON report";
    return false;
  }
  return true;
}

}  // namespace slotguard
