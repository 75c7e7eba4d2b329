// `slotguard mutants`: the control experiment. For every family in the
// scenarios and every one of its variants, run each scenario with that
// variant forced on the family's groups (every other group fixed) and
// compare with the all-fixed run: a variant is caught by a scenario when some
// invariant fires more often than with `fixed`. The fixed run itself must be
// clean, except in scenarios that expect findings from `fixed` (inconsistent
// batches, on purpose).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <thread>

#include "backend/gpu_device.h"
#include "cli/command_setup.h"
#include "cli/commands.h"
#include "registry/families.h"
#include "runner/scenario_files.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"
#include "util/parallel_for.h"

namespace slotguard {
namespace {

struct VariantTally {
  std::vector<std::string> caught_by;  // files
  std::set<std::string> fired;         // invariants that fired more than with fixed
  int scenarios = 0;                   // scenarios with a group of this family
};

struct FileResult {
  std::string error;  // bad input or environment
  bool environment = false;
  bool fixed_has_expected_findings = false;
  std::vector<std::string> fixed_failures;  // "file: group: invariant x N"
  std::map<Variant, std::set<std::string>> caught;  // variant -> invariants
  std::set<Family> families;
};

std::map<std::string, int64_t> Counts(const ScenarioReport& report) {
  std::map<std::string, int64_t> counts;
  for (const GroupReport& g : report.groups)
    for (const auto& [name, count] : g.counts) counts[name] += count;
  return counts;
}

FileResult RunFile(const std::string& file, const MutantsOptions& options, Backend& backend) {
  FileResult result;
  Scenario scenario;
  if (!LoadScenarioFile(file, options.limits, &scenario, &result.error)) return result;
  const bool forces_variant = std::any_of(scenario.groups.begin(), scenario.groups.end(),
                                          [](const Group& g) { return g.variant != FixedVariant(g.family); });
  Scenario fixed = scenario;
  for (Group& g : fixed.groups) {
    g.variant = FixedVariant(g.family);
    result.families.insert(g.family);
  }
  const ScenarioReport baseline = CheckScenario(fixed, file, backend, 1);
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

std::string Join(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

int RunMutants(const MutantsOptions& options, std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> files;
  if (!OpenScenarioFiles(options.paths, &files, err)) return kExitBadInput;
  int open_status;
  std::unique_ptr<Backend> backend = OpenBackend(options.backend, options.setup, err, &open_status);
  if (!backend) return open_status;
  std::vector<FileResult> results(files.size());
  ParallelFor(files.size(), options.jobs, [&](size_t i) { results[i] = RunFile(files[i], options, *backend); });

  std::map<Variant, VariantTally> tally;
  std::map<Family, int> family_scenarios, family_expected;
  std::vector<std::string> fixed_failures;
  bool bad_input = false, environment = false;
  for (size_t i = 0; i < files.size(); ++i) {
    const FileResult& r = results[i];
    if (!r.error.empty()) {
      err << "ERROR " << r.error << "\n";
      (r.environment ? environment : bad_input) = true;
      continue;
    }
    for (Family family : r.families) {
      family_scenarios[family]++;
      family_expected[family] += r.fixed_has_expected_findings;
      for (Variant v : VariantsOf(family)) tally[v].scenarios++;
    }
    for (const auto& [v, fired] : r.caught) {
      tally[v].caught_by.push_back(files[i]);
      tally[v].fired.insert(fired.begin(), fired.end());
    }
    fixed_failures.insert(fixed_failures.end(), r.fixed_failures.begin(), r.fixed_failures.end());
  }
  if (environment) return kExitEnvironment;
  if (bad_input) return kExitBadInput;

  out << "mutants: every variant forced over " << files.size() << " scenario files, backend "
      << backend->Describe() << "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-16s %-16s %-10s %s\n", "family", "variant", "caught by",
                "invariants fired beyond fixed");
  out << line;
  std::vector<std::string> survivors;
  for (const FamilyInfo& family : AllFamilies()) {
    if (!family_scenarios.count(family.family)) continue;
    for (Variant v : VariantsOf(family.family)) {
      const VariantTally& t = tally[v];
      std::string caught, fired;
      if (v == FixedVariant(family.family)) {
        caught = "-";
        fired = "clean in " + std::to_string(family_scenarios[family.family] - family_expected[family.family]) +
                " scenarios";
        if (family_expected[family.family])
          fired += " (+" + std::to_string(family_expected[family.family]) + " expected batch-state findings)";
      } else {
        caught = std::to_string(t.caught_by.size()) + "/" + std::to_string(t.scenarios);
        fired = t.caught_by.empty() ? "SURVIVED" : Join(t.fired);
        if (t.caught_by.empty())
          survivors.push_back(std::string(family.name) + "/" + GetVariant(v).name);
      }
      std::snprintf(line, sizeof line, "%-16s %-16s %-10s %s\n", family.name, GetVariant(v).name,
                    caught.c_str(), fired.c_str());
      out << line;
    }
  }
  for (const VariantInfo& v : AllVariants()) {
    const VariantTally& t = tally[v.variant];
    if (t.caught_by.empty()) continue;
    out << "  " << GetFamily(v.family).name << "/" << v.name << " caught by:";
    for (size_t i = 0; i < t.caught_by.size() && i < 4; ++i) out << " " << t.caught_by[i];
    if (t.caught_by.size() > 4) out << " (+" << t.caught_by.size() - 4 << " more)";
    out << "\n";
  }
  for (const std::string& f : fixed_failures) out << "FAIL  fixed: " << f << "\n";
  for (const std::string& s : survivors)
    out << "FAIL  mutant " << s << " survived: no scenario catches it\n";
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::snprintf(line, sizeof line, "%.3f", seconds);
  out << "slotguard: mutants: " << survivors.size() << " survivors, " << fixed_failures.size()
      << " fixed-variant failures, " << files.size() << " scenario files, backend " << backend->Describe()
      << ", " << line << " s\n";
  return survivors.empty() && fixed_failures.empty() ? kExitHolds : kExitFindings;
}

}  // namespace slotguard
