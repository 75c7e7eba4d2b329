// The scenario files a command runs: command-line paths expanded into
// files, and each file loaded as the command's flags say.
#ifndef SLOTGUARD_RUNNER_SCENARIO_FILES_H_
#define SLOTGUARD_RUNNER_SCENARIO_FILES_H_

#include <optional>
#include <string>
#include <vector>

#include "scenario/load_limits.h"
#include "scenario/scenario.h"

namespace slotguard {

/// Files are taken as given; directories yield their *.json files,
/// recursively, sorted. Returns false with *err for a missing path or a
/// directory with no scenario file.
bool CollectScenarioFiles(const std::vector<std::string>& paths, std::vector<std::string>* files,
                          std::string* err);

/// LoadScenarioFile, then `table_layout` (--table-layout) over the file's
/// own table_layout when given.
bool LoadRunScenario(const std::string& file, const LoadLimits& limits,
                     const std::optional<TableLayoutKind>& table_layout, Scenario* scenario, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_RUNNER_SCENARIO_FILES_H_
