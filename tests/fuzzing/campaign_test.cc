// `slotguard fuzz` end to end: deterministic for a seed, finds every
// historical variant from nothing, and the reproducer replays to the finding.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "fuzzing/campaign.h"
#include "fuzzing/campaign_internal.h"
#include "fuzzing/shrink.h"
#include "backend/backend.h"
#include "registry/families.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

namespace fs = std::filesystem;

// The status line says what the campaign checked against its budget and
// the findings so far; while shrinking, which finding and its shape so far.
TEST(FuzzStatusLineTest, NamesTheBudgetAndTheFindingsSoFar) {
  CampaignOptions o;
  o.settings.runs = 20000;
  o.settings.seconds = 60;
  CampaignResult r;
  r.scenarios = 1200;
  r.tokens = 51234;
  r.finding_scenarios = 2;
  EXPECT_EQ("fuzz: 1200 of 20000 scenarios, 51234 token-groups, 375 scenarios/s, 3 of 60 s, 2 findings",
            campaign_internal::ProgressLine(o, r, 3.2));
  o.settings.runs = -1;
  o.settings.seconds = 0;
  r.finding_scenarios = 1;
  r.suppressed_scenarios = 7;
  EXPECT_EQ("fuzz: 1200 scenarios, 51234 token-groups, 400 scenarios/s, 3 s, 1 finding (+7 suppressed)",
            campaign_internal::ProgressLine(o, r, 3));
  Scenario s;
  s.batch.query_start_loc = {0, 1025};
  s.batch.num_tokens = 1025;
  s.groups.resize(1);
  EXPECT_EQ("fuzz: shrinking finding 1 of 2 (scenario 17): 1 requests, 1025 tokens, 1 groups after 40 candidates, 12 s",
            campaign_internal::ShrinkLine("finding 1 of 2 (scenario 17)", s, 40, 12.4));
}

// While a finding shrinks, the status line is due as the campaign's is: on
// a terminal rewritten in place every 0.5 s (and ended by a newline), piped
// a plain line every 10 s, so nothing in the first 0.6 s.
TEST(FuzzStatusLineTest, TheShrinkLineIsRewrittenOnATerminalAndEvery10SecondsPiped) {
  Scenario s;
  s.batch.query_start_loc = {0, 3};
  s.batch.num_tokens = 3;
  s.groups.resize(1);
  CampaignOptions tty, piped;
  tty.tty_progress = true;
  std::ostringstream on_tty, on_pipe;
  campaign_internal::Budget tty_budget(tty, on_tty), pipe_budget(piped, on_pipe);
  tty_budget.MaybeReportShrink("finding 1 of 1 (scenario 4)", s, 2);
  EXPECT_EQ("", on_tty.str()) << "not due before 0.5 s";
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  tty_budget.MaybeReportShrink("finding 1 of 1 (scenario 4)", s, 7);
  pipe_budget.MaybeReportShrink("finding 1 of 1 (scenario 4)", s, 7);
  tty_budget.MaybeReportShrink("finding 1 of 1 (scenario 4)", s, 8);  // not due again yet
  tty_budget.EndLine();
  // One line, from candidate 7 (8 came before the next was due), its time
  // in whole seconds.
  const std::string line = on_tty.str();
  const std::string head = "\rfuzz: shrinking finding 1 of 1 (scenario 4): 1 requests, 3 tokens, 1 groups after 7 candidates, ";
  EXPECT_EQ(head, line.substr(0, head.size())) << line;
  EXPECT_EQ(" s\x1b[K\n", line.substr(line.size() - 6)) << line;
  EXPECT_EQ(1, std::count(line.begin(), line.end(), '\r')) << line;
  EXPECT_EQ("", on_pipe.str()) << "piped: the first line at 10 s";
}

// A chunk is sized to about `seconds` at the last one's rate, but grows at
// most twofold: a backend whose chunks suddenly cost more (a provider whose
// standbys are spent) keeps a deadline waiting for about twice the last
// chunk, not for a chunk sized on a rate that no longer holds.
TEST(FuzzChunkTest, AChunkIsSizedByTheLastRateAndGrowsAtMostTwofold) {
  CampaignOptions o;
  o.settings.seconds = 0;  // no deadline
  std::ostringstream sink;
  const campaign_internal::Budget budget(o, sink);
  EXPECT_EQ(512, campaign_internal::ChunkFor(budget, 256, 0.001, 0.5, 64, 8192)) << "fast: twice the last";
  EXPECT_EQ(100, campaign_internal::ChunkFor(budget, 256, 1.28, 0.5, 64, 8192)) << "200/s for 0.5 s";
  EXPECT_EQ(64, campaign_internal::ChunkFor(budget, 256, 100, 0.5, 64, 8192)) << "never below `least`";
  EXPECT_EQ(8192, campaign_internal::ChunkFor(budget, 8192, 0.001, 0.5, 64, 8192)) << "never above `most`";
}

TEST(FuzzCampaignTest, FixedCampaignFindsNothing) {
  FuzzOptions o;
  o.backend = BackendKind::kHost;
  o.settings.runs = 3000;
  o.settings.seed = 11;
  o.settings.out_dir = FreshScratchPath("fixed");
  std::ostringstream out, err;
  EXPECT_EQ(kExitHolds, RunFuzz(o, out, err)) << out.str();
  EXPECT_NE(std::string::npos, out.str().find("slotguard: fuzz: 3000 scenarios")) << out.str();
  EXPECT_FALSE(fs::exists(o.settings.out_dir) && !fs::is_empty(o.settings.out_dir));
}

TEST(FuzzCampaignTest, SameSeedSameReproducerWhateverTheJobs) {
  std::string files[2];
  for (int jobs : {1, 3}) {
    FuzzOptions o;
    o.backend = BackendKind::kHost;
    o.settings.variant = "pad_from_n";
    o.settings.runs = 500;
    o.settings.seed = 5;
    o.settings.jobs = jobs;
    o.settings.out_dir = FreshScratchPath("jobs" + std::to_string(jobs));
    std::ostringstream out, err;
    ASSERT_EQ(kExitFindings, RunFuzz(o, out, err)) << out.str() << err.str();
    for (const auto& entry : fs::directory_iterator(o.settings.out_dir)) {
      std::ifstream in(entry.path());
      files[jobs == 3] = std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
  }
  EXPECT_FALSE(files[0].empty());
  EXPECT_EQ(files[0], files[1]);
}

/// A campaign on the host backend.
void RunOnHost(const CampaignOptions& o, CampaignResult* result) {
  std::unique_ptr<Backend> host = MakeHostBackend();
  std::string err;
  std::ostringstream progress;
  ASSERT_TRUE(RunCampaign(o, *host, progress, result, &err)) << err;
}

/// The reproducer blames the kernel: with every group's kernel fixed, it holds.
void ExpectHoldsOnceFixed(const std::string& file) {
  Scenario s;
  std::string problem;
  ASSERT_TRUE(LoadScenarioFile(file, LoadLimits(), &s, &problem)) << problem;
  for (Group& g : s.groups) g.variant = FixedVariant(g.family);
  std::unique_ptr<Backend> host = MakeHostBackend();
  ScenarioRun run;
  ASSERT_TRUE(RunScenario(s, *host, 8, &run, &problem)) << problem;
  for (const FindingSink& sink : run.findings) EXPECT_EQ(0, sink.total()) << file;
}

/// The reproducer named on fuzz's last line.
std::string ReproducerOf(const std::string& text) {
  const std::string marker = "finding written to ";
  const size_t at = text.rfind(marker);
  if (at == std::string::npos) return "";
  return text.substr(at + marker.size(), text.find(';', at) - at - marker.size());
}

class FuzzFindsVariantTest : public ::testing::TestWithParam<Variant> {
 protected:
  /// A host campaign of 20000 scenarios over the variant's family, the variant forced.
  FuzzOptions VariantCampaign(const std::string& out_prefix) const {
    const VariantInfo& v = GetVariant(GetParam());
    FuzzOptions o;
    o.backend = BackendKind::kHost;
    o.families = {GetFamily(v.family).name};
    o.settings.variant = v.name;
    o.settings.runs = 20000;
    o.settings.out_dir = FreshScratchPath(out_prefix + GetFamily(v.family).name + "_" + v.name);
    return o;
  }
};

TEST_P(FuzzFindsVariantTest, FromNothingAndTheReproducerReplays) {
  FuzzOptions o = VariantCampaign("");
  std::ostringstream out, err;
  ASSERT_EQ(kExitFindings, RunFuzz(o, out, err)) << out.str() << err.str();
  // The last line names the file; it has no expect, so replaying it fails.
  const std::string file = ReproducerOf(out.str());
  ASSERT_FALSE(file.empty()) << out.str();
  ExpectHoldsOnceFixed(file);
  Scenario s;
  std::string problem;
  ASSERT_TRUE(LoadScenarioFile(file, LoadLimits(), &s, &problem)) << problem;
  EXPECT_FALSE(s.expect.present);
  ReplayOptions replay;
  replay.file = file;
  replay.backend = BackendKind::kHost;
  std::ostringstream rout, rerr;
  EXPECT_EQ(kExitFindings, RunReplay(replay, rout, rerr));
  // Adding the expectation it suggests turns it into a regression scenario.
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(file));
  const std::string description = doc["description"];
  const size_t inv = description.find("minimized to keep ") + 18;
  const std::string invariant = description.substr(inv, description.find(' ', inv) - inv);
  doc["expect"] = {{"verdict", "finding"}, {"findings", {invariant}}};
  std::ofstream(file) << doc.dump(2);
  CheckOptions check;
  check.paths = {file};
  check.backend = BackendKind::kHost;
  std::ostringstream cout_, cerr_;
  EXPECT_EQ(kExitHolds, RunCheck(check, cout_, cerr_)) << cout_.str();
}

// With runner-state faults on, the campaign counts the findings the batch
// explains and goes on until the kernel's own: a reproducer that holds once
// the kernel is fixed.
TEST_P(FuzzFindsVariantTest, ThroughRunnerStateFindingsWithInconsistentBatches) {
  FuzzOptions o = VariantCampaign("inconsistent_");
  o.generator.inconsistent = true;
  o.settings.seed = 3;
  std::ostringstream out, err;
  ASSERT_EQ(kExitFindings, RunFuzz(o, out, err)) << out.str() << err.str();
  EXPECT_NE(std::string::npos, out.str().find(" runner-state findings (")) << out.str();
  const std::string file = ReproducerOf(out.str());
  ASSERT_FALSE(file.empty()) << out.str();
  ExpectHoldsOnceFixed(file);
}

INSTANTIATE_TEST_SUITE_P(Mutants, FuzzFindsVariantTest, ::testing::ValuesIn(NonFixedVariants()),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return std::string(GetFamily(GetVariant(info.param).family).name) + "_" +
                                  GetVariant(info.param).name;
                         });

TEST(FuzzCampaignTest, InconsistentBatchesWithTheFixedKernelAreCountedNotStoppedAt) {
  CampaignOptions o;
  o.generator.inconsistent = true;
  o.settings.runs = 3000;
  o.settings.seed = 3;
  o.settings.out_dir = FreshScratchPath("inconsistent_fixed");
  std::unique_ptr<Backend> host = MakeHostBackend();
  CampaignResult result;
  ASSERT_NO_FATAL_FAILURE(RunOnHost(o, &result));
  std::string err;
  EXPECT_FALSE(result.Found());
  EXPECT_EQ(3000, result.scenarios);
  EXPECT_GT(result.runner_state_findings, 0);
  // Each counted scenario really is one: findings, none that blames the kernel.
  ASSERT_GE(result.first_runner_state_finding, 0);
  const Scenario first = CampaignScenario(o, result.first_runner_state_finding, nullptr);
  ScenarioRun run;
  ASSERT_TRUE(RunScenario(first, *host, 8, &run, &err)) << err;
  std::set<std::string> fired;
  for (const FindingSink& sink : run.findings)
    for (const auto& [name, count] : sink.counts()) fired.insert(name);
  EXPECT_FALSE(fired.empty());
  EXPECT_FALSE(BlamesKernel(fired));
  EXPECT_FALSE(ReferencePasses(first));
}

TEST(ShrinkTest, NeverDropsAGroupAnotherGroupReads) {
  // The predicate only needs the qsa_compressed group; its common group stays,
  // since without it the default common mapping would change what q computes.
  Scenario s;
  std::string err;
  ASSERT_TRUE(ParseScenario(R"({"slotguard": 1, "name": "s", "num_blocks": 100,
      "batch": {"query_start_loc": [0, 4], "seq_lens": [4]},
      "groups": [{"name": "p", "kernel": "paged", "block_size": 4, "block_table": [[1]]},
                 {"name": "q", "kernel": "qsa_compressed", "block_size": 2, "compress_ratio": 2, "common": "p",
                  "block_table": [[3]]}]})",
                            "s.json", LoadLimits(), &s, &err))
      << err;
  const Scenario small = Shrink(s, [](const Scenario& c) {
    for (const Group& g : c.groups)
      if (g.name == "q") return true;
    return false;
  });
  ASSERT_EQ(2u, small.groups.size());
  EXPECT_EQ("p", small.groups[0].name);
  EXPECT_EQ("q", small.groups[1].name);
}

TEST(ShrinkTest, KpoolPrefixEndsAtOneTokenOnANullColumn) {
  CampaignOptions o;
  o.generator.families = {Family::kKpoolTail};
  o.settings.variant = "prefix";
  o.settings.runs = 1000;
  o.settings.out_dir = FreshScratchPath("shrink");
  CampaignResult result;
  ASSERT_NO_FATAL_FAILURE(RunOnHost(o, &result));
  ASSERT_TRUE(result.Found());
  const Scenario& s = result.findings.at(0).minimized;
  EXPECT_EQ(1, s.batch.num_reqs());
  EXPECT_EQ(1, s.batch.num_tokens);
  ASSERT_EQ(1u, s.groups.size());
  EXPECT_EQ(1, s.groups[0].table.width);
  EXPECT_EQ(0, s.groups[0].table.entries[0]);
  EXPECT_EQ("null_block", result.findings.at(0).invariant);
}

TEST(ShrinkTest, KeepsOnlyWhatStillFails) {
  // A predicate that needs request 2's token at position 9: everything else goes.
  Scenario s;
  std::string err;
  ASSERT_TRUE(ParseScenario(R"({"slotguard": 1, "name": "s", "num_blocks": 100,
      "batch": {"query_start_loc": [0, 3, 5, 9], "seq_lens": [3, 7, 10], "num_tokens": 12},
      "groups": [{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[1, 2, 3], [4, 5, 6], [7, 8, 9]]},
                 {"name": "b", "kernel": "kpool_tail", "kpool": 4, "block_table": [[10], [11], [12]]}]})",
                            "s.json", LoadLimits(), &s, &err))
      << err;
  const Scenario small = Shrink(s, [](const Scenario& c) {
    for (int64_t t = 0; t < c.batch.num_tokens; ++t)
      if (c.batch.positions[t] == 9) return true;
    return false;
  });
  EXPECT_EQ(1, small.batch.num_reqs());
  EXPECT_EQ(1, small.batch.num_tokens);
  EXPECT_EQ(1u, small.groups.size());
  EXPECT_EQ(9, small.batch.positions[0]);
}

}  // namespace
}  // namespace slotguard
