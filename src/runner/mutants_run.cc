#include "runner/mutants_run.h"

#include <algorithm>

#include "registry/families.h"
#include "runner/scenario_files.h"
#include "runner/scenario_run.h"
#include "util/parallel_for.h"

namespace slotguard {
namespace {

std::map<std::string, int64_t> Counts(const ScenarioReport& report) {
  std::map<std::string, int64_t> counts;
  for (const GroupReport& g : report.groups)
    for (const auto& [name, count] : g.counts) counts[name] += count;
  return counts;
}

}  // namespace

MutantsFile RunMutantsFile(const std::string& file, const LoadLimits& limits, Backend& backend,
                           const std::optional<TableLayoutKind>& table_layout) {
  MutantsFile result;
  result.file = file;
  Scenario scenario;
  if (!LoadRunScenario(file, limits, table_layout, &scenario, &result.error)) return result;
  const bool forces_variant = std::any_of(scenario.groups.begin(), scenario.groups.end(),
                                          [](const Group& g) { return g.variant != FixedVariant(g.family); });
  Scenario fixed = scenario;
  for (Group& g : fixed.groups) {
    g.variant = FixedVariant(g.family);
    result.families.insert(g.family);
  }
  const ScenarioReport baseline = CheckScenario(fixed, file, backend, 1);
  if (baseline.status == ScenarioStatus::kSkipped) {  // the implementation does not take it: no evidence either way
    result.families.clear();
    return result;
  }
  if (baseline.status != ScenarioStatus::kChecked) {
    result.error = baseline.error;
    result.environment = true;
    return result;
  }
  const std::map<std::string, int64_t> base = Counts(baseline);
  // A file whose own groups are all fixed and that expects findings is an
  // inconsistent batch on purpose: its fixed findings are expected.
  result.fixed_has_expected_findings = !forces_variant && scenario.expect.verdict == Verdict::kFinding;
  if (!result.fixed_has_expected_findings)
    for (const GroupReport& g : baseline.groups)
      for (const auto& [name, count] : g.counts)
        result.fixed_failures.push_back(file + ": group " + g.name + ": " + name + " fired " +
                                        std::to_string(count) + " times with every variant fixed");
  for (Family family : result.families) {
    for (Variant v : VariantsOf(family)) {
      if (v == FixedVariant(family)) continue;
      Scenario mutant = fixed;
      for (Group& g : mutant.groups)
        if (g.family == family) g.variant = v;
      const ScenarioReport report = CheckScenario(mutant, file, backend, 1);
      if (report.status == ScenarioStatus::kSkipped) continue;  // this variant: no evidence from this file
      if (report.status != ScenarioStatus::kChecked) {
        result.error = report.error;
        result.environment = true;
        return result;
      }
      for (const auto& [name, count] : Counts(report)) {
        auto it = base.find(name);
        if (count > (it == base.end() ? 0 : it->second)) result.caught[v].insert(name);
      }
    }
  }
  return result;
}

MutantsResult RunMutantsExperiment(const std::vector<std::string>& files, const LoadLimits& limits, int jobs,
                                   Backend& backend, const std::optional<TableLayoutKind>& table_layout) {
  MutantsResult result;
  result.files.resize(files.size());
  ParallelFor(files.size(), jobs,
              [&](size_t i) { result.files[i] = RunMutantsFile(files[i], limits, backend, table_layout); });
  for (const MutantsFile& r : result.files) {
    if (!r.error.empty()) {
      (r.environment ? result.environment : result.bad_input) = true;
      continue;
    }
    for (Family family : r.families) {
      result.family_scenarios[family]++;
      result.family_expected[family] += r.fixed_has_expected_findings;
      for (Variant v : VariantsOf(family)) result.variants[v].scenarios++;
    }
    for (const auto& [v, fired] : r.caught) {
      result.variants[v].caught_by.push_back(r.file);
      result.variants[v].fired.insert(fired.begin(), fired.end());
    }
    result.fixed_failures.insert(result.fixed_failures.end(), r.fixed_failures.begin(), r.fixed_failures.end());
  }
  for (const FamilyInfo& family : AllFamilies()) {
    if (!result.family_scenarios.count(family.family)) continue;
    for (Variant v : VariantsOf(family.family))
      if (v != FixedVariant(family.family) && result.variants[v].caught_by.empty())
        result.survivors.push_back(std::string(family.name) + "/" + GetVariant(v).name);
  }
  return result;
}

}  // namespace slotguard
