// `check`'s work (runner/check_run.h): variant runs per scenario, one
// report per run, a bad file as one bad-input report, file order kept.
#include "runner/check_run.h"

#include <gtest/gtest.h>

#include "testing/scenario_fixtures.h"

namespace slotguard {
namespace {

const std::string kScenarios = SLOTGUARD_SOURCE_DIR "/scenarios";

TEST(CheckRunTest, VariantRunsOfAScenario) {
  Scenario s;
  s.groups.resize(2);
  s.groups[0].family = Family::kPaged;
  s.groups[1].family = Family::kKpoolTail;
  EXPECT_EQ(std::vector<std::string>{""}, VariantRuns(s, ""));
  EXPECT_EQ(std::vector<std::string>{"clamp"}, VariantRuns(s, "clamp"));  // CheckFile finds no group has it
  EXPECT_EQ((std::vector<std::string>{"fixed", "unguarded", "dummy_reads_row", "pad_from_n", "gathered_row", "prefix"}),
            VariantRuns(s, "all"));
}

TEST(CheckRunTest, OneReportPerVariantRun) {
  const std::unique_ptr<Backend> host = MakeHostBackend();
  CheckRunOptions o;
  o.variant = "all";
  const std::vector<ScenarioReport> all = CheckFile(kScenarios + "/paged/decode.json", o, *host);
  ASSERT_EQ(5u, all.size());
  EXPECT_EQ("fixed", all[0].forced_variant);
  EXPECT_EQ("pad_from_n", all[3].forced_variant);
  o.variant = "clamp";
  const std::vector<ScenarioReport> none = CheckFile(kScenarios + "/paged/decode.json", o, *host);
  ASSERT_EQ(1u, none.size());
  EXPECT_EQ("", none[0].forced_variant);
  EXPECT_EQ("pass (no group has variant clamp)", none[0].verdict);
  const std::vector<ScenarioReport> bad = CheckFile(kScenarios + "/no-such.json", o, *host);
  ASSERT_EQ(1u, bad.size());
  EXPECT_EQ(ScenarioStatus::kBadInput, bad[0].status);
  EXPECT_NE(std::string::npos, bad[0].error.find("no-such.json")) << bad[0].error;
}

TEST(CheckRunTest, ReportsInFileOrderWhateverTheJobs) {
  std::vector<std::string> files;
  std::string err;
  ASSERT_TRUE(CollectScenarioFiles({kScenarios}, &files, &err)) << err;
  const std::unique_ptr<Backend> host = MakeHostBackend();
  CheckRunOptions o;
  o.jobs = 3;
  const std::vector<ScenarioReport> reports = CheckFiles(files, o, *host);
  ASSERT_EQ(files.size(), reports.size());
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ(files[i], reports[i].file);
    EXPECT_TRUE(reports[i].holds) << files[i] << ": " << reports[i].verdict;
  }
}

}  // namespace
}  // namespace slotguard
