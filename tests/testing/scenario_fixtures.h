// Scenarios for tests: the curated files of scenarios/, and scenario text
// parsed with a test failure (not a crash) when it does not load.
#ifndef SLOTGUARD_TESTS_TESTING_SCENARIO_FIXTURES_H_
#define SLOTGUARD_TESTS_TESTING_SCENARIO_FIXTURES_H_

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runner/scenario_files.h"
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

}  // namespace slotguard

#endif  // SLOTGUARD_TESTS_TESTING_SCENARIO_FIXTURES_H_
