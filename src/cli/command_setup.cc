#include "cli/command_setup.h"

#include <filesystem>

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

namespace {

/// Do a and b name one file: the same file when both exist, none when one
/// does, else the same normalized absolute path (two reports not written yet).
bool SameFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  const bool has_a = std::filesystem::exists(a, ec), has_b = std::filesystem::exists(b, ec);
  if (has_a && has_b) return std::filesystem::equivalent(a, b, ec) && !ec;
  if (has_a || has_b) return false;
  // absolute first: weakly_canonical leaves a relative path whose first
  // part does not exist as it is ("r.json" against "./r.json").
  const std::filesystem::path pa = std::filesystem::weakly_canonical(std::filesystem::absolute(a, ec), ec);
  if (ec) return false;
  const std::filesystem::path pb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, ec), ec);
  return !ec && pa == pb;
}

}  // namespace

bool DistinctFiles(const std::vector<NamedFile>& outputs, const std::vector<NamedFile>& inputs, std::ostream& err) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].path.empty()) continue;
    auto clash = [&](const NamedFile& other, const char* what) {
      if (other.path.empty() || !SameFile(outputs[i].path, other.path)) return false;
      err << ErrorLine(outputs[i].flag + " " + EscapeText(outputs[i].path, 0) + ": the same file as " + other.flag +
                       " " + EscapeText(other.path, 0) + "; expected a path of its own (writing it would overwrite " +
                       what + ")");
      return true;
    };
    for (size_t j = 0; j < i; ++j)
      if (clash(outputs[j], "that report")) return false;
    for (const NamedFile& in : inputs)
      if (clash(in, "that input")) return false;
  }
  return true;
}

bool OpenScenarioFiles(const std::vector<std::string>& paths, std::vector<std::string>* files,
                       std::ostream& err) {
  std::string problem;
  if (CollectScenarioFiles(paths, files, &problem)) return true;
  err << ErrorLine(problem);
  return false;
}

}  // namespace slotguard
