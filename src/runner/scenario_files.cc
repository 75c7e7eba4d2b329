#include "runner/scenario_files.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "scenario/scenario_json.h"

namespace slotguard {

namespace fs = std::filesystem;

bool CollectScenarioFiles(const std::vector<std::string>& paths, std::vector<std::string>* files,
                          std::string* err) {
  for (const std::string& path : paths) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
      *err = path + ": no such file or directory; expected a scenario file or a directory of them";
      return false;
    }
    if (!fs::is_directory(status)) {
      files->push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".json")
        found.push_back(it->path().string());
    if (ec) {
      *err = path + ": cannot list directory: " + ec.message();
      return false;
    }
    if (found.empty()) {
      *err = path + ": no *.json scenario file in this directory; expected at least one";
      return false;
    }
    std::sort(found.begin(), found.end());
    files->insert(files->end(), found.begin(), found.end());
  }
  return true;
}

bool LoadRunScenario(const std::string& file, const LoadLimits& limits,
                     const std::optional<TableLayoutKind>& table_layout, Scenario* scenario, std::string* err) {
  if (!LoadScenarioFile(file, limits, scenario, err)) return false;
  if (table_layout) scenario->table_layout = *table_layout;
  return true;
}

}  // namespace slotguard
