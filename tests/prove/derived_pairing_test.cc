// A derived group (docs/family-format.md, "Derived groups") comes with its
// source in both the fuzzer's generator and the prover's enumeration: the
// source named, the source's table, the parameters that equal the
// source's; every batch loads as a file (the loader refuses a derived group
// without them), and the boundaries a derive has (a PAD source at a
// compression boundary, a live one there, a ratio above 1, a storage block
// larger than the logical block needs) are drawn.
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "family/group_model.h"
#include "fuzzing/generators.h"
#include "prove/enumeration.h"
#include "prove/scope_file.h"
#include "registry/families.h"
#include "scenario/load_limits.h"
#include "scenario/scenario_json.h"

namespace slotguard {
namespace {

Family Hisparse() {
  Family f{};
  std::string err;
  EXPECT_TRUE(FindFamily("vllm_hisparse_compressed", &f, &err)) << err;
  return f;
}

/// Checks every derived group of `s` against its source; counts the shapes it holds into *seen.
void CheckPairs(const Scenario& s, std::map<std::string, int>* seen) {
  for (const Group& g : s.groups) {
    const FamilyModel model(g.family);
    if (model.derived_from() < 0) continue;
    const int src = LinkedGroupIndex(s, g, model.derived_from());
    ASSERT_GE(src, 0) << "a derived group without its source";
    const Group& source = s.groups[static_cast<size_t>(src)];
    EXPECT_EQ(source.table.entries, g.table.entries);
    EXPECT_EQ(ParamOf(source, "kernel_block_size"), ParamOf(g, "logical_block_size"));
    EXPECT_EQ(ParamOf(source, "block_size"), ParamOf(g, "manager_block_size"));
    const int64_t cr = ParamOf(g, "compress_ratio");
    if (cr > 1) ++(*seen)["ratio above 1"];
    if (ParamOf(g, "storage_block_size") * cr > ParamOf(g, "logical_block_size")) ++(*seen)["a spare storage row"];
    // A token at a boundary whose source is PAD (padding, a dummy), and one whose source is live.
    Interpretation ref;
    std::string err;
    ASSERT_TRUE(GroupModel(source).Interpret(s.batch, nullptr, false, false, &ref, &err)) << err;
    for (int64_t t = 0; t < s.batch.num_tokens; ++t) {
      if ((s.batch.positions[t] + 1) % cr != 0) continue;
      ++(*seen)[ref.slots[0][t] < 0 ? "a PAD source at a boundary" : "a live source at a boundary"];
    }
  }
  // The loader takes it as it is.
  Scenario back;
  std::string err;
  EXPECT_TRUE(ParseScenario(WriteScenarioJson(s), "pair.json", LoadLimits(), &back, &err)) << err;
}

const char* const kShapes[] = {"ratio above 1", "a spare storage row", "a PAD source at a boundary",
                               "a live source at a boundary"};

TEST(DerivedPairingTest, TheGeneratorPairsADerivedGroupWithItsSource) {
  GeneratorOptions options;
  options.families = {Hisparse()};
  std::map<std::string, int> seen;
  int derived = 0;
  // With runner-state faults too: a fault in the source's table is the derived group's.
  for (const bool inconsistent : {false, true}) {
    options.inconsistent = inconsistent;
    for (uint64_t seed = 0; seed < 300; ++seed) {
      RandomChoices choices(seed);
      const Scenario s = GenerateScenario(choices, options);
      for (const Group& g : s.groups) derived += g.family == Hisparse();
      CheckPairs(s, &seen);
    }
  }
  EXPECT_GT(derived, 400) << "the derived family is mostly generated";
  for (const char* shape : kShapes) EXPECT_TRUE(seen.count(shape)) << shape << ": never generated";
}

TEST(DerivedPairingTest, TheEnumerationPairsADerivedGroupWithItsSource) {
  Scope small;
  std::string err;
  ASSERT_TRUE(LoadScope("small", &small, &err)) << err;
  EnumerationOptions options;
  options.families = {Hisparse()};
  Enumeration e;
  ASSERT_TRUE(e.Build(small, options, &err)) << err;
  std::map<std::string, int> seen;
  const int64_t step = std::max<int64_t>(1, e.Count() / 400);
  for (int64_t i = 0; i < e.Count(); i += step) CheckPairs(e.At(i), &seen);
  for (const char* shape : {"ratio above 1", "a PAD source at a boundary", "a live source at a boundary"})
    EXPECT_TRUE(seen.count(shape)) << shape << ": in none of the batches";
}

}  // namespace
}  // namespace slotguard
