// GPU tests of the ring families (ctest label `gpu`): both geometries against
// the reference, every variant against the host backend. Skipped, reported
// as skipped, without a device.
#include <gtest/gtest.h>

#include "backend/backend.h"
#include "bench/bench_scenario.h"
#include "reference/reference.h"
#include "registry/families.h"
#include "testing/ring_sweep.h"

namespace slotguard {
namespace {

class RingGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    gpu_ = MakeGpuBackend(&why);
    if (!gpu_) GTEST_SKIP() << why;
  }
  std::vector<GroupOutputs> Run(Backend& backend, const Scenario& s) {
    std::vector<GroupOutputs> out;
    std::string err;
    EXPECT_TRUE(backend.Run(s, &out, &err)) << err;
    return out;
  }
  std::unique_ptr<Backend> gpu_;
};

TEST_F(RingGpuTest, BothGeometriesMatchTheReference) {
  for (int32_t capacity : {1, 3, 5, 7, 64, 640})
    for (int32_t reqs : {0, 1, 3, 23, 1031})
      for (uint64_t seed : {1, 2}) {
        testing::RingSweepCase c;
        c.capacity = capacity;
        c.num_reqs = reqs;
        c.seed = seed;
        c.max_query = reqs > 100 ? 9 : 2 * capacity + 3;
        const Scenario s = testing::MakeRingSweepScenario(c);
        const std::vector<GroupOutputs> out = Run(*gpu_, s);
        for (size_t g = 0; g < s.groups.size(); ++g) {
          const auto ref = ReferenceOutputs(s, s.groups[g]);
          ASSERT_EQ(ref, out[g].engine) << s.groups[g].name << " " << c.ToString();
          ASSERT_EQ(ref, out[g].flat) << s.groups[g].name << " " << c.ToString();
        }
      }
}

TEST_F(RingGpuTest, EveryVariantMatchesTheHostBackend) {
  std::unique_ptr<Backend> host = MakeHostBackend();
  for (bool minus_one : {false, true}) {
    testing::RingSweepCase c;
    c.num_reqs = 41;
    c.capacity = 5;
    c.minus_one_rows = minus_one;
    Scenario s = testing::MakeRingSweepScenario(c);
    for (size_t g = 1; g < s.groups.size(); ++g) {  // every ring group
      for (Variant v : VariantsOf(s.groups[g].family)) {
        Scenario mutant = s;
        mutant.groups[g].variant = v;
        const std::vector<GroupOutputs> expected = Run(*host, mutant);
        const std::vector<GroupOutputs> out = Run(*gpu_, mutant);
        EXPECT_EQ(expected[g].engine, out[g].engine) << GetVariant(v).name;
        EXPECT_EQ(expected[g].flat, out[g].flat) << GetVariant(v).name;
      }
    }
  }
}

TEST_F(RingGpuTest, LargeBatchOfEveryFamilyMatchesTheReference) {
  const Scenario s = MakeBenchScenario(int64_t{1} << 20, 5);
  const std::vector<GroupOutputs> out = Run(*gpu_, s);
  ASSERT_EQ(s.groups.size(), out.size());
  for (size_t g = 0; g < s.groups.size(); ++g) {
    const auto ref = ReferenceOutputs(s, s.groups[g]);
    EXPECT_EQ(ref, out[g].engine) << s.groups[g].name;
    EXPECT_EQ(ref, out[g].flat) << s.groups[g].name;
  }
}

}  // namespace
}  // namespace slotguard
