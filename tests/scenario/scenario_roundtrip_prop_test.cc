// Write then load gives the same scenario: on generated scenarios
// (RapidCheck) and on every curated file.
#include <filesystem>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "scenario/scenario_json.h"
#include "testing/paged_sweep.h"

namespace slotguard {
namespace {

rc::Gen<testing::PagedSweepCase> ArbitrarySweepCase() {
  return rc::gen::exec([] {
    testing::PagedSweepCase c;
    c.num_reqs = *rc::gen::inRange(0, 12);
    c.block_size = *rc::gen::inRange(1, 20);
    c.blocks_per_manager_block = *rc::gen::element(1, 2, 4);
    c.dcp.world = *rc::gen::element(1, 2, 4);
    c.dcp.rank = *rc::gen::inRange(0, c.dcp.world);
    const int32_t manager = c.block_size * c.blocks_per_manager_block;
    c.dcp.interleave = *rc::gen::suchThat(rc::gen::inRange(1, manager + 1),
                                          [manager](int i) { return manager % i == 0; });
    c.max_query = *rc::gen::inRange(1, 30);
    c.padding_tokens = *rc::gen::inRange(0, 5);
    c.seed = *rc::gen::arbitrary<uint64_t>();
    return c;
  });
}

RC_GTEST_PROP(ScenarioRoundTrip, WriteThenLoadIsIdentity, ()) {
  Scenario s = testing::MakePagedSweepScenario(*ArbitrarySweepCase());
  s.description = *rc::gen::element<std::string>("", "plain", "quotes \" and \\ and \n newline");
  if (*rc::gen::arbitrary<bool>()) {
    s.expect.present = true;
    s.expect.verdict = *rc::gen::arbitrary<bool>() ? Verdict::kPass : Verdict::kFinding;
    if (s.expect.verdict == Verdict::kFinding) s.expect.findings = {"null_block", "differential"};
    s.expect.slot_mapping["attn"] = std::vector<int64_t>(s.batch.num_tokens, -1);
  }
  s.groups[0].variant = *rc::gen::element(Variant::kPagedFixed, Variant::kPagedUnguarded, Variant::kPagedDummyReadsRow, Variant::kPagedPadFromN);
  SetParam(&s.groups[0], "enabled", *rc::gen::arbitrary<bool>());
  const std::string text = WriteScenarioJson(s);
  Scenario loaded;
  std::string err;
  RC_ASSERT(ParseScenario(text, "generated.json", LoadLimits(), &loaded, &err));
  RC_ASSERT(loaded == s);
  RC_ASSERT(WriteScenarioJson(loaded) == text);
}

TEST(ScenarioRoundTrip, EveryCuratedScenario) {
  int files = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(SLOTGUARD_SOURCE_DIR "/scenarios")) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    Scenario s, again;
    std::string err;
    ASSERT_TRUE(LoadScenarioFile(entry.path().string(), LoadLimits(), &s, &err)) << err;
    ASSERT_TRUE(ParseScenario(WriteScenarioJson(s), "rewritten.json", LoadLimits(), &again, &err))
        << entry.path() << ": " << err;
    EXPECT_TRUE(again == s) << entry.path();
  }
  EXPECT_GE(files, 10);
}

}  // namespace
}  // namespace slotguard
