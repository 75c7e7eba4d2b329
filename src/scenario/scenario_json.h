// Scenario files (docs/scenario-format.md): strict loading and canonical writing.
//
// Every load error is one line, "FILE:/json/pointer: problem; expected X, got Y",
// e.g.
//   scenarios/x.json:/groups/1/block_table/3/0: block id out of range;
//   expected -1 <= id < num_blocks (64), got 70
#ifndef SLOTGUARD_SCENARIO_SCENARIO_JSON_H_
#define SLOTGUARD_SCENARIO_SCENARIO_JSON_H_

#include <string>
#include <vector>

#include "scenario/load_limits.h"
#include "scenario/scenario.h"

namespace slotguard {

/// Parses scenario text. `file` only names the source in messages. Returns
/// false and fills *err on any malformed input; never throws.
bool ParseScenario(const std::string& text, const std::string& file, const LoadLimits& limits,
                   Scenario* scenario, std::string* err);

/// Before a scenario loads (its families may not be registered yet): the
/// file's found_by (scenario/found_by.h; present false when it has none)
/// and the kernel names of its groups. False when the file cannot be read
/// or its found_by is malformed (loading it says why).
bool PeekFoundBy(const std::string& path, const LoadLimits& limits, FoundBy* found,
                 std::vector<std::string>* kernels);

/// Reads and parses a file.
bool LoadScenarioFile(const std::string& path, const LoadLimits& limits, Scenario* scenario,
                      std::string* err);

/// Canonical JSON with every derived default written out, so that
/// ParseScenario(WriteScenarioJson(s)) == s.
std::string WriteScenarioJson(const Scenario& scenario);

/// Writes to a file. Returns false and fills *err on I/O failure.
bool WriteScenarioFile(const std::string& path, const Scenario& scenario, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_SCENARIO_SCENARIO_JSON_H_
