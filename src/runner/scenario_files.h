// Expands command-line paths into scenario files.
#ifndef SLOTGUARD_RUNNER_SCENARIO_FILES_H_
#define SLOTGUARD_RUNNER_SCENARIO_FILES_H_

#include <string>
#include <vector>

namespace slotguard {

/// Files are taken as given; directories yield their *.json files,
/// recursively, sorted. Returns false with *err for a missing path or a
/// directory with no scenario file.
bool CollectScenarioFiles(const std::vector<std::string>& paths, std::vector<std::string>* files,
                          std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_RUNNER_SCENARIO_FILES_H_
