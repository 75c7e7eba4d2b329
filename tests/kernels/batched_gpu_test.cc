// The GPU backend's batched path (many scenarios per launch, used by
// `slotguard fuzz --backend gpu`): bit-identical to the host backend,
// scenario by scenario, mutants included. Skipped without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "backend/backend.h"
#include "fuzzing/campaign.h"
#include "fuzzing/generators.h"
#include "registry/families.h"

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
        ASSERT_EQ(expected[g].read_past_row, batched[i][g].read_past_row)
            << "pass " << pass << " scenario " << i << " group " << g;
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
    o.variant = variant;
    o.runs = *variant ? 5000 : 20000;
    o.seconds = 0;
    o.seed = 3;
    o.out_dir = ::testing::TempDir() + "/slotguard_batched";
    std::vector<Family> families;
    std::string problem;
    CampaignResult on_gpu, on_host;
    std::ostringstream progress;
    ASSERT_TRUE(RunCampaign(o, *gpu, progress, &on_gpu, &problem)) << problem;
    ASSERT_TRUE(RunCampaign(o, *host, progress, &on_host, &problem)) << problem;
    EXPECT_EQ(on_host.found, on_gpu.found) << variant;
    EXPECT_EQ(on_host.finding_index, on_gpu.finding_index) << variant;
    EXPECT_EQ(*variant != 0, on_gpu.found) << variant;
  }
}

}  // namespace
}  // namespace slotguard
