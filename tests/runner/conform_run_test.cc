// Conformance (runner/conform_run.h): the reference is the family's engine
// variant, and differential is the only invariant judged.
#include "runner/conform_run.h"

#include <gtest/gtest.h>

#include "backend/described_kernel.h"
#include "registry/families.h"
#include "scenario/scenario_json.h"

namespace slotguard {
namespace {

// dflash, block 4, one request of row [5]: context position 3, query position 4. The description PADs
// the query (its column 1 is past the row); engine_81be2e09 clamps it to column 0: slot 20.
Scenario PastTheRow() {
  // Parsed from text, not through a file: the tests of this suite run as
  // processes side by side, and one file name shared by all of them raced.
  const std::string text = R"({"slotguard": 1, "name": "t", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 2], "seq_lens": [5], "positions": [3, 4]},
    "groups": [{"name": "d", "kernel": "dflash", "block_size": 4, "num_query_per_req": 1, "max_model_len": 100,
                "block_table": [[5]]}]})";
  Scenario s;
  std::string err;
  EXPECT_TRUE(ParseScenario(text, "conform-past-the-row.json", LoadLimits(), &s, &err)) << err;
  return s;
}

Family FamilyNamed(const std::string& name) {
  Family f;
  std::string err;
  EXPECT_TRUE(FindFamily(name, &f, &err)) << err;
  return f;
}

/// The kernel's outputs as the interpretation of `variant` gives them.
ScenarioRun KernelRunning(const Scenario& s, const std::string& variant) {
  Scenario forced = s;
  ForceVariant(variant, &forced);
  ScenarioRun run;
  run.kernel.resize(1);
  std::string err;
  EXPECT_TRUE(RunDescribedGroup(forced, forced.groups[0], nullptr, &run.kernel[0], &err)) << err;
  run.kernel[0].read_past_row.assign(s.batch.num_tokens, 0);
  return run;
}

TEST(ConformRunTest, TheEngineVariantIsNamedByTheEngineCommit) {
  EXPECT_EQ("engine_81be2e09", std::string(GetVariant(EngineVariantOf(FamilyNamed("dflash"))).name));
  // A description whose own knobs are the engine's (no engine_<commit> variant): its fixed variant.
  EXPECT_EQ(FixedVariant(FamilyNamed("vllm_mamba")), EngineVariantOf(FamilyNamed("vllm_mamba")));
  EXPECT_EQ(FixedVariant(FamilyNamed("paged")), EngineVariantOf(FamilyNamed("paged")));
  EXPECT_EQ(FixedVariant(FamilyNamed("dflash")), ConformVariantOf(FamilyNamed("dflash"), "fixed"));
  EXPECT_EQ(EngineVariantOf(FamilyNamed("dflash")), ConformVariantOf(FamilyNamed("dflash"), "no_such"));
}

TEST(ConformRunTest, AKernelThatDoesWhatTheEngineVariantSaysConforms) {
  const Scenario s = PastTheRow();
  ScenarioRun run = KernelRunning(s, "engine_81be2e09");
  ASSERT_EQ(-1, run.kernel[0].engine[1][0]);
  ASSERT_EQ(20, run.kernel[0].engine[1][1]);
  CheckConformance(s, "", 8, &run);
  EXPECT_TRUE(FiredInvariants(run).empty());  // its hazards (a slot past the row) are not judged here
  // The same outputs judged as `check` judges them: against the description, they differ.
  CheckKernelOutputs(s, 8, &run);
  EXPECT_TRUE(FiredInvariants(run).count("differential"));
}

TEST(ConformRunTest, AKernelThatDoesWhatTheDescriptionSaysDisagreesByDifferentialAlone) {
  const Scenario s = PastTheRow();
  ScenarioRun run = KernelRunning(s, "fixed");
  CheckConformance(s, "", 8, &run);
  EXPECT_EQ(std::set<std::string>{"differential"}, FiredInvariants(run));
  EXPECT_EQ(1, run.findings[0].total());
  EXPECT_EQ(20, run.reference[0][1][1]);  // the reference is the engine variant's
  // Compared with `fixed` instead, it conforms.
  CheckConformance(s, "fixed", 8, &run);
  EXPECT_TRUE(FiredInvariants(run).empty());
}

TEST(ConformRunTest, ASkippedScenarioStaysSkipped) {
  const Scenario s = PastTheRow();
  ScenarioRun run = KernelRunning(s, "fixed");
  run.kernel[0].skipped = "not taken";
  CheckConformance(s, "", 8, &run);
  EXPECT_EQ("not taken", run.skipped);
  EXPECT_TRUE(FiredInvariants(run).empty());
}

}  // namespace
}  // namespace slotguard
