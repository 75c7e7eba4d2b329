#include "report/fuzz_report.h"

#include <algorithm>
#include <cstdio>

namespace slotguard {

std::string ScenarioShape(const Scenario& s) {
  return std::to_string(s.batch.num_reqs()) + " requests, " + std::to_string(s.batch.num_tokens) + " tokens, " +
         std::to_string(s.groups.size()) + " groups";
}

void PrintFuzzReport(const FuzzReport& report, const std::vector<std::string>& operators, std::ostream& out) {
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.0f scenarios/s, %.2f s", report.scenarios / std::max(report.seconds, 1e-9),
                report.seconds);
  if (report.inconsistent)
    out << "fuzz: " << report.runner_state_findings
        << " runner-state findings (the batch state routes tokens to block 0; a correct kernel has them too)"
        << (report.first_runner_state_finding >= 0
                ? "; the first in scenario " + std::to_string(report.first_runner_state_finding)
                : std::string())
        << "\n";
  if (report.skipped)
    out << "fuzz: " << report.skipped << " scenarios skipped: the implementation does not take them (first: "
        << report.first_skip << ")\n";
  if (!report.found) {
    std::string classes, never;
    for (const std::string& op : operators) {
      auto it = report.classes.find(op);
      if (it == report.classes.end()) {
        if (op.rfind("fault_", 0) == 0 && !report.inconsistent) continue;  // only with --inconsistent
        never += (never.empty() ? "" : ", ") + op;
      } else {
        classes += (classes.empty() ? "" : " ") + op + "=" + std::to_string(it->second);
      }
    }
    out << "fuzz: classification: " << classes << "\n";
    if (!never.empty()) out << "fuzz: operators never exercised: " << never << "\n";
    out << "slotguard: fuzz: " << report.scenarios << " scenarios, " << report.tokens << " token-groups, " << rate
        << ", no finding, backend " << report.backend << ", seed " << report.seed
        << (report.shard.empty() ? "" : ", shard " + report.shard) << "\n";
    return;
  }
  for (const std::string& line : report.finding_lines) out << line << "\n";
  std::string fired;
  for (const std::string& f : report.fired) fired += (fired.empty() ? "" : ", ") + f;
  out << "fuzz: finding in scenario " << report.finding_index << " after " << report.scenarios << " scenarios ("
      << rate << "): " << fired << "; minimized from " << report.original_shape << " to " << report.minimized_shape
      << "\n";
  out << "slotguard: fuzz: finding written to " << report.file << "; replay it with: slotguard replay "
      << report.file << "\n";
}

}  // namespace slotguard
