// Scenarios for tests: the curated files of scenarios/, and scenario text
// parsed with a test failure (not a crash) when it does not load.
#ifndef SLOTGUARD_TESTS_TESTING_SCENARIO_FIXTURES_H_
#define SLOTGUARD_TESTS_TESTING_SCENARIO_FIXTURES_H_

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <limits>
#include <memory>

#include "backend/backend.h"
#include "runner/scenario_files.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"

namespace slotguard {

/// Every scenario under scenarios/, loaded.
inline std::vector<Scenario> CuratedScenarios() {
  std::vector<std::string> files;
  std::string err;
  EXPECT_TRUE(CollectScenarioFiles({SLOTGUARD_SOURCE_DIR "/scenarios"}, &files, &err)) << err;
  std::vector<Scenario> scenarios;
  for (const std::string& f : files) {
    Scenario s;
    EXPECT_TRUE(LoadScenarioFile(f, LoadLimits(), &s, &err)) << err;
    scenarios.push_back(s);
  }
  return scenarios;
}

/// Scenario JSON text, as the loader reads it from "test.json".
inline Scenario ParseTestScenario(const std::string& text) {
  Scenario s;
  std::string err;
  EXPECT_TRUE(ParseScenario(text, "test.json", LoadLimits(), &s, &err)) << err;
  return s;
}

/// A scenario file, loaded (a test failure when it does not load).
inline Scenario LoadTestScenario(const std::string& file) {
  Scenario s;
  std::string err;
  EXPECT_TRUE(LoadScenarioFile(file, LoadLimits(), &s, &err)) << err;
  return s;
}

/// The scenario on the host backend, every finding kept (as replay runs it).
inline ScenarioRun RunWholeOnHost(const Scenario& s) {
  const std::unique_ptr<Backend> host = MakeHostBackend();
  ScenarioRun run;
  std::string err;
  EXPECT_TRUE(RunScenario(s, *host, std::numeric_limits<size_t>::max(), &run, &err)) << err;
  return run;
}

}  // namespace slotguard

#endif  // SLOTGUARD_TESTS_TESTING_SCENARIO_FIXTURES_H_
