// The GPU backend's batched path (many scenarios per launch, used by
// `slotguard fuzz --backend gpu`): bit-identical to the host backend,
// scenario by scenario, mutants included; and every table layout giving the
// padded layout's outputs on every GPU path. Skipped without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "backend/backend.h"
#include "fuzzing/campaign.h"
#include "fuzzing/generators.h"
#include "registry/families.h"
#include "testing/scenario_fixtures.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

TEST(BatchedGpuTest, ManyScenariosInOneLaunchMatchTheHostBackend) {
  std::string why;
  std::unique_ptr<Backend> gpu = MakeGpuBackend(&why);
  if (!gpu) GTEST_SKIP() << why;
  std::unique_ptr<Backend> host = MakeHostBackend();
  const std::vector<Variant> mutants = NonFixedVariants();
  std::vector<Scenario> scenarios;
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    RandomChoices choices(seed);
    GeneratorOptions options;
    options.inconsistent = seed % 3 == 0;
    Scenario s = GenerateScenario(choices, options);
    if (seed % 2) {  // every other scenario with a historical variant forced
      const Variant v = mutants[seed % mutants.size()];
      for (Group& g : s.groups)
        if (g.family == GetVariant(v).family) g.variant = v;
    }
    scenarios.push_back(std::move(s));
  }
  std::vector<const Scenario*> pointers;
  for (const Scenario& s : scenarios) pointers.push_back(&s);
  std::vector<std::vector<GroupOutputs>> batched;
  std::string err;
  // Twice on the same output vectors, the second time in reverse order: the
  // backend's kept buffers and the reused outputs must not leak between calls.
  for (int pass = 0; pass < 2; ++pass) {
    ASSERT_TRUE(gpu->RunMany(pointers, &batched, &err)) << err;
    ASSERT_EQ(scenarios.size(), batched.size());
    for (size_t i = 0; i < pointers.size(); ++i) {
      std::vector<GroupOutputs> expected;
      ASSERT_TRUE(host->Run(*pointers[i], &expected, &err)) << err;
      ASSERT_EQ(expected.size(), batched[i].size()) << "pass " << pass << " scenario " << i;
      for (size_t g = 0; g < expected.size(); ++g) {
        ASSERT_EQ(expected[g].engine, batched[i][g].engine) << "pass " << pass << " scenario " << i << " group " << g;
        ASSERT_EQ(expected[g].flat, batched[i][g].flat) << "pass " << pass << " scenario " << i << " group " << g;
        // The GPU sees reads past a row only through the padded layout's poison.
        if (pointers[i]->table_layout == TableLayoutKind::kPadded) {
          ASSERT_EQ(expected[g].read_past_row, batched[i][g].read_past_row)
              << "pass " << pass << " scenario " << i << " group " << g;
        }
        ASSERT_TRUE(batched[i][g].fault.empty());
      }
    }
    std::reverse(pointers.begin(), pointers.end());
  }
}

TEST(BatchedGpuTest, GpuCampaignsFindWhatHostCampaignsFind) {
  std::string why;
  std::unique_ptr<Backend> gpu = MakeGpuBackend(&why);
  if (!gpu) GTEST_SKIP() << why;
  std::unique_ptr<Backend> host = MakeHostBackend();
  for (const char* variant : {"", "pad_from_n", "prefix", "no_common_guard", "clamp"}) {
    CampaignOptions o;
    o.settings.variant = variant;
    o.settings.runs = *variant ? 5000 : 20000;
    o.settings.seconds = 0;
    o.settings.seed = 3;
    o.settings.out_dir = ScratchPath("campaign");
    std::vector<Family> families;
    std::string problem;
    CampaignResult on_gpu, on_host;
    std::ostringstream progress;
    ASSERT_TRUE(RunCampaign(o, *gpu, progress, &on_gpu, &problem)) << problem;
    ASSERT_TRUE(RunCampaign(o, *host, progress, &on_host, &problem)) << problem;
    EXPECT_EQ(on_host.Found(), on_gpu.Found()) << variant;
    if (on_host.Found() && on_gpu.Found()) {
      EXPECT_EQ(on_host.findings.at(0).finding_index, on_gpu.findings.at(0).finding_index) << variant;
    }
    EXPECT_EQ(*variant != 0, on_gpu.Found()) << variant;
  }
}

// The GPU twin of HostLayoutsTest.FixedKernelsGiveThePaddedOutputsInEveryLayout:
// one scenario at a time (RunOnStream), many per launch (RunManyOnStream)
// and the graph replays, each layout against the host backend's padded run.
TEST(BatchedGpuTest, EveryTableLayoutGivesThePaddedOutputsOnEveryPath) {
  std::string why;
  std::unique_ptr<Backend> gpu = MakeGpuBackend(&why);
  if (!gpu) GTEST_SKIP() << why;
  std::unique_ptr<Backend> host = MakeHostBackend();
  std::vector<Scenario> padded = CuratedScenarios();
  for (Scenario& s : padded) {
    for (Group& g : s.groups) g.variant = FixedVariant(g.family);
    s.table_layout = TableLayoutKind::kPadded;
  }
  std::string err;
  for (TableLayoutKind kind : {TableLayoutKind::kPadded, TableLayoutKind::kTight, TableLayoutKind::kStrided}) {
    std::vector<Scenario> laid = padded;
    for (Scenario& s : laid) s.table_layout = kind;
    std::vector<const Scenario*> pointers;
    for (const Scenario& s : laid) pointers.push_back(&s);
    std::vector<std::vector<GroupOutputs>> batched;
    ASSERT_TRUE(gpu->RunMany(pointers, &batched, &err)) << err;
    ASSERT_EQ(laid.size(), batched.size());
    for (size_t i = 0; i < laid.size(); ++i) {
      const std::string where = laid[i].name + " " + TableLayoutName(kind);
      std::vector<GroupOutputs> expected, single;
      std::vector<std::vector<GroupOutputs>> replayed, host_replayed;
      ASSERT_TRUE(host->Run(padded[i], &expected, &err)) << err;
      ASSERT_TRUE(gpu->Run(laid[i], &single, &err)) << where << ": " << err;
      ASSERT_TRUE(gpu->RunReplays(GraphSequence::Replays({laid[i]}), &replayed, &err)) << where << ": " << err;
      ASSERT_TRUE(host->RunReplays(GraphSequence::Replays({padded[i]}), &host_replayed, &err)) << where << ": " << err;
      ASSERT_EQ(2u, replayed.size()) << where;  // the capture, the replay
      for (size_t g = 0; g < expected.size(); ++g) {
        EXPECT_EQ(expected[g].engine, batched[i][g].engine) << where << " group " << g << " (batched)";
        EXPECT_EQ(expected[g].flat, batched[i][g].flat) << where << " group " << g << " (batched)";
        EXPECT_EQ(expected[g].engine, single[g].engine) << where << " group " << g << " (one scenario)";
        EXPECT_EQ(expected[g].flat, single[g].flat) << where << " group " << g << " (one scenario)";
        EXPECT_EQ(host_replayed[1][g].engine, replayed[1][g].engine) << where << " group " << g << " (graph)";
        // Fixed kernels read inside their rows: no evidence in any layout.
        EXPECT_EQ(std::vector<uint8_t>(laid[i].batch.num_tokens, 0), batched[i][g].read_past_row) << where;
      }
    }
  }
}

}  // namespace
}  // namespace slotguard
