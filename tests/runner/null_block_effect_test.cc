// A hazard (a mapping sends a token into block 0) and a write (block 0's
// bytes change) are kept apart in the reports (runner/null_block_effect.h).
#include <gtest/gtest.h>

#include "runner/null_block_effect.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"

namespace slotguard {
namespace {

TEST(NullBlockEffectTest, FromTheFindingsAndWhetherTheWritersRan) {
  EXPECT_EQ(NullBlockEffect::kNone, EffectOf({{"differential", 2}}, true));
  EXPECT_EQ(NullBlockEffect::kHazard, EffectOf({{"null_block", 1}}, false));
  EXPECT_EQ(NullBlockEffect::kHazardNoWrite, EffectOf({{"null_block", 1}}, true));
  EXPECT_EQ(NullBlockEffect::kWrite, EffectOf({{"null_block", 1}, {"null_bytes", 4}}, true));
  EXPECT_STREQ("hazard, no write", EffectName(NullBlockEffect::kHazardNoWrite));
}

/// Group `name`'s effect when the curated engine scenario `file` is checked.
NullBlockEffect Effect(const std::string& file, bool writers, const std::string& name, std::string* verdict) {
  Scenario s;
  std::string err;
  EXPECT_TRUE(LoadScenarioFile(std::string(SLOTGUARD_SOURCE_DIR) + "/scenarios/engines/dsv4_compressed/" + file,
                               LoadLimits(), &s, &err))
      << err;
  std::unique_ptr<Backend> host = MakeHostBackend();
  if (writers) host->set_writers(WriterOptions{64});
  const ScenarioReport report = CheckScenario(s, file, *host, 8);
  EXPECT_TRUE(report.holds) << report.verdict;
  *verdict = report.verdict;
  for (const GroupReport& g : report.groups)
    if (g.name == name) return g.null_block;
  ADD_FAILURE() << "no group " << name;
  return NullBlockEffect::kNone;
}

// DeepSeek-V4 at vLLM 81be2e09: a dummy's compression-boundary token maps
// into block 0 (a hazard), but the compressed writers skip a token whose
// state group's slot is negative, so no byte lands there; null entries of a
// live request are a write.
TEST(NullBlockEffectTest, DeepSeekV4DummyIsAHazardAndNullEntriesAWrite) {
  std::string verdict;
  EXPECT_EQ(NullBlockEffect::kHazardNoWrite, Effect("engine-a1-dummy-hazard-no-write.json", true, "c4", &verdict));
  EXPECT_NE(std::string::npos, verdict.find("; block 0: group c4 hazard, no write")) << verdict;
  EXPECT_EQ(NullBlockEffect::kHazard, Effect("engine-a1-dummy-hazard-no-write.json", false, "c4", &verdict));
  EXPECT_EQ(NullBlockEffect::kNone, Effect("engine-a1-dummy-hazard-no-write.json", true, "state", &verdict));
  EXPECT_EQ(NullBlockEffect::kWrite, Effect("engine-a3-null-entries.json", true, "c4", &verdict));
  EXPECT_NE(std::string::npos, verdict.find("; block 0: group c4 write")) << verdict;
}

}  // namespace
}  // namespace slotguard
