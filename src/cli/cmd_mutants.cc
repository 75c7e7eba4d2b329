// `slotguard mutants`: the control experiment (runner/mutants_run.h), its
// table (report/mutants_table.h) and exit code.
#include <chrono>

#include "cli/command_setup.h"
#include "cli/commands.h"
#include "report/mutants_table.h"
#include "runner/mutants_run.h"

namespace slotguard {

int RunMutants(const MutantsOptions& options, std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> files;
  if (!OpenScenarioFiles(options.paths, &files, err)) return kExitBadInput;
  int open_status;
  std::unique_ptr<Backend> backend = OpenBackend(options.backend, options.setup, err, &open_status);
  if (!backend) return open_status;
  const MutantsResult result =
      RunMutantsExperiment(files, LimitsFor(options.limits, *backend, options.setup), options.jobs, *backend,
                           options.setup.table_layout);
  for (const MutantsFile& f : result.files)
    if (!f.error.empty()) err << "ERROR " << f.error << "\n";
  if (result.environment) return kExitEnvironment;
  if (result.bad_input) return kExitBadInput;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  PrintMutantsTable(result, backend->Describe(), seconds, out);
  return result.survivors.empty() && result.fixed_failures.empty() ? kExitHolds : kExitFindings;
}

}  // namespace slotguard
