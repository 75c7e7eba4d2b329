// How the host executor calls another implementation over the plan's
// steps: one call per group, or, for one that takes whole scenarios, one
// call with all its groups of a wave in run order, a group of slotguard's
// own that reads one of them starting the next wave; and a scenario it does
// not take is skipped, not run.
#include <gtest/gtest.h>

#include "backend/backend.h"
#include "plan/scenario_plan.h"
#include "plugin/abi_provider.h"
#include "registry/families.h"
#include "registry/invariants.h"
#include "runner/scenario_run.h"
#include "testing/scenario_fixtures.h"

namespace slotguard {
namespace {

// Records the calls it gets (families per call); writes PAD everywhere.
class RecordingProvider : public AbiProvider {
 public:
  RecordingProvider(std::vector<Family> families, bool whole, std::string skip = "")
      : families_(std::move(families)), whole_(whole), skip_(std::move(skip)) {}
  std::string name() const override { return "recording"; }
  const std::vector<Family>& families() const override { return families_; }
  bool has_host() const override { return true; }
  bool has_device() const override { return false; }
  bool takes_whole_scenarios() const override { return whole_; }
  std::string SkipReason(const ScenarioPlan&, size_t) const override { return skip_; }
  bool Launch(const sg_mapping_call& call, bool, std::string* err) override {
    if (fail_family == call.family) {
      *err = "planted failure";
      return false;
    }
    calls.push_back({call.family});
    Fill(call);
    return true;
  }
  bool LaunchScenario(const std::vector<sg_mapping_call>& group_calls, bool, std::string*) override {
    calls.emplace_back();
    for (const sg_mapping_call& c : group_calls) {
      calls.back().push_back(c.family);
      Fill(c);
    }
    return true;
  }
  std::vector<std::vector<std::string>> calls;
  std::string fail_family;  // Launch fails for this family

 private:
  static void Fill(const sg_mapping_call& c) {
    for (int64_t t = 0; t < c.num_tokens; ++t) {
      c.slot_mapping[t] = -1;
      if (c.tail_slot_mapping) c.tail_slot_mapping[t] = -1;
    }
  }
  std::vector<Family> families_;
  bool whole_;
  std::string skip_;
};

// A scenario with two paged groups and a qsa_compressed group reading the
// second ("common").
Scenario ThreeGroups() {
  return ParseTestScenario(R"({
    "slotguard": 1, "name": "three", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 2], "seq_lens": [2], "positions": [0, 1], "num_actual_tokens": 2,
              "num_tokens": 2, "idx_mapping": [0], "slot_mapping_in": [-1, -1]},
    "groups": [
      {"name": "swa", "kernel": "paged", "block_size": 4, "block_table": [[1]]},
      {"name": "common", "kernel": "paged", "block_size": 4, "block_table": [[2]]},
      {"name": "qsa", "kernel": "qsa_compressed", "block_size": 4, "compress_ratio": 2, "common": "common",
       "block_table": [[3]]}]})");
}

TEST(HostExecutorTest, PerGroupCallsComeInRunOrder) {
  auto provider = std::make_shared<RecordingProvider>(std::vector<Family>{Family::kPaged, Family::kQsaCompressed},
                                                      false);
  std::unique_ptr<Backend> host = MakeHostBackend();
  host->set_provider(provider);
  std::vector<GroupOutputs> out;
  std::string err;
  ASSERT_TRUE(host->Run(ThreeGroups(), &out, &err)) << err;
  const std::vector<std::vector<std::string>> expected = {{"paged"}, {"paged"}, {"qsa_compressed"}};
  EXPECT_EQ(expected, provider->calls);
}

TEST(HostExecutorTest, AWholeScenarioProviderGetsOneCallInRunOrder) {
  auto provider = std::make_shared<RecordingProvider>(std::vector<Family>{Family::kPaged, Family::kQsaCompressed},
                                                      true);
  std::unique_ptr<Backend> host = MakeHostBackend();
  host->set_provider(provider);
  std::vector<GroupOutputs> out;
  std::string err;
  ASSERT_TRUE(host->Run(ThreeGroups(), &out, &err)) << err;
  const std::vector<std::vector<std::string>> expected = {{"paged", "paged", "qsa_compressed"}};
  EXPECT_EQ(expected, provider->calls);
  EXPECT_TRUE(out[0].flat.empty()) << "a provided group has no flat twin";
}

TEST(HostExecutorTest, AGroupOfSlotguardsOwnThatReadsAQueuedGroupFlushesItFirst) {
  // The provider runs paged only, whole scenarios; slotguard's own
  // qsa_compressed reads "common", so the paged call must have run by then.
  auto provider = std::make_shared<RecordingProvider>(std::vector<Family>{Family::kPaged}, true);
  std::unique_ptr<Backend> host = MakeHostBackend();
  host->set_provider(provider);
  std::vector<GroupOutputs> out;
  std::string err;
  ASSERT_TRUE(host->Run(ThreeGroups(), &out, &err)) << err;
  const std::vector<std::vector<std::string>> expected = {{"paged", "paged"}};
  EXPECT_EQ(expected, provider->calls);
  // The common group's provided output (PAD) is what the qsa group read:
  // every qsa token's common slot is PAD, so its output is PAD too.
  for (int64_t v : out[2].engine[0]) EXPECT_EQ(-1, v);
}

TEST(HostExecutorTest, AScenarioTheProviderDoesNotTakeIsSkippedNotRun) {
  auto provider = std::make_shared<RecordingProvider>(std::vector<Family>{Family::kPaged}, false,
                                                      "no specialization fits");
  std::unique_ptr<Backend> host = MakeHostBackend();
  host->set_provider(provider);
  std::vector<GroupOutputs> out;
  std::string err;
  ASSERT_TRUE(host->Run(ThreeGroups(), &out, &err)) << err;
  EXPECT_TRUE(provider->calls.empty());
  ASSERT_EQ(3u, out.size());
  EXPECT_EQ("group swa: no specialization fits", out[0].skipped);
}

// The no_fault finding lands on the group whose call failed, not on the
// scenario's first group.
TEST(HostExecutorTest, AFailedCallIsTheNoFaultOfItsOwnGroup) {
  auto provider = std::make_shared<RecordingProvider>(std::vector<Family>{Family::kPaged, Family::kQsaCompressed},
                                                      false);
  provider->fail_family = "qsa_compressed";
  std::unique_ptr<Backend> host = MakeHostBackend();
  host->set_provider(provider);
  const Scenario s = ThreeGroups();
  ScenarioRun run;
  std::string err;
  ASSERT_TRUE(RunScenario(s, *host, 4, &run, &err)) << err;
  ASSERT_EQ(3u, run.findings.size());
  EXPECT_EQ(0, run.findings[0].total());
  EXPECT_EQ(0, run.findings[1].total());
  ASSERT_EQ(1, run.findings[2].total());
  EXPECT_EQ(kInvariantNoFault, run.findings[2].kept()[0].invariant);
  EXPECT_EQ("planted failure", run.findings[2].kept()[0].detail);
}

}  // namespace
}  // namespace slotguard
