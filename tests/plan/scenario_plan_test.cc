// The scenario plan: the one place that decides each group's pass (run
// order, who computes it, its output count, its table, its gate's source,
// its wave, its writer job) and whether the implementation takes the
// scenario. The expectations are worked out by hand from the scenarios.
#include "plan/scenario_plan.h"

#include <gtest/gtest.h>

#include "testing/scenario_fixtures.h"

namespace slotguard {
namespace {

// An implementation of `families` that the planner only asks questions.
class Stub : public MappingProvider {
 public:
  Stub(std::vector<Family> families, bool whole = false, bool persistent = true, std::string skip = "")
      : families_(std::move(families)), whole_(whole), persistent_(persistent), skip_(std::move(skip)) {}
  std::string name() const override { return "stub"; }
  const std::vector<Family>& families() const override { return families_; }
  bool has_host() const override { return true; }
  bool has_device() const override { return false; }
  bool takes_whole_scenarios() const override { return whole_; }
  bool reads_persistent_tables() const override { return persistent_; }
  std::string SkipReason(const ScenarioPlan&, size_t) const override { return skip_; }
  bool RunCalls(std::vector<StepCall>*, bool, int, std::string*) override { return true; }

 private:
  std::vector<Family> families_;
  bool whole_, persistent_;
  std::string skip_;
};

// qsa_compressed "c" reads paged "attn" (its common group); kpool "k" reads nothing.
Scenario ThreeGroups() {
  return ParseTestScenario(R"({
    "slotguard": 1, "name": "three", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 2, 3], "seq_lens": [2, 1], "positions": [0, 1, 0, 0],
              "num_actual_tokens": 3, "num_tokens": 4, "idx_mapping": [0, -1]},
    "groups": [
      {"name": "c", "kernel": "qsa_compressed", "block_size": 4, "compress_ratio": 2, "common": "attn",
       "block_table": [[3], [0]]},
      {"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[1], [0]]},
      {"name": "k", "kernel": "kpool_tail", "kpool": 4, "block_table": [[2], [0]]}]})");
}

std::vector<size_t> Groups(const ScenarioPlan& plan) {
  std::vector<size_t> groups;
  for (const PlanStep& step : plan.steps) groups.push_back(step.group);
  return groups;
}

TEST(ScenarioPlanTest, AGroupRunsAfterTheGroupItsGateReads) {
  const Scenario s = ThreeGroups();
  ScenarioPlan plan;
  BuildPlan(s, PlanOptions(), &plan);
  EXPECT_EQ((std::vector<size_t>{1, 2, 0}), Groups(plan));
  EXPECT_EQ((std::vector<int32_t>{2, 0, 1}), plan.step_of_group);
  EXPECT_EQ(1, plan.StepOf(0).gate_group);
  EXPECT_FALSE(plan.StepOf(0).gate_absent);
  EXPECT_TRUE(plan.StepOf(0).reads_group);
  EXPECT_FALSE(plan.StepOf(1).reads_group);
  EXPECT_EQ(1, plan.waves);
  for (const PlanStep& step : plan.steps) EXPECT_EQ(StepRunner::kOwnKernel, step.runner);
  EXPECT_FALSE(plan.provided);
  EXPECT_FALSE(plan.host_only);
}

// slotguard's own qsa_compressed reads the provider's paged output: it runs
// in the wave after the provider's call.
TEST(ScenarioPlanTest, AnOwnStepThatReadsTheProvidersStartsTheNextWave) {
  const Scenario s = ThreeGroups();
  const Stub paged({Family::kPaged});
  PlanOptions options;
  options.provider = &paged;
  ScenarioPlan plan;
  BuildPlan(s, options, &plan);
  EXPECT_EQ(StepRunner::kProvider, plan.StepOf(1).runner);
  EXPECT_EQ(StepRunner::kOwnKernel, plan.StepOf(0).runner);
  EXPECT_EQ(0, plan.StepOf(1).wave);
  EXPECT_EQ(0, plan.StepOf(2).wave);
  EXPECT_EQ(1, plan.StepOf(0).wave);
  EXPECT_EQ(2, plan.waves);
  EXPECT_TRUE(plan.provided);
  // Tokens 0 and 1 are request 0's, 2 request 1's, 3 past qsl[R].
  EXPECT_EQ((std::vector<int32_t>{0, 0, 1, -1}), plan.arrays.request_of_token);
}

// A whole-scenario provider of both: one call of wave 0 with attn then c,
// and c's gate names attn (the provider answers it from its own output).
TEST(ScenarioPlanTest, AWholeScenarioProviderGetsOneCallWhoseGateNamesItsOwnStep) {
  const Scenario s = ThreeGroups();
  const Stub both({Family::kPaged, Family::kQsaCompressed}, /*whole=*/true);
  PlanOptions options;
  options.provider = &both;
  ScenarioPlan plan;
  BuildPlan(s, options, &plan);
  EXPECT_EQ(1, plan.waves);
  std::vector<StepCall> calls;
  AppendCalls(plan, 0, true, plan.HostBatch(), nullptr, [](size_t) { return StepArgs(); }, &calls);
  ASSERT_EQ(1u, calls.size());
  ASSERT_EQ(2u, calls[0].steps.size());
  EXPECT_EQ(1u, plan.steps[calls[0].steps[0].step].group);
  EXPECT_EQ(0u, plan.steps[calls[0].steps[1].step].group);
  EXPECT_EQ(-1, calls[0].steps[0].gate_group);
  EXPECT_EQ(1, calls[0].steps[1].gate_group);
  calls.clear();
  AppendCalls(plan, 0, false, plan.HostBatch(), nullptr, [](size_t) { return StepArgs(); }, &calls);
  EXPECT_EQ(2u, calls.size()) << "one call per step for a provider that takes groups";
}

// No linked group: the gate reads the absent rule's mapping, PAD for the
// dummy request's token (2) and past qsl[R] (3), 0 for the live ones.
TEST(ScenarioPlanTest, AGateWithoutItsGroupReadsTheAbsentRule) {
  const Scenario s = ParseTestScenario(R"({
    "slotguard": 1, "name": "alone", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 2, 3], "seq_lens": [2, 1], "positions": [0, 1, 0, 0],
              "num_actual_tokens": 3, "num_tokens": 4, "idx_mapping": [0, -1]},
    "groups": [{"name": "c", "kernel": "qsa_compressed", "block_size": 4, "compress_ratio": 2,
                "block_table": [[3], [0]]}]})");
  ScenarioPlan plan;
  BuildPlan(s, PlanOptions(), &plan);
  EXPECT_TRUE(plan.steps[0].gate_absent);
  EXPECT_EQ(-1, plan.steps[0].gate_group);
  EXPECT_EQ((std::vector<int64_t>{0, 0, -1, -1}), plan.AbsentGate(plan.steps[0].absent_rule));
}

// The output count is the family's, whatever the buffers hold: two for the
// compressor ring with no token at all.
TEST(ScenarioPlanTest, TheOutputCountIsTheFamilysEvenWithNoTokens) {
  const Scenario s = ParseTestScenario(R"({
    "slotguard": 1, "name": "empty", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 0], "seq_lens": [4], "positions": [], "num_actual_tokens": 0, "num_tokens": 0},
    "groups": [{"name": "ring", "kernel": "compressor_ring", "capacity": 8, "ring_block_size": 4,
                "block_table": [[1, 2]]}]})");
  ScenarioPlan plan;
  BuildPlan(s, PlanOptions(), &plan);
  EXPECT_EQ(2, plan.steps[0].outputs);
}

TEST(ScenarioPlanTest, APoolPastTheLimitHasNoWriterJob) {
  const Scenario s = ThreeGroups();  // 8 blocks of 4 slots
  PlanOptions options;
  options.writers.head_bytes = 64;
  options.writers.max_cache_bytes = 8 * 4 * 64;  // paged and kpool (page 4) fit exactly
  ScenarioPlan plan;
  BuildPlan(s, options, &plan);
  EXPECT_TRUE(plan.StepOf(1).writes);
  EXPECT_EQ(8 * 4, plan.StepOf(1).cache.slots);
  options.writers.max_cache_bytes = 8 * 4 * 64 - 1;
  BuildPlan(s, options, &plan);
  EXPECT_FALSE(plan.StepOf(1).writes);
  options.writers.head_bytes = 0;
  BuildPlan(s, options, &plan);
  EXPECT_FALSE(plan.StepOf(1).writes) << "writers off";
}

TEST(ScenarioPlanTest, ASkipNamesTheFirstGroupTheProviderRuns) {
  const Scenario s = ThreeGroups();
  const Stub picky({Family::kKpoolTail}, false, true, "no specialization fits");
  PlanOptions options;
  options.provider = &picky;
  ScenarioPlan plan;
  BuildPlan(s, options, &plan);
  EXPECT_EQ("group k: no specialization fits", plan.skip);
}

// A provider that cannot read persistent tables gets each request's row
// gathered (a dummy's all -1), and a batch whose seq_lens pass int32 is
// skipped, saying why.
TEST(ScenarioPlanTest, AnOldProviderGetsGatheredTablesAndSkipsWideSeqLens) {
  Scenario s = ParseTestScenario(R"({"slotguard": 2, "name": "t", "num_blocks": 16,
    "batch": {"query_start_loc": [0, 1, 2], "table_rows": "idx_mapping", "idx_mapping": [2, -1]},
    "groups": [{"name": "attn", "kernel": "paged", "block_size": 4,
                "block_table": [[3, 5], [2, 9], [6, 11]]}]})");
  const Stub old({Family::kPaged}, false, /*persistent=*/false);
  PlanOptions options;
  options.provider = &old;
  ScenarioPlan plan;
  BuildPlan(s, options, &plan);
  ASSERT_TRUE(plan.skip.empty()) << plan.skip;
  EXPECT_TRUE(plan.steps[0].table.gathered);
  EXPECT_EQ(2, plan.steps[0].table.rows);
  EXPECT_EQ((std::vector<int32_t>{6, 11, -1, -1}), plan.steps[0].table.gathered_table.entries);
  EXPECT_EQ(6, plan.steps[0].table.memory[0]);
  s.batch.seq_lens[0] = int64_t{1} << 31;
  s.batch.positions[0] = (int64_t{1} << 31) - 1;
  BuildPlan(s, options, &plan);
  EXPECT_EQ("group attn: stub takes int32 seq_lens (plugin ABI 1 or kernel spec 1) and this batch's reach 2147483648; "
            "rebuild it against plugin ABI 2 (spec 2) to check it on such a batch",
            plan.skip);
}

}  // namespace
}  // namespace slotguard
