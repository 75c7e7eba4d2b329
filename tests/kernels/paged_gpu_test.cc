// GPU tests (ctest label `gpu`): the CUDA kernels against the host backend
// and the reference. Every test skips, reported as skipped, without a device.
#include <filesystem>

#include <gtest/gtest.h>

#include "backend/backend.h"
#include "backend/gpu_device.h"
#include "bench/bench_scenario.h"
#include "reference/reference.h"
#include "runner/scenario_files.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"
#include "testing/paged_sweep.h"

namespace slotguard {
namespace {

class PagedGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    gpu_ = MakeGpuBackend(&why);
    if (!gpu_) GTEST_SKIP() << why;
  }
  GroupOutputs RunGpu(const Scenario& s) {
    std::vector<GroupOutputs> out;
    std::string err;
    EXPECT_TRUE(gpu_->Run(s, &out, &err)) << err;
    return out.at(0);
  }
  /// The sweep case's scenario on the GPU: both geometries equal the reference.
  void ExpectBothGeometriesMatch(const testing::PagedSweepCase& c) {
    const Scenario s = testing::MakePagedSweepScenario(c);
    const GroupOutputs out = RunGpu(s);
    const std::vector<int64_t> ref = ReferencePaged(s.batch, s.groups[0]);
    ASSERT_EQ(ref, out.engine[0]) << c.ToString();
    ASSERT_EQ(ref, out.flat[0]) << c.ToString();
  }
  std::unique_ptr<Backend> gpu_;
};

TEST_F(PagedGpuTest, BothGeometriesMatchTheReferenceOverOddSizes) {
  for (int32_t block_size : {1, 3, 7, 16, 17})
    for (int32_t reqs : {1, 2, 3, 5, 7, 23, 79, 1031})
      for (int32_t bpk : {1, 4}) {
        testing::PagedSweepCase c;
        c.num_reqs = reqs;
        c.block_size = block_size;
        c.blocks_per_manager_block = bpk;
        c.max_query = reqs > 100 ? 9 : 1100;  // requests longer than the 1024-token tile
        ASSERT_NO_FATAL_FAILURE(ExpectBothGeometriesMatch(c));
      }
}

TEST_F(PagedGpuTest, ManyShortAndEmptyRequests) {
  // The flat kernel's block-wide request search over 10^4..10^5 requests,
  // a third of them empty (queries of 0..2 tokens).
  for (int32_t reqs : {10007, 100003}) {
    testing::PagedSweepCase c;
    c.num_reqs = reqs;
    c.block_size = 5;
    c.max_query = 2;
    c.padding_tokens = 4099;
    ASSERT_NO_FATAL_FAILURE(ExpectBothGeometriesMatch(c));
  }
}

TEST_F(PagedGpuTest, DcpMatchesTheReference) {
  for (int32_t world : {2, 4})
    for (int32_t interleave : {1, 2, 8})
      for (int32_t rank = 0; rank < world; ++rank) {
        testing::PagedSweepCase c;
        c.num_reqs = 13;
        c.block_size = 4;
        c.blocks_per_manager_block = 2;
        c.dcp = {world, rank, interleave};
        ASSERT_NO_FATAL_FAILURE(ExpectBothGeometriesMatch(c));
      }
}

TEST_F(PagedGpuTest, EveryVariantMatchesTheHostBackend) {
  // The host backend runs the same source: the GPU must agree bit for bit,
  // mutants included (the unguarded one reads the same poison).
  testing::PagedSweepCase c;
  c.num_reqs = 23;
  c.block_size = 3;
  Scenario s = testing::MakePagedSweepScenario(c);
  BlockTable narrow{s.groups[0].table.rows, 4, {}};
  for (int32_t r = 0; r < narrow.rows; ++r)
    for (int32_t col = 0; col < 4; ++col) narrow.entries.push_back(s.groups[0].table.at(r, col));
  s.groups[0].table = narrow;
  std::unique_ptr<Backend> host = MakeHostBackend();
  for (Variant v : {Variant::kPagedFixed, Variant::kPagedUnguarded, Variant::kPagedDummyReadsRow, Variant::kPagedPadFromN}) {
    s.groups[0].variant = v;
    std::vector<GroupOutputs> expected;
    std::string err;
    ASSERT_TRUE(host->Run(s, &expected, &err));
    const GroupOutputs out = RunGpu(s);
    EXPECT_EQ(expected[0].engine, out.engine) << v;
    EXPECT_EQ(expected[0].flat, out.flat) << v;
    // The GPU sees row_bounds through the poison; the host through its reads.
    EXPECT_EQ(expected[0].read_past_row, out.read_past_row) << v;
  }
}

TEST_F(PagedGpuTest, LargeBatchMatchesTheReference) {
  const Scenario s = MakeBenchScenario(int64_t{1} << 20, 3);
  const GroupOutputs out = RunGpu(s);
  const std::vector<int64_t> ref = ReferencePaged(s.batch, s.groups[0]);
  EXPECT_EQ(ref, out.engine[0]);
  EXPECT_EQ(ref, out.flat[0]);
}

TEST_F(PagedGpuTest, CuratedScenariosHold) {
  std::vector<std::string> files;
  std::string err;
  ASSERT_TRUE(CollectScenarioFiles({SLOTGUARD_SOURCE_DIR "/scenarios"}, &files, &err)) << err;
  for (const std::string& file : files) {
    Scenario s;
    ASSERT_TRUE(LoadScenarioFile(file, LoadLimits(), &s, &err)) << err;
    const ScenarioReport report = CheckScenario(s, file, *gpu_, 8);
    EXPECT_EQ(ScenarioStatus::kChecked, report.status) << report.error;
    EXPECT_TRUE(report.holds) << file << ": " << report.verdict;
  }
}

}  // namespace
}  // namespace slotguard
