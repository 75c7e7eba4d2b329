// replay's tables (report/replay_table.h) from a run kept whole.
#include "report/replay_table.h"

#include <limits>
#include <sstream>

#include <gtest/gtest.h>

#include "scenario/scenario_json.h"

namespace slotguard {
namespace {

const std::string kScenarios = SLOTGUARD_SOURCE_DIR "/scenarios";

ScenarioRun RunWhole(const Scenario& s) {
  const std::unique_ptr<Backend> host = MakeHostBackend();
  ScenarioRun run;
  std::string err;
  EXPECT_TRUE(RunScenario(s, *host, std::numeric_limits<size_t>::max(), &run, &err)) << err;
  return run;
}

Scenario Load(const std::string& file) {
  Scenario s;
  std::string err;
  EXPECT_TRUE(LoadScenarioFile(file, LoadLimits(), &s, &err)) << err;
  return s;
}

TEST(ReplayTableTest, LongScenariosShowOnlyTheTokensWithFindings) {
  Scenario s = Load(kScenarios + "/paged/tile-crossing-1030-tokens.json");
  ASSERT_GT(s.batch.num_tokens, kReplayEveryToken);
  ForceVariant("pad_from_n", &s);
  const ScenarioRun run = RunWhole(s);
  std::ostringstream some, every;
  PrintReplayGroup(s, 0, run, false, some);
  PrintReplayGroup(s, 0, run, true, every);
  EXPECT_NE(std::string::npos, some.str().find(" tokens without findings not shown; --all-tokens shows them)\n"))
      << some.str();
  EXPECT_EQ(std::string::npos, every.str().find("not shown")) << every.str();
  EXPECT_GT(every.str().size(), some.str().size());
}

TEST(ReplayTableTest, AFaultedGroupHasNoTable) {
  const Scenario s = Load(kScenarios + "/paged/decode.json");
  ScenarioRun run = RunWhole(s);
  run.kernel[0].fault = "the worker process killed by SIGSEGV (Segmentation fault)";
  std::ostringstream out;
  PrintReplayGroup(s, 0, run, false, out);
  EXPECT_EQ("\ngroup " + s.groups[0].name + ": no outputs: the worker process killed by SIGSEGV (Segmentation fault)\n",
            out.str());
}

TEST(ReplayTableTest, TheReplayEndsWithTheScenarioLine) {
  const Scenario s = Load(kScenarios + "/paged/mutants/dummy-reads-row.json");
  std::ostringstream out;
  EXPECT_TRUE(PrintReplay(s, "x.json", "host", RunWhole(s), false, out));
  EXPECT_EQ(0u, out.str().find("scenario paged-dummy-reads-row (x.json), backend host\n")) << out.str();
  EXPECT_NE(std::string::npos, out.str().find("\nok    x.json (paged-dummy-reads-row): expected finding caught ("))
      << out.str();
}

}  // namespace
}  // namespace slotguard
