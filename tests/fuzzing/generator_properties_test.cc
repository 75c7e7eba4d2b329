// RapidCheck properties over the shared generator (src/fuzzing/generators.h),
// with RapidCheck drawing every choice so it can shrink them.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "backend/backend.h"
#include "fuzzing/generators.h"
#include "registry/families.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"

namespace slotguard {
namespace {

/// Choices drawn from RapidCheck (call inside a property).
class RcChoices : public Choices {
 public:
  int64_t Range(int64_t lo, int64_t hi) override {
    return hi <= lo ? lo : *rc::gen::inRange<int64_t>(lo, hi + 1);
  }
};

std::set<std::string> Fired(const Scenario& s) {
  static thread_local std::unique_ptr<Backend> host = MakeHostBackend();
  ScenarioRun run;
  std::string err;
  EXPECT_TRUE(RunScenario(s, *host, 1, &run, &err)) << err;
  std::set<std::string> fired;
  for (const FindingSink& sink : run.findings)
    for (const auto& [name, count] : sink.counts()) fired.insert(name);
  return fired;
}

RC_GTEST_PROP(GeneratorProperties, FixedFamiliesHoldEveryInvariant, ()) {
  RcChoices choices;
  const Scenario s = GenerateScenario(choices, GeneratorOptions());
  const std::set<std::string> fired = Fired(s);
  RC_ASSERT(fired.empty());
}

RC_GTEST_PROP(GeneratorProperties, ScenariosAreValidAndRoundTrip, ()) {
  RcChoices choices;
  GeneratorOptions options;
  options.inconsistent = *rc::gen::arbitrary<bool>();
  const Scenario s = GenerateScenario(choices, options);
  Scenario loaded;
  std::string err;
  // Valid by construction: the strict loader accepts every generated scenario.
  RC_ASSERT(ParseScenario(WriteScenarioJson(s), "generated.json", LoadLimits(), &loaded, &err));
  RC_ASSERT(loaded == s);
}

// For every non-fixed variant, rc::check finds a counterexample within a
// bounded number of cases.
class VariantFoundTest : public ::testing::TestWithParam<Variant> {};

TEST_P(VariantFoundTest, RapidCheckFindsACounterexample) {
  const Variant variant = GetParam();
  GeneratorOptions options;
  options.families = {GetVariant(variant).family};
  rc::detail::TestParams params;
  params.maxSuccess = 2000;
  params.seed = 1;
  const auto result = rc::detail::checkTestable(
      [&] {
        RcChoices choices;
        Scenario s = GenerateScenario(choices, options);
        for (Group& g : s.groups)
          if (g.family == GetVariant(variant).family) g.variant = variant;
        RC_ASSERT(Fired(s).empty());
      },
      rc::detail::TestMetadata(), params);
  EXPECT_TRUE(result.template is<rc::detail::FailureResult>())
      << GetVariant(variant).name << " survived " << params.maxSuccess << " cases";
}

INSTANTIATE_TEST_SUITE_P(Mutants, VariantFoundTest, ::testing::ValuesIn(NonFixedVariants()),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return std::string(GetFamily(GetVariant(info.param).family).name) + "_" +
                                  GetVariant(info.param).name;
                         });

TEST(GeneratorTest, ByteChoicesAreDeterministicAndShortInputsGiveSmallScenarios) {
  const uint8_t bytes[] = {7, 200, 13, 99, 1, 0, 250, 31, 8, 8, 8};
  ByteChoices a(bytes, sizeof bytes), b(bytes, sizeof bytes);
  EXPECT_TRUE(GenerateScenario(a, GeneratorOptions()) == GenerateScenario(b, GeneratorOptions()));
  ByteChoices empty(nullptr, 0);
  const Scenario s = GenerateScenario(empty, GeneratorOptions());
  EXPECT_LE(s.batch.num_tokens, 1);
}

TEST(GeneratorTest, EveryOperatorIsExercised) {
  Classification consistent, inconsistent;
  GeneratorOptions options;
  for (uint64_t seed = 0; seed < 4000; ++seed) {
    RandomChoices choices(seed);
    GenerateScenario(choices, options, &consistent);
  }
  options.inconsistent = true;
  for (uint64_t seed = 0; seed < 4000; ++seed) {
    RandomChoices choices(seed);
    GenerateScenario(choices, options, &inconsistent);
  }
  for (const std::string& op : GeneratorOperators()) {
    if (op.rfind("fault_", 0) == 0) {
      EXPECT_GT(inconsistent[op], 0) << op;
      EXPECT_EQ(0, consistent.count(op)) << op << " in a consistent campaign";
    } else {
      EXPECT_GT(consistent[op], 0) << op;
    }
  }
}

// The engine-scale and boundary operators make what they say, the loader
// accepts it, and the fixed kernels pass it (they stay engine-consistent).
TEST(GeneratorTest, EngineScaleAndBoundaryShapes) {
  std::unique_ptr<Backend> host = MakeHostBackend();
  std::map<std::string, int> seen;
  for (uint64_t seed = 0; seed < 20000; ++seed) {
    Classification classes;
    RandomChoices choices(seed);
    const Scenario s = GenerateScenario(choices, GeneratorOptions(), &classes);
    const Batch& b = s.batch;
    int64_t longest = 0, highest = 0;
    for (int32_t r = 0; r < b.num_reqs(); ++r)
      longest = std::max<int64_t>(longest, b.query_start_loc[r + 1] - b.query_start_loc[r]);
    for (int64_t p : b.positions) highest = std::max(highest, p);
    bool special = false;
    for (const char* op : {"engine_scale_batch", "long_request", "tile_sized_request", "tile_sized_padding",
                           "width0_rows", "positions_near_int32"})
      if (classes.count(op)) {
        ++seen[op];
        special = true;
      }
    if (classes.count("engine_scale_batch")) EXPECT_GE(b.num_reqs(), 256) << seed;
    if (classes.count("long_request")) EXPECT_GT(longest, 1024) << seed;
    if (classes.count("tile_sized_request")) EXPECT_GE(longest, 127) << seed;
    if (classes.count("tile_sized_padding")) EXPECT_GE(b.num_tokens - b.num_real_tokens(), 255) << seed;
    if (classes.count("positions_near_int32")) EXPECT_GT(highest, int64_t{1} << 30) << seed;
    if (!special) continue;
    Scenario loaded;
    std::string err;
    ASSERT_TRUE(ParseScenario(WriteScenarioJson(s), "generated", LoadLimits(), &loaded, &err)) << err;
    ScenarioRun run;
    ASSERT_TRUE(RunScenario(loaded, *host, 2, &run, &err)) << err;
    for (size_t g = 0; g < loaded.groups.size(); ++g)
      EXPECT_EQ(0, run.findings[g].total()) << "seed " << seed << " group " << loaded.groups[g].name << ": "
                                            << (run.findings[g].kept().empty() ? "" : run.findings[g].kept()[0].detail);
  }
  for (const char* op : {"engine_scale_batch", "long_request", "tile_sized_request", "tile_sized_padding",
                         "width0_rows", "positions_near_int32"})
    EXPECT_GT(seen[op], 0) << op;
}

}  // namespace
}  // namespace slotguard
