// Crash classes (fuzzing/crash_classes.h, docs/fuzzing.md#crash-classes):
// a --keep-going campaign over a provider that crashes on a kind of batch
// shrinks the crash like any finding, recognizes the class once it has
// recurred, and from then on defers its scenarios (a rate-limited sample
// still runs), counting them per class and never as checked.
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "fuzzing/crash_classes.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

std::string Fixture(const std::string& args) { return std::string(SLOTGUARD_FIXTURE_PROVIDER) + " " + args; }

struct Campaign {
  int exit = -1;
  nlohmann::json report;
  std::string out;
};

// A kpool_tail campaign of `runs` scenarios, seed 1, over the fixture
// provider in `mode`; crash_sample as --crash-sample.
Campaign RunCampaignOf(const std::string& name, const std::string& mode, int64_t runs, double crash_sample) {
  FuzzOptions o;
  o.backend = BackendKind::kHost;
  o.families = {"kpool_tail"};
  o.settings.runs = runs;
  o.settings.seed = 1;
  o.settings.keep_going = true;
  o.settings.crash_sample = crash_sample;
  o.settings.out_dir = ScratchPath(name + "-findings");
  o.json_path = ScratchPath(name + ".json");
  o.setup.provider.kernel_cmd = Fixture(mode);
  std::ostringstream out, err;
  Campaign c;
  c.exit = RunFuzz(o, out, err);
  c.out = out.str() + err.str();
  c.report = nlohmann::json::parse(std::ifstream(o.json_path));
  return c;
}

size_t Occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The provider crashes (SIGSEGV) on every batch with no requests. With
// classes on, the crash is found, shrunk, recognized once it recurs, and
// the rest of its class is deferred: each deferred scenario is one the
// campaign without classes ran and saw crash, none of them is counted as
// checked, a sample of them still ran, and the report names the class once
// with its count.
TEST(CrashClassesTest, ARecurringCrashClassIsDeferredCountedAndNeverChecked) {
  constexpr int64_t kRuns = 2000;
  const Campaign on = RunCampaignOf("on", "crash-no-requests", kRuns, 3600);
  const Campaign off = RunCampaignOf("off", "crash-no-requests", kRuns, 0);
  ASSERT_EQ(kExitFindings, on.exit) << on.out;
  ASSERT_EQ(kExitFindings, off.exit) << off.out;
  // Without classes every scenario runs, and none is deferred.
  EXPECT_EQ(kRuns, off.report["scenarios"]) << off.out;
  EXPECT_FALSE(off.report.contains("crash_classes")) << off.out;
  // With them: one class, of the crash's signature, that recurred.
  ASSERT_EQ(1u, on.report["findings"].size()) << on.out;
  const nlohmann::json& finding = on.report["findings"][0];
  ASSERT_EQ(std::vector<std::string>{"no_fault"}, finding["invariants"].get<std::vector<std::string>>());
  ASSERT_TRUE(on.report.contains("crash_classes")) << on.out;
  ASSERT_EQ(1u, on.report["crash_classes"].size()) << on.report["crash_classes"].dump();
  const nlohmann::json& cls = on.report["crash_classes"][0];
  EXPECT_EQ(finding["signature"], cls["signature"]);
  EXPECT_TRUE(cls["active"]) << cls.dump();
  EXPECT_FALSE(cls["retired"]) << cls.dump();
  EXPECT_EQ("a kpool_tail group; no requests", cls["shape"]) << cls.dump();
  const int64_t deferred = cls["deferred"];
  EXPECT_GT(deferred, 0) << cls.dump();
  EXPECT_EQ(deferred, on.report["deferred"]);
  // The sample: with one every hour, the first scenario of the class once
  // it recurred, and it crashed (the class stays).
  EXPECT_EQ(1, cls["sampled"]) << cls.dump();
  // Deferred scenarios are not checked: scenarios + deferred is the budget,
  // and each deferred one is a crash the campaign without classes saw.
  EXPECT_EQ(kRuns, on.report["scenarios"].get<int64_t>() + deferred);
  EXPECT_EQ(off.report["finding_scenarios"].get<int64_t>(),
            on.report["finding_scenarios"].get<int64_t>() + deferred);
  // The report names the class once, with its count; the summary line says
  // how many were deferred.
  const std::string line = "fuzz: deferred: known crash class " + cls["signature"].get<std::string>() + " (";
  EXPECT_EQ(1u, Occurrences(on.out, line)) << on.out;
  EXPECT_NE(std::string::npos, on.out.find(line + cls["text"].get<std::string>() + "): " + std::to_string(deferred) +
                                           " scenarios not run (1 sampled); class: a kpool_tail group; no requests\n"))
      << on.out;
  EXPECT_NE(std::string::npos,
            on.out.find(" in " + std::to_string(kRuns - deferred) + " scenarios (" +
                        on.report["finding_scenarios"].dump() + " with findings, "))
      << on.out;
  EXPECT_NE(std::string::npos, on.out.find(", " + std::to_string(deferred) + " deferred (known crash classes, not checked)"))
      << on.out;
}

// A crash is shrunk like any other finding: the provider crashes on a
// batch with tokens past its requests', and the reproducer keeps just that
// (no request, one token) from the batch of requests it was found in.
TEST(CrashClassesTest, ACrashIsMinimizedLikeAnyFinding) {
  const Campaign c = RunCampaignOf("shrink", "crash-past-requests", 300, 0);
  ASSERT_EQ(kExitFindings, c.exit) << c.out;
  ASSERT_EQ(1u, c.report["findings"].size()) << c.out;
  const nlohmann::json& f = c.report["findings"][0];
  EXPECT_EQ("no_fault", f["cause"]);
  EXPECT_TRUE(f["recurred"]) << f.dump();
  EXPECT_EQ("0 requests, 1 tokens, 1 groups", f["shape"]) << f.dump();
  EXPECT_NE(f["shape"], f["original_shape"]) << f.dump();
}

// A sample that runs without the crash shows the class's description too
// wide: the class is retired and its scenarios run again. Here the provider
// crashes on a batch's record only when its token count is 5: no batch
// feature describes that, and the class learnt from it is retired by the
// first sample of a batch with other token counts.
TEST(CrashClassesTest, ASampleThatDoesNotCrashRetiresTheClass) {
  const Campaign c = RunCampaignOf("retire", "crash-progress 5", 3000, 0.000001);
  ASSERT_EQ(kExitFindings, c.exit) << c.out;
  ASSERT_TRUE(c.report.contains("crash_classes")) << c.out;
  bool retired = false;
  for (const nlohmann::json& cls : c.report["crash_classes"]) retired |= cls["retired"].get<bool>();
  EXPECT_TRUE(retired) << c.report["crash_classes"].dump() << c.out;
  EXPECT_EQ(3000, c.report["scenarios"].get<int64_t>() + c.report["deferred"].get<int64_t>());
}

// The features a class is described by, of hand-made batches.
TEST(CrashClassesTest, TheFeaturesOfABatch) {
  Scenario s;
  s.batch.query_start_loc = {0};
  s.batch.num_tokens = 3;
  s.batch.num_actual_tokens = 2;  // 2 tokens of no request, 1 of padding
  s.groups.resize(1);
  const uint32_t f = CrashFeaturesOf(s);
  EXPECT_FALSE(f >> kFeatureRequests & 1);
  EXPECT_TRUE(f >> kFeatureTokens & 1);
  EXPECT_TRUE(f >> kFeaturePadding & 1);
  EXPECT_TRUE(f >> kFeatureTokensPastRequests & 1);
  EXPECT_TRUE(f >> kFeatureEmptyTable & 1);  // no rows
  EXPECT_FALSE(f >> kFeatureSeveralGroups & 1);
  s.batch.query_start_loc = {0, 1, 1};  // a request of one token, one of none
  s.batch.seq_lens = {4, 2};            // the first has a context of 3, the second of 2
  s.batch.idx_mapping = {0, -1};        // the second is a dummy
  const uint32_t g = CrashFeaturesOf(s);
  EXPECT_TRUE(g >> kFeatureRequests & 1);
  EXPECT_TRUE(g >> kFeatureSeveralRequests & 1);
  EXPECT_TRUE(g >> kFeatureEmptyRequest & 1);
  EXPECT_TRUE(g >> kFeatureDummyRequest & 1);
  EXPECT_TRUE(g >> kFeatureCachedContext & 1);
  EXPECT_FALSE(g >> kFeaturePrefill & 1);
  EXPECT_TRUE(g >> kFeatureTokensPastRequests & 1);  // 2 actual tokens, the requests' end at 1
}

}  // namespace
}  // namespace slotguard
