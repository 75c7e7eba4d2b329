// The control experiment's matrix (runner/mutants_run.h): which variant a
// file catches, with which invariants; columns and survivors.
#include "runner/mutants_run.h"

#include <gtest/gtest.h>

#include "registry/families.h"

namespace slotguard {
namespace {

const std::string kScenarios = SLOTGUARD_SOURCE_DIR "/scenarios";

TEST(MutantsRunTest, AFileCatchesItsVariantBeyondFixed) {
  const std::unique_ptr<Backend> host = MakeHostBackend();
  const MutantsFile row = RunMutantsFile(kScenarios + "/paged/mutants/dummy-reads-row.json", LoadLimits(), *host);
  EXPECT_EQ("", row.error);
  EXPECT_EQ(std::set<Family>{Family::kPaged}, row.families);
  EXPECT_TRUE(row.fixed_failures.empty());
  ASSERT_TRUE(row.caught.count(Variant::kPagedDummyReadsRow));
  EXPECT_TRUE(row.caught.at(Variant::kPagedDummyReadsRow).count("null_block"));
  EXPECT_FALSE(row.caught.count(Variant::kPagedFixed));
}

TEST(MutantsRunTest, ColumnsAndSurvivors) {
  const std::unique_ptr<Backend> host = MakeHostBackend();
  const MutantsResult result = RunMutantsExperiment(
      {kScenarios + "/paged/decode.json", kScenarios + "/paged/mutants/pad-from-n.json"}, LoadLimits(), 2, *host);
  ASSERT_EQ(2u, result.files.size());
  EXPECT_TRUE(result.files[0].caught.empty()) << "a plain decode batch catches no paged mutant";
  EXPECT_EQ(2, result.family_scenarios.at(Family::kPaged));
  EXPECT_EQ(2, result.variants.at(Variant::kPagedPadFromN).scenarios);
  EXPECT_EQ(std::vector<std::string>{kScenarios + "/paged/mutants/pad-from-n.json"},
            result.variants.at(Variant::kPagedPadFromN).caught_by);
  EXPECT_FALSE(result.bad_input || result.environment);
  for (const std::string& s : result.survivors) EXPECT_NE("paged/pad_from_n", s);
  const MutantsResult bad = RunMutantsExperiment({kScenarios + "/no-such.json"}, LoadLimits(), 1, *host);
  EXPECT_TRUE(bad.bad_input);
  EXPECT_FALSE(bad.environment);
  EXPECT_TRUE(bad.survivors.empty());
}

}  // namespace
}  // namespace slotguard
