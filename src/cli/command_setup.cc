#include "cli/command_setup.h"

#include "backend/backend_setup.h"
#include "cli/commands.h"
#include "runner/scenario_files.h"
#include "util/error_line.h"

namespace slotguard {

std::unique_ptr<Backend> OpenBackend(BackendKind kind, const RunSetup& setup, std::ostream& err, int* exit_code) {
  std::string problem;
  bool environment;
  std::unique_ptr<Backend> backend = OpenBackend(kind, setup, &problem, &environment);
  if (!backend) err << ErrorLine(problem);
  if (exit_code) *exit_code = environment ? kExitEnvironment : kExitBadInput;
  return backend;
}

LoadLimits LimitsFor(const LoadLimits& limits, const Backend& backend, const RunSetup& setup) {
  LoadLimits out = limits;
  out.footprint = FootprintOf(backend, setup);
  return out;
}

bool OpenScenarioFiles(const std::vector<std::string>& paths, std::vector<std::string>* files,
                       std::ostream& err) {
  std::string problem;
  if (CollectScenarioFiles(paths, files, &problem)) return true;
  err << ErrorLine(problem);
  return false;
}

}  // namespace slotguard
