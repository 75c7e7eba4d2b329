// Scenario files (docs/scenario-format.md): strict loading and canonical writing.
//
// Every load error is one line, "FILE:/json/pointer: problem; expected X, got Y",
// e.g.
//   scenarios/x.json:/groups/1/block_table/3/0: block id out of range;
//   expected -1 <= id < num_blocks (64), got 70
#ifndef SLOTGUARD_SCENARIO_SCENARIO_JSON_H_
#define SLOTGUARD_SCENARIO_SCENARIO_JSON_H_

#include <string>

#include "scenario/load_limits.h"
#include "scenario/scenario.h"

namespace slotguard {

/// Parses scenario text. `file` only names the source in messages. Returns
/// false and fills *err on any malformed input; never throws.
bool ParseScenario(const std::string& text, const std::string& file, const LoadLimits& limits,
                   Scenario* scenario, std::string* err);

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
