#include "runner/scenario_files.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <system_error>

#include "scenario/scenario_json.h"
#include "util/error_line.h"
#include "util/json_reader.h"

namespace slotguard {

namespace fs = std::filesystem;

bool CollectScenarioFiles(const std::vector<std::string>& paths, std::vector<std::string>* files,
                          std::string* err) {
  for (const std::string& path : paths) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    const std::string shown = EscapeText(path, 0);
    if (ec || !fs::exists(status)) {
      // ELOOP (a symlink loop) and EACCES are not "no such file".
      *err = shown + ": " + PathErrorText(ec ? ec.value() : ENOENT) +
             "; expected a scenario file or a directory of them";
      return false;
    }
    if (!fs::is_directory(status)) {
      files->push_back(path);  // the loader says what else it is (a FIFO, a device)
      continue;
    }
    std::vector<std::string> found;
    for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() != ".json") continue;
      // Every *.json that is not a directory: a regular file is a scenario;
      // a FIFO, a device, a dangling link or a symlink loop is one the loader
      // reports (exit 2), rather than one skipped without a word.
      std::error_code entry_ec;
      if (!it->is_directory(entry_ec) || entry_ec) found.push_back(it->path().string());
    }
    if (ec) {
      *err = shown + ": cannot list directory: " + ec.message();
      return false;
    }
    if (found.empty()) {
      *err = shown + ": no *.json scenario file in this directory; expected at least one";
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
