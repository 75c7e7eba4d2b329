// bench's host figure (bench/host_bench.h): a row per family, and a backend
// that fails a run is an error, not a figure.
#include "bench/host_bench.h"

#include <gtest/gtest.h>

#include "bench/bench_scenario.h"
#include "registry/families.h"

namespace slotguard {
namespace {

class FailingBackend : public Backend {
 public:
  const char* name() const override { return "host"; }
  bool Run(const Scenario&, std::vector<GroupOutputs>*, std::string* err) override {
    *err = "out of memory for the outputs";
    return false;
  }
  bool RunReplays(const GraphSequence&, std::vector<std::vector<GroupOutputs>>*, std::string* err) override {
    *err = "no replays";
    return false;
  }
};

TEST(HostBenchTest, OneRowPerFamily) {
  const Scenario all = MakeBenchScenario(2048, 7);
  const std::unique_ptr<Backend> host = MakeHostBackend();
  for (size_t g = 0; g < all.groups.size(); ++g) {
    HostBenchRow row;
    std::string err;
    ASSERT_TRUE(BenchHostGroup(all, g, *host, &row, &err)) << err;
    const bool common = all.groups[g].family == Family::kQsaCompressed;
    EXPECT_EQ(std::string(GetFamily(all.groups[g].family).name) + (common ? "+paged" : ""), row.name);
    EXPECT_GT(row.seconds, 0);
    EXPECT_LT(row.seconds, 1e30);
    EXPECT_GT(row.hand_seconds, 0);  // the hand-written reference's runs, timed too
    EXPECT_LT(row.hand_seconds, 1e30);
    EXPECT_GE(row.token_checks, 2048.0 * (common ? 2 : 1));
  }
}

TEST(HostBenchTest, AFailedRunIsAnError) {
  const Scenario all = MakeBenchScenario(256, 7);
  FailingBackend failing;
  HostBenchRow row;
  std::string err;
  EXPECT_FALSE(BenchHostGroup(all, 0, failing, &row, &err));
  EXPECT_EQ("out of memory for the outputs", err);
}

}  // namespace
}  // namespace slotguard
