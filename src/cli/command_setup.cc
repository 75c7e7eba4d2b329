#include "cli/command_setup.h"

#include "runner/scenario_files.h"

namespace slotguard {

std::unique_ptr<Backend> OpenBackend(BackendKind kind, std::ostream& err) {
  std::string why;
  std::unique_ptr<Backend> backend = MakeBackend(kind, &why);
  if (!backend) err << "slotguard: error: --backend gpu: " << why << "\n";
  return backend;
}

bool OpenScenarioFiles(const std::vector<std::string>& paths, std::vector<std::string>* files,
                       std::ostream& err) {
  std::string problem;
  if (CollectScenarioFiles(paths, files, &problem)) return true;
  err << "slotguard: error: " << problem << "\n";
  return false;
}

}  // namespace slotguard
