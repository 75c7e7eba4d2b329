// `slotguard check`: the CI gate.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "backend/gpu_device.h"
#include "cli/command_setup.h"
#include "cli/commands.h"
#include "registry/families.h"
#include "report/report.h"
#include "runner/scenario_files.h"
#include "scenario/scenario_json.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"
#include "util/parallel_for.h"

namespace slotguard {

namespace {

/// The variant runs of one scenario: its own, one forced name, or every
/// variant name its groups' families have.
std::vector<std::string> VariantRuns(const Scenario& scenario, const std::string& option) {
  if (option.empty()) return {""};
  if (option != "all") return {option};
  std::vector<std::string> names;
  for (const Group& group : scenario.groups)
    for (Variant v : VariantsOf(group.family))
      if (std::find(names.begin(), names.end(), GetVariant(v).name) == names.end())
        names.push_back(GetVariant(v).name);
  return names;
}

std::vector<ScenarioReport> CheckFile(const std::string& file, const CheckOptions& options,
                                      Backend& backend) {
  Scenario scenario;
  std::string err;
  if (!LoadScenarioFile(file, options.limits, &scenario, &err)) {
    ScenarioReport bad;
    bad.file = file;
    bad.status = ScenarioStatus::kBadInput;
    bad.error = err;
    return {bad};
  }
  std::vector<ScenarioReport> reports;
  for (const std::string& variant : VariantRuns(scenario, options.variant)) {
    Scenario run = scenario;
    if (!variant.empty() && !ForceVariant(variant, &run)) continue;  // no group has it
    reports.push_back(CheckScenario(run, file, backend, 8, options.setup.cuda_graph));
    reports.back().forced_variant = variant;
  }
  if (reports.empty()) {  // --variant NAME that no group of this scenario has
    reports.push_back(CheckScenario(scenario, file, backend, 8, options.setup.cuda_graph));
    reports.back().verdict += " (no group has variant " + options.variant + ")";
  }
  return reports;
}

}  // namespace

int RunCheck(const CheckOptions& options, std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  std::string problem;
  if (!ValidateVariantName(options.variant, &problem)) {
    err << ErrorLine(problem);
    return kExitBadInput;
  }
  std::vector<std::string> files;
  if (!OpenScenarioFiles(options.paths, &files, err)) return kExitBadInput;
  int open_status;
  std::unique_ptr<Backend> backend = OpenBackend(options.backend, options.setup, err, &open_status);
  if (!backend) return open_status;
  CheckSummary summary;
  summary.backend = backend->name();
  if (summary.backend == "gpu") summary.device = GpuDescription();
  summary.implementation = backend->provider() ? backend->provider()->name() : "";

  // Scenarios run on `jobs` threads; reports are printed in file order.
  std::vector<std::vector<ScenarioReport>> per_file(files.size());
  ParallelFor(files.size(), options.jobs, [&](size_t i) { per_file[i] = CheckFile(files[i], options, *backend); });

  std::vector<ScenarioReport> reports;
  for (auto& list : per_file)
    for (ScenarioReport& r : list) reports.push_back(std::move(r));

  bool bad_input = false, environment = false, failed = false;
  for (const ScenarioReport& r : reports) {
    bad_input |= r.status == ScenarioStatus::kBadInput;
    environment |= r.status == ScenarioStatus::kEnvironmentError;
    failed |= r.status == ScenarioStatus::kChecked && !r.holds;
    const bool show_findings = options.verbose || (r.status == ScenarioStatus::kChecked && !r.holds);
    if (r.status != ScenarioStatus::kChecked) {
      err << ScenarioLine(r) << "\n";
      continue;
    }
    if (show_findings)
      for (const GroupReport& g : r.groups) {
        for (const Finding& f : g.findings) out << FindingLine(r, g.name, f) << "\n";
        for (const auto& [name, count] : g.counts) {
          int64_t shown = 0;
          for (const Finding& f : g.findings) shown += f.invariant == name;
          if (count > shown)
            out << r.file << ": " << r.name << ": group " << g.name << ": " << name << ": "
                << count - shown << " more findings not shown\n";
        }
      }
    if (!options.quiet || !r.holds) out << ScenarioLine(r) << "\n";
  }
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!options.junit_path.empty() && !WriteJUnit(options.junit_path, reports, summary, &problem)) {
    err << ErrorLine(problem);
    return kExitBadInput;
  }
  if (!options.json_path.empty() &&
      !WriteJsonReport(options.json_path, reports, summary, &problem)) {
    err << ErrorLine(problem);
    return kExitBadInput;
  }
  out << SummaryLine(reports, summary) << "\n";
  if (environment) return kExitEnvironment;
  if (bad_input) return kExitBadInput;
  return failed ? kExitFindings : kExitHolds;
}

}  // namespace slotguard
