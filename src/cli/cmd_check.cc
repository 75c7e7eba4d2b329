// `slotguard check`: the CI gate. runner/check_run.h checks the files;
// this prints the reports and picks the exit code.
#include <chrono>

#include "backend/gpu_device.h"
#include "cli/command_setup.h"
#include "cli/commands.h"
#include "registry/families.h"
#include "report/report.h"
#include "runner/check_run.h"
#include "scenario/scenario_json.h"
#include "util/error_line.h"

namespace slotguard {

namespace {

/// --validate: each file loaded as a check would load it, nothing run.
int ValidateScenarioFiles(const std::vector<std::string>& files, const LoadLimits& limits, std::ostream& out,
                          std::ostream& err) {
  int64_t bad = 0;
  for (const std::string& file : files) {
    Scenario scenario;
    std::string problem;
    if (LoadScenarioFile(file, limits, &scenario, &problem)) continue;
    err << ErrorLine(problem);
    ++bad;
  }
  const int64_t n = static_cast<int64_t>(files.size());
  out << "slotguard: check --validate: " << n - bad << " of " << n << " scenario file" << (n == 1 ? "" : "s")
      << " load" << (n == 1 ? "s" : "") << ", nothing run\n";
  return bad ? kExitBadInput : kExitHolds;
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
  if (options.validate) return ValidateScenarioFiles(files, options.limits, out, err);
  std::vector<NamedFile> inputs = ImplementationFiles(options.setup.provider);
  inputs.push_back({"--suppressions", options.suppressions_path});
  for (const std::string& f : files) inputs.push_back({"scenario file", f});
  if (!CheckSarifRoot(options.sarif_root, err)) return kExitBadInput;
  if (!CheckOutputs({{"--junit", options.junit_path}, {"--json", options.json_path}, {"--sarif", options.sarif_path}},
                    inputs, err))
    return kExitBadInput;
  Suppressions suppressions;
  if (!options.suppressions_path.empty() && !LoadSuppressions(options.suppressions_path, &suppressions, &problem)) {
    err << ErrorLine(problem);
    return kExitBadInput;
  }
  int open_status;
  std::unique_ptr<Backend> backend = OpenBackend(options.backend, options.setup, err, &open_status);
  if (!backend) return open_status;
  CheckSummary summary;
  summary.backend = backend->name();
  if (summary.backend == "gpu") summary.device = GpuDescription();
  summary.implementation = backend->provider() ? backend->provider()->name() : "";
  summary.sarif_root = options.sarif_root;

  if (!options.suppressions_path.empty()) summary.suppressions = &suppressions;
  CheckRunOptions run;
  run.suppressions = summary.suppressions;
  run.variant = options.variant;
  run.cuda_graph = options.setup.cuda_graph;
  run.jobs = options.jobs;
  run.limits = LimitsFor(options.limits, *backend, options.setup);
  run.table_layout = options.setup.table_layout;
  run.zero_null = options.setup.zero_null;
  const std::vector<ScenarioReport> reports = CheckFiles(files, run, *backend);
  // --variant NAME that no scenario under the paths has: each ran as it is,
  // and a CI job with a misplaced variant would stay green. A usage error.
  if (!options.variant.empty() && options.variant != "all") {
    bool forced = false, loaded = false;
    for (const ScenarioReport& r : reports) {
      forced |= r.forced_variant == options.variant;
      loaded |= r.status != ScenarioStatus::kBadInput;
    }
    if (loaded && !forced) {
      std::vector<std::string> families;
      for (const VariantInfo& v : AllVariants())
        if (options.variant == v.name) families.push_back(GetFamily(v.family).name);
      err << ErrorLine("--variant " + EscapeText(options.variant) + ": no group of the scenarios under " + JoinNames(options.paths) +
                       " has it; expected a group of a family with it (" + JoinNames(families) + ")");
      return kExitBadInput;
    }
  }
  PrintCheckReports(reports, options.verbose, options.quiet, out, err);
  if (summary.suppressions)
    for (const std::string& line :
         SuppressionLines(suppressions, SuppressionMatches(TallyReports(reports), suppressions), "check: ", "scenario run"))
      out << line << "\n";

  bool bad_input = false, environment = false, failed = false;
  for (const ScenarioReport& r : reports) {
    bad_input |= r.status == ScenarioStatus::kBadInput;
    environment |= r.status == ScenarioStatus::kEnvironmentError;
    failed |= r.status == ScenarioStatus::kChecked && !r.holds;
  }
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Each report on its own: one that cannot be written (the machine's
  // problem, not the input's: exit 3) is named with its reason, and the
  // others and the summary line are still written.
  bool unwritten = false;
  auto report = [&](const std::string& path, bool written) {
    if (path.empty() || written) return;
    err << ErrorLine(problem);
    unwritten = true;
  };
  report(options.junit_path, options.junit_path.empty() || WriteJUnit(options.junit_path, reports, summary, &problem));
  report(options.json_path, options.json_path.empty() || WriteJsonReport(options.json_path, reports, summary, &problem));
  report(options.sarif_path, options.sarif_path.empty() || WriteSarif(options.sarif_path, reports, summary, &problem));
  out << SummaryLine(reports, summary) << "\n";
  // Precedence (docs/cli.md#exit-codes): 3, then 1, then 2. A failing
  // scenario is never hidden behind a bad file: both are printed, and the
  // code says the kernel is wrong; a bad file alone is 2.
  if (environment || unwritten) return kExitEnvironment;
  if (failed) return kExitFindings;
  return bad_input ? kExitBadInput : kExitHolds;
}

}  // namespace slotguard
