// `slotguard check`: the CI gate. runner/check_run.h checks the files;
// this prints the reports and picks the exit code.
#include <chrono>

#include "backend/gpu_device.h"
#include "cli/command_setup.h"
#include "cli/commands.h"
#include "registry/families.h"
#include "report/report.h"
#include "runner/check_run.h"
#include "util/error_line.h"

namespace slotguard {

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

  CheckRunOptions run;
  run.variant = options.variant;
  run.cuda_graph = options.setup.cuda_graph;
  run.jobs = options.jobs;
  run.limits = options.limits;
  run.table_layout = options.setup.table_layout;
  const std::vector<ScenarioReport> reports = CheckFiles(files, run, *backend);
  PrintCheckReports(reports, options.verbose, options.quiet, out, err);

  bool bad_input = false, environment = false, failed = false;
  for (const ScenarioReport& r : reports) {
    bad_input |= r.status == ScenarioStatus::kBadInput;
    environment |= r.status == ScenarioStatus::kEnvironmentError;
    failed |= r.status == ScenarioStatus::kChecked && !r.holds;
  }
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // A report that cannot be written is the machine's problem, not the input's.
  if ((!options.junit_path.empty() && !WriteJUnit(options.junit_path, reports, summary, &problem)) ||
      (!options.json_path.empty() && !WriteJsonReport(options.json_path, reports, summary, &problem))) {
    err << ErrorLine(problem);
    return kExitEnvironment;
  }
  out << SummaryLine(reports, summary) << "\n";
  if (environment) return kExitEnvironment;
  if (bad_input) return kExitBadInput;
  return failed ? kExitFindings : kExitHolds;
}

}  // namespace slotguard
