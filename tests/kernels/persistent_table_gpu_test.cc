// Persistent block tables on the GPU (ctest label `gpu`): one scenario at a
// time and many per launch, bit-identical to the host backend, gathered_row
// included. Skipped without a device.
#include <functional>

#include <gtest/gtest.h>

#include "backend/backend.h"
#include "runner/scenario_run.h"
#include "testing/paged_sweep.h"
#include "testing/persistent_table.h"
#include "testing/ring_sweep.h"

namespace slotguard {
namespace {

/// Every scenario through the GPU backend, many per launch and one at a
/// time, bit-identical to the host backend; `also` checks more of each
/// group's host outputs.
void ExpectGpuAsHost(Backend& host, Backend& gpu, const std::vector<Scenario>& scenarios,
                     const std::function<void(const Scenario&, size_t, const GroupOutputs&)>& also = nullptr) {
  std::vector<const Scenario*> pointers;
  for (const Scenario& s : scenarios) pointers.push_back(&s);
  std::vector<std::vector<GroupOutputs>> batched;
  std::string err;
  ASSERT_TRUE(gpu.RunMany(pointers, &batched, &err)) << err;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    std::vector<GroupOutputs> expected, single;
    ASSERT_TRUE(host.Run(scenarios[i], &expected, &err)) << err;
    ASSERT_TRUE(gpu.Run(scenarios[i], &single, &err)) << err;
    for (size_t g = 0; g < expected.size(); ++g) {
      if (also) also(scenarios[i], g, expected[g]);
      if (::testing::Test::HasFatalFailure()) return;
      ASSERT_EQ(expected[g].engine, batched[i][g].engine) << scenarios[i].name << " group " << g;
      ASSERT_EQ(expected[g].flat, batched[i][g].flat) << scenarios[i].name << " group " << g;
      ASSERT_EQ(expected[g].engine, single[g].engine) << scenarios[i].name << " group " << g;
      ASSERT_EQ(expected[g].flat, single[g].flat) << scenarios[i].name << " group " << g;
    }
  }
}

TEST(PersistentTableGpuTest, OneAtATimeAndBatchedMatchTheHostBackend) {
  std::string why;
  std::unique_ptr<Backend> gpu = MakeGpuBackend(&why);
  if (!gpu) GTEST_SKIP() << why;
  std::unique_ptr<Backend> host = MakeHostBackend();
  std::vector<Scenario> scenarios;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    testing::PagedSweepCase p;
    p.num_reqs = 1 + static_cast<int32_t>(seed * 37 % 300);
    p.max_query = p.num_reqs > 100 ? 9 : 1100;  // past the 1024-token tile
    p.blocks_per_manager_block = seed % 3 == 0 ? 4 : 1;
    p.seed = seed;
    testing::RingSweepCase r;
    r.num_reqs = 1 + static_cast<int32_t>(seed * 13 % 64);
    r.seed = seed;
    for (Scenario s : {testing::MakePagedSweepScenario(p), testing::MakeRingSweepScenario(r)}) {
      // gathered_row reads row r: with at least R rows it stays in the table
      // (past it, the host reads poison and a GPU whatever lies there).
      const bool gathered_row = seed % 4 == 0;
      s = testing::ToPersistentTable(s, seed, gathered_row ? s.batch.num_reqs() : 3);
      if (gathered_row) ForceVariant("gathered_row", &s);
      scenarios.push_back(std::move(s));
    }
  }
  ExpectGpuAsHost(*host, *gpu, scenarios);
}

// Dummy runs (batch.dummy_run: idx_mapping arange on stale persistent rows):
// slotguard's kernels see the key (MappingBatch.dummy_run), so the paged
// kernel pads every token and the ring kernels read the rows, on the GPU as
// on the host, one at a time and many per launch.
TEST(PersistentTableGpuTest, DummyRunsMatchTheHostBackend) {
  std::string why;
  std::unique_ptr<Backend> gpu = MakeGpuBackend(&why);
  if (!gpu) GTEST_SKIP() << why;
  std::unique_ptr<Backend> host = MakeHostBackend();
  std::vector<Scenario> scenarios;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    testing::PagedSweepCase p;
    p.num_reqs = 1 + static_cast<int32_t>(seed * 37 % 200);
    p.seed = seed;
    testing::RingSweepCase r;
    r.num_reqs = 1 + static_cast<int32_t>(seed * 13 % 64);
    r.seed = seed;
    for (Scenario s : {testing::MakePagedSweepScenario(p), testing::MakeRingSweepScenario(r)})
      scenarios.push_back(testing::ToDummyRun(s, seed));
  }
  ExpectGpuAsHost(*host, *gpu, scenarios, [](const Scenario& s, size_t g, const GroupOutputs& expected) {
    if (s.groups[g].family == Family::kPaged)
      for (int64_t slot : expected.engine[0]) ASSERT_EQ(-1, slot) << s.name;
  });
}

}  // namespace
}  // namespace slotguard
