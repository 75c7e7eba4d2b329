#include "runner/check_run.h"

#include <algorithm>
#include <new>

#include "registry/families.h"
#include "runner/scenario_files.h"
#include "util/error_line.h"
#include "util/parallel_for.h"

namespace slotguard {

std::vector<std::string> VariantRuns(const Scenario& scenario, const std::string& variant) {
  if (variant.empty()) return {""};
  if (variant != "all") return {variant};
  std::vector<std::string> names;
  for (const Group& group : scenario.groups)
    for (Variant v : VariantsOf(group.family))
      if (std::find(names.begin(), names.end(), GetVariant(v).name) == names.end())
        names.push_back(GetVariant(v).name);
  return names;
}

void ApplySuppressions(const Suppressions& suppressions, const Scenario& scenario, ScenarioReport* report) {
  // Only unexpected findings: a scenario that expects a finding and misses
  // it is a regression of the gate itself, never a known difference.
  if (report->status != ScenarioStatus::kChecked || report->holds || report->expect_finding || report->fired.empty())
    return;
  SuppressionSubject subject;
  subject.signature = &report->signature;
  subject.scenario = &scenario;
  subject.file = report->file;
  const int entry = MatchSuppression(suppressions, subject);
  if (entry < 0) return;
  const Suppression& e = suppressions.entries[static_cast<size_t>(entry)];
  report->suppressed_by = entry;
  report->suppressed_id = e.id;
  report->suppressed_reason = e.reason;
  report->holds = true;
  report->verdict = "suppressed by " + SuppressionLabel(e) + ": " + report->verdict;
}

namespace {

std::vector<ScenarioReport> CheckLoadedFile(const std::string& file, const CheckRunOptions& options, Backend& backend,
                                            std::string* name) {
  Scenario scenario;
  std::string err;
  if (!LoadRunScenario(file, options.limits, options.table_layout, &scenario, &err)) {
    ScenarioReport bad;
    bad.file = file;
    bad.status = ScenarioStatus::kBadInput;
    bad.error = err;
    return {bad};
  }
  *name = scenario.name;
  if (options.zero_null) scenario.graph.zero_null = *options.zero_null;
  std::vector<ScenarioReport> reports;
  for (const std::string& variant : VariantRuns(scenario, options.variant)) {
    Scenario run = scenario;
    if (!variant.empty() && !ForceVariant(variant, &run)) continue;  // no group has it
    reports.push_back(CheckScenario(run, file, backend, 8, options.cuda_graph));
    reports.back().forced_variant = variant;
    if (options.suppressions) ApplySuppressions(*options.suppressions, run, &reports.back());
  }
  if (reports.empty()) {  // --variant NAME that no group of this scenario has
    reports.push_back(CheckScenario(scenario, file, backend, 8, options.cuda_graph));
    reports.back().verdict += " (no group has variant " + options.variant + ")";
    if (options.suppressions) ApplySuppressions(*options.suppressions, scenario, &reports.back());
  }
  return reports;
}

}  // namespace

std::vector<ScenarioReport> CheckFile(const std::string& file, const CheckRunOptions& options, Backend& backend) {
  std::string name;
  try {
    return CheckLoadedFile(file, options, backend, &name);
  } catch (const std::bad_alloc&) {
    // The budget (--max-memory-mib) is an estimate: this machine had less.
    ScenarioReport oom;
    oom.file = file;
    oom.name = name;
    oom.status = ScenarioStatus::kEnvironmentError;
    oom.error = OutOfMemoryText(EscapeText(file, 0) + (name.empty() ? "" : " (scenario " + QuoteName(name) + ")"));
    return {oom};
  }
}

std::vector<ScenarioReport> CheckFiles(const std::vector<std::string>& files, const CheckRunOptions& options,
                                       Backend& backend) {
  std::vector<std::vector<ScenarioReport>> per_file(files.size());
  ParallelFor(files.size(), options.jobs, [&](size_t i) {
    if (options.stop && options.stop->load() != 0) return;  // stopped: begin no more files
    per_file[i] = CheckFile(files[i], options, backend);
  });
  std::vector<ScenarioReport> reports;
  for (auto& list : per_file)
    for (ScenarioReport& r : list) reports.push_back(std::move(r));
  return reports;
}

}  // namespace slotguard
