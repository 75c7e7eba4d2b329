// Persistent block tables (format 2, batch.table_rows "idx_mapping") on the
// host backend: the same step moved into a shuffled persistent table with
// stale rows means the same outputs, the kernels read the rows idx_mapping
// names, and a kernel that reads row r instead (gathered_row) is caught.
#include <gtest/gtest.h>

#include "backend/backend.h"
#include "reference/reference.h"
#include "runner/scenario_run.h"
#include "testing/paged_sweep.h"
#include "testing/persistent_table.h"
#include "testing/ring_sweep.h"

namespace slotguard {
namespace {

std::vector<Scenario> SweepScenarios() {
  std::vector<Scenario> out;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    testing::PagedSweepCase p;
    p.num_reqs = 1 + static_cast<int32_t>(seed % 7) * 3;
    p.blocks_per_manager_block = seed % 3 == 0 ? 4 : 1;
    p.seed = seed;
    out.push_back(testing::MakePagedSweepScenario(p));
    testing::RingSweepCase r;
    r.num_reqs = 1 + static_cast<int32_t>(seed % 5) * 4;
    r.seed = seed;
    r.minus_one_rows = seed % 2 == 0;
    out.push_back(testing::MakeRingSweepScenario(r));
  }
  return out;
}

TEST(PersistentTableHostTest, TheSameStepInAPersistentTableMeansTheSameOutputs) {
  for (const Scenario& gathered : SweepScenarios()) {
    const Scenario persistent = testing::ToPersistentTable(gathered, 99);
    for (size_t g = 0; g < gathered.groups.size(); ++g)
      ASSERT_EQ(ReferenceOutputs(gathered, gathered.groups[g]), ReferenceOutputs(persistent, persistent.groups[g]))
          << persistent.name << " group " << gathered.groups[g].name;
  }
}

TEST(PersistentTableHostTest, EveryFamilyReadsTheRowIdxMappingNames) {
  auto host = MakeHostBackend();
  for (const Scenario& gathered : SweepScenarios()) {
    const Scenario s = testing::ToPersistentTable(gathered, 7);
    ScenarioRun run;
    std::string err;
    ASSERT_TRUE(RunScenario(s, *host, 4, &run, &err)) << err;
    for (size_t g = 0; g < s.groups.size(); ++g) {
      EXPECT_EQ(run.reference[g], run.kernel[g].engine) << s.name << " group " << s.groups[g].name;
      EXPECT_EQ(run.reference[g], run.kernel[g].flat) << s.name << " group " << s.groups[g].name;
      EXPECT_EQ(0, run.findings[g].total()) << s.name << " group " << s.groups[g].name;
    }
  }
}

// A dummy run of the same step: every request reads row r of the stale
// table. slotguard's kernels see the key: the paged kernel pads every token
// (its family pads dummies), as its description does, in both geometries.
TEST(PersistentTableHostTest, SlotguardsKernelsPadADummyRunAsTheirDescriptions) {
  auto host = MakeHostBackend();
  for (const Scenario& gathered : SweepScenarios()) {
    const Scenario s = testing::ToDummyRun(gathered, 5);
    ScenarioRun run;
    std::string err;
    ASSERT_TRUE(RunScenario(s, *host, 4, &run, &err)) << err;
    for (size_t g = 0; g < s.groups.size(); ++g) {
      EXPECT_EQ(run.reference[g], run.kernel[g].engine) << s.name << " group " << s.groups[g].name;
      EXPECT_EQ(run.reference[g], run.kernel[g].flat) << s.name << " group " << s.groups[g].name;
      if (s.groups[g].family != Family::kPaged) continue;
      for (int64_t slot : run.kernel[g].engine[0]) EXPECT_EQ(-1, slot) << s.name;
      EXPECT_EQ(0, run.findings[g].total()) << s.name;
    }
  }
}

TEST(PersistentTableHostTest, AKernelReadingRowRIsCaughtByOwnBlock) {
  auto host = MakeHostBackend();
  int caught = 0, scenarios = 0;
  for (const Scenario& gathered : SweepScenarios()) {
    Scenario s = testing::ToPersistentTable(gathered, 11);
    ASSERT_TRUE(ForceVariant("gathered_row", &s));
    ScenarioRun run;
    std::string err;
    ASSERT_TRUE(RunScenario(s, *host, 4, &run, &err)) << err;
    ++scenarios;
    bool own_block = false;
    for (const FindingSink& sink : run.findings) own_block |= sink.counts().count("own_block") > 0;
    caught += own_block;
    // The same variant on the gathered table is the correct kernel.
    Scenario plain = gathered;
    ASSERT_TRUE(ForceVariant("gathered_row", &plain));
    ScenarioRun clean;
    ASSERT_TRUE(RunScenario(plain, *host, 4, &clean, &err)) << err;
    for (const FindingSink& sink : clean.findings) EXPECT_EQ(0, sink.total()) << plain.name;
  }
  EXPECT_GE(caught, scenarios * 3 / 4) << "own_block caught gathered_row in " << caught << " of " << scenarios;
}

}  // namespace
}  // namespace slotguard
