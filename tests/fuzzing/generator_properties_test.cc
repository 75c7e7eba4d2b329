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

}  // namespace
}  // namespace slotguard
