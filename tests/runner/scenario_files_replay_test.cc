// Every file in scenarios/ is replayed and must hold (docs/scenario-format.md);
// a finding-scenario with its expect removed must then fail.
#include <filesystem>

#include <gtest/gtest.h>

#include "runner/scenario_files.h"
#include "registry/families.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"

namespace slotguard {
namespace {

std::vector<std::string> CuratedFiles() {
  std::vector<std::string> files;
  std::string err;
  EXPECT_TRUE(CollectScenarioFiles({SLOTGUARD_SOURCE_DIR "/scenarios"}, &files, &err)) << err;
  return files;
}

class CuratedScenarioTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CuratedScenarioTest, HoldsOnTheHostBackend) {
  Scenario s;
  std::string err;
  ASSERT_TRUE(LoadScenarioFile(GetParam(), LoadLimits(), &s, &err)) << err;
  std::unique_ptr<Backend> host = MakeHostBackend();
  const ScenarioReport report = CheckScenario(s, GetParam(), *host, 8);
  EXPECT_TRUE(report.holds) << GetParam() << ": " << report.verdict;
  if (s.expect.verdict == Verdict::kFinding) {
    // Without its expectation the same file must not hold: the mutant is real.
    s.expect = Expect();
    EXPECT_FALSE(CheckScenario(s, GetParam(), *host, 8).holds) << GetParam();
  } else {
    // A passing scenario must carry golden values for every group.
    for (const Group& g : s.groups) EXPECT_TRUE(s.expect.slot_mapping.count(g.name)) << GetParam() << ": " << g.name;
  }
}

TEST_P(CuratedScenarioTest, HoldsWithTheWritersAndThroughGraphReplays) {
  Scenario s;
  std::string err;
  ASSERT_TRUE(LoadScenarioFile(GetParam(), LoadLimits(), &s, &err)) << err;
  std::unique_ptr<Backend> host = MakeHostBackend();
  host->set_writers(WriterOptions{64});
  const ScenarioReport eager = CheckScenario(s, GetParam(), *host, 8);
  EXPECT_TRUE(eager.holds) << GetParam() << ": " << eager.verdict;
  if (s.expect.verdict == Verdict::kPass) EXPECT_EQ(0, eager.total_findings);
  const ScenarioReport graph = CheckScenario(s, GetParam(), *host, 8, /*cuda_graph=*/true);
  EXPECT_TRUE(graph.holds) << GetParam() << ": " << graph.verdict;
  if (s.expect.verdict == Verdict::kPass) EXPECT_EQ(0, graph.total_findings);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, CuratedScenarioTest, ::testing::ValuesIn(CuratedFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(info.param.find("scenarios/") + 10);
                           for (char& c : name)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

TEST(ExpectationTest, JudgesOutcomes) {
  Expect pass;
  ScenarioReport r;
  JudgeExpectation(pass, &r);
  EXPECT_TRUE(r.holds);
  r.total_findings = 1;
  r.fired = {"null_block"};
  JudgeExpectation(pass, &r);
  EXPECT_FALSE(r.holds);
  EXPECT_EQ("unexpected findings (null_block); the scenario has no expect", r.verdict);

  Expect finding;
  finding.present = true;
  finding.verdict = Verdict::kFinding;
  finding.findings = {"null_block", "padding_tail"};
  JudgeExpectation(finding, &r);
  EXPECT_FALSE(r.holds);
  EXPECT_EQ("expected findings did not fire: padding_tail (fired: null_block)", r.verdict);
  r.fired.insert("padding_tail");
  JudgeExpectation(finding, &r);
  EXPECT_TRUE(r.holds);
  r.total_findings = 0;
  r.fired.clear();
  JudgeExpectation(finding, &r);
  EXPECT_FALSE(r.holds);
  EXPECT_EQ("expected a finding, none fired", r.verdict);
}

TEST(ScenarioFilesTest, MissingPathIsAnError) {
  std::vector<std::string> files;
  std::string err;
  EXPECT_FALSE(CollectScenarioFiles({"/nonexistent-dir"}, &files, &err));
  EXPECT_EQ("/nonexistent-dir: no such file or directory; expected a scenario file or a directory of them", err);
}

}  // namespace
}  // namespace slotguard
