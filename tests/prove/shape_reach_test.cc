// Each shape list (family/shape_lists.h) reaches both the fuzzer's
// generator and the prover's enumeration: for a family whose lists hold a
// value no other source gives, the generator over a few thousand seeds and
// the enumeration of medium's shape part (the one with ahead,
// fresh_prefills and past_int32) each build a batch holding it.
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "family/group_model.h"
#include "fuzzing/generators.h"
#include "prove/enumeration.h"
#include "prove/scope_file.h"
#include "registry/families.h"

namespace slotguard {
namespace {

/// A paged mapping with a comparison threshold of 100000 (`pos < limit`):
/// no context the generator draws at random comes near it; its example
/// block of 100 tokens makes a fresh prefill of 101, a length no other
/// operator draws.
constexpr const char* kReachFamily = R"json({
  "slotguard_family": 1, "name": "reach_shapes",
  "meaning": "a paged mapping with a threshold far from the contexts drawn at random (tests/prove/shape_reach_test.cc)",
  "params": [{"name": "block_size", "meaning": "tokens per block", "min": 1, "example": 100},
             {"name": "limit", "meaning": "positions below it are mapped", "min": 1, "max": 100000, "default": 100000}],
  "select": ["pos < limit"], "column": "pos / block_size", "range": "pad", "offset": "pos % block_size",
  "page": "block_size"})json";

Family ReachFamily() {
  static const Family family = [] {
    std::string err;
    EXPECT_TRUE(RegisterFamilyText(kReachFamily, "reach_shapes.json", &err)) << err;
    Family f{};
    EXPECT_TRUE(FindFamily("reach_shapes", &f, &err)) << err;
    return f;
  }();
  return family;
}

/// What a batch may hold that only a shape list gives.
struct Shapes {
  static constexpr int64_t kTwo31 = int64_t{1} << 31;
  // Each predicate over a scenario of the one reach_shapes group.
  std::map<std::string, std::function<bool(const Scenario&)>> tests = {
      {"parameter not a power of two (3)", [](const Scenario& s) { return ParamOf(s.groups[0], "block_size") == 3; }},
      {"large parameter with a seq_len past int32",
       [](const Scenario& s) {
         if (ParamOf(s.groups[0], "block_size") < (int64_t{1} << 20)) return false;
         return std::any_of(s.batch.seq_lens.begin(), s.batch.seq_lens.end(), [](int64_t l) { return l > kTwo31; });
       }},
      {"block size 1 at context 1",
       [](const Scenario& s) {
         if (ParamOf(s.groups[0], "block_size") != 1) return false;
         for (int32_t r = 0; r < s.batch.num_reqs(); ++r)
           if (s.batch.seq_lens[r] - (s.batch.query_start_loc[r + 1] - s.batch.query_start_loc[r]) == 1) return true;
         return false;
       }},
      {"context at the threshold 100000",
       [](const Scenario& s) {
         if (ParamOf(s.groups[0], "limit") != 100000) return false;
         for (int32_t r = 0; r < s.batch.num_reqs(); ++r) {
           const int64_t q = s.batch.query_start_loc[r + 1] - s.batch.query_start_loc[r];
           if (q > 0 && s.batch.seq_lens[r] - q <= 100000 && s.batch.seq_lens[r] - q >= 100000 - 64) return true;
         }
         return false;
       }},
      {"fresh prefill of 101 tokens on blocks of 100",
       [](const Scenario& s) {
         if (ParamOf(s.groups[0], "block_size") != 100) return false;
         for (int32_t r = 0; r < s.batch.num_reqs(); ++r) {
           const int64_t q = s.batch.query_start_loc[r + 1] - s.batch.query_start_loc[r];
           if (q == 101 && s.batch.seq_lens[r] == q) return true;
         }
         return false;
       }},
      {"clamp token past int32",
       [](const Scenario& s) {
         const int64_t real = s.batch.query_start_loc.back();
         for (int64_t t = real; t < s.batch.num_tokens; ++t)
           if (s.batch.positions[static_cast<size_t>(t)] >= kTwo31) return true;
         return false;
       }},
      {"a live row's block allocated ahead of its tokens",
       [](const Scenario& s) {
         const Group& g = s.groups[0];
         std::vector<int64_t> needed;
         if (!GroupModel(g).NeededColumns(s.batch, int64_t{1} << 40, &needed)) return false;
         for (int32_t r = 0; r < s.batch.num_reqs(); ++r) {
           const int32_t row = s.batch.row_of(r);
           if (row < 0 || row >= g.table.rows || needed[r] == 0) continue;
           for (int64_t col = needed[r]; col < g.table.width; ++col)
             if (g.table.entries[static_cast<size_t>(row) * g.table.width + col] > 0) return true;
         }
         return false;
       }},
  };
};

TEST(ShapeReachTest, EveryListReachesTheGenerator) {
  const Family family = ReachFamily();
  GeneratorOptions options;
  options.families = {family};
  Shapes shapes;
  std::map<std::string, int> seen;
  for (uint64_t seed = 0; seed < 30000 && seen.size() < shapes.tests.size(); ++seed) {
    RandomChoices choices(seed);
    const Scenario s = GenerateScenario(choices, options);
    if (s.groups.size() != 1 || s.groups[0].family != family) continue;
    for (const auto& [name, test] : shapes.tests)
      if (!seen.count(name) && test(s)) seen[name] = 1;
  }
  for (const auto& [name, test] : shapes.tests) EXPECT_TRUE(seen.count(name)) << name << ": never generated";
}

TEST(ShapeReachTest, EveryListReachesTheEnumeration) {
  const Family family = ReachFamily();
  Scope medium;
  std::string err;
  ASSERT_TRUE(LoadScope("medium", &medium, &err)) << err;
  // Medium's shape part, one request a batch (what the lists add needs no more).
  Scope scope = medium;
  scope.parts.clear();
  for (const ScopePart& part : medium.parts)
    if (!part.ahead.empty() && !part.fresh_prefills.empty() && !part.past_int32.empty()) scope.parts.push_back(part);
  ASSERT_EQ(1u, scope.parts.size()) << "medium has one shape part";
  scope.parts[0].requests = {1};
  EnumerationOptions options;
  options.families = {family};
  Enumeration e;
  ASSERT_TRUE(e.Build(scope, options, &err)) << err;
  Shapes shapes;
  std::map<std::string, int> seen;
  for (int64_t i = 0; i < e.Count() && seen.size() < shapes.tests.size(); ++i) {
    const Scenario s = e.At(i);
    for (const auto& [name, test] : shapes.tests)
      if (!seen.count(name) && test(s)) seen[name] = 1;
  }
  for (const auto& [name, test] : shapes.tests)
    EXPECT_TRUE(seen.count(name)) << name << ": in none of " << e.Count() << " batches";
}

// Medium's part of persistent tables (issue 28's missing dimensions) builds
// what each names: a table of exactly R rows, live requests reading rows
// neither in place nor reversed, a stale row holding two live requests'
// blocks, num_actual_tokens strictly between qsl[R] and num_tokens.
TEST(ShapeReachTest, TheTableDimensionsBuildWhatTheyName) {
  Scope medium;
  std::string err;
  ASSERT_TRUE(LoadScope("medium", &medium, &err)) << err;
  Scope scope = medium;
  scope.parts.clear();
  for (const ScopePart& part : medium.parts)
    if (std::count(part.tables.begin(), part.tables.end(), TableMode::kPersistentRotated)) scope.parts.push_back(part);
  ASSERT_EQ(1u, scope.parts.size());
  scope.parts[0].params = {ParamClass::kExample};  // paged at its examples: one configuration
  EnumerationOptions options;
  options.families = {Family::kPaged};
  Enumeration e;
  ASSERT_TRUE(e.Build(scope, options, &err)) << err;
  bool exact = false, rotated = false, mixed = false, inside = false;
  for (int64_t i = 0; i < e.Count(); ++i) {
    const Scenario s = e.At(i);
    const Batch& b = s.batch;
    const BlockTable& t = s.groups[0].table;
    const int64_t real = b.query_start_loc.back();
    inside |= b.num_actual_tokens > real && b.num_actual_tokens < b.num_tokens;
    if (b.table_rows != TableRows::kIdxMapping || b.num_reqs() != 2) continue;
    exact |= t.rows == 2 && b.idx_mapping[0] == 0 && b.idx_mapping[1] == 1;
    rotated |= t.rows == 3 && b.idx_mapping[0] == 1 && b.idx_mapping[1] == 0;
    // A row no live request reads, holding blocks of both live rows.
    if (b.idx_mapping[0] < 0 || b.idx_mapping[1] < 0 || t.width < 2) continue;
    for (int32_t row = 0; row < t.rows; ++row) {
      if (row == b.idx_mapping[0] || row == b.idx_mapping[1]) continue;
      std::set<int32_t> owners;
      for (int32_t col = 0; col < t.width; ++col) {
        const int32_t entry = t.entries[static_cast<size_t>(row) * t.width + col];
        for (int32_t r = 0; r < 2; ++r)
          for (int32_t c = 0; c < t.width; ++c)
            if (entry > 0 && t.entries[static_cast<size_t>(b.idx_mapping[r]) * t.width + c] == entry) owners.insert(r);
      }
      mixed |= owners.size() == 2;
    }
  }
  EXPECT_TRUE(exact) << "a persistent table of exactly R rows";
  EXPECT_TRUE(rotated) << "live requests reading rows 1 and 0 of 3";
  EXPECT_TRUE(mixed) << "a stale row of two live requests' blocks";
  EXPECT_TRUE(inside) << "num_actual_tokens strictly inside the padding";
}

// The inputs' lists and the dummy-run rows reach both: a rejected-token
// count past a request's tokens (num_rejected = q + 1, a value only the
// list's sweep around the request's length gives), and a dummy run whose
// rows hold a finished request's blocks, or zeros.
bool RejectsPastItsTokens(const Scenario& s) {
  const auto it = s.batch.inputs.find("num_rejected");
  if (it == s.batch.inputs.end()) return false;
  for (int32_t r = 0; r < s.batch.num_reqs(); ++r) {
    const int64_t q = s.batch.query_start_loc[r + 1] - s.batch.query_start_loc[r];
    if (q >= 2 && it->second.values[static_cast<size_t>(r)] == q + 1) return true;
  }
  return false;
}

/// 1: a dummy run on a row holding a real block; 2: on zero rows; 0: no dummy run.
int DummyRunRows(const Scenario& s) {
  if (!s.batch.dummy_run || s.groups.empty()) return 0;
  const Batch& b = s.batch;
  for (int32_t r = 0; r < b.num_reqs(); ++r) EXPECT_EQ(r, b.idx_mapping[r]) << "a dummy run's idx_mapping is arange";
  for (int64_t t = 0; t < b.num_real_tokens(); ++t) EXPECT_EQ(0, b.positions[static_cast<size_t>(t)]);
  const BlockTable& t = s.groups[0].table;
  return std::any_of(t.entries.begin(), t.entries.end(), [](int32_t e) { return e > 0; }) ? 1 : 2;
}

TEST(ShapeReachTest, InputsAndDummyRunsReachBoth) {
  Family drafting{};
  std::string err;
  ASSERT_TRUE(FindFamily("vllm_parallel_drafting", &drafting, &err)) << err;
  // The generator.
  bool rejects = false, stale = false, zero = false;
  for (uint64_t seed = 0; seed < 20000 && !(rejects && stale && zero); ++seed) {
    RandomChoices choices(seed);
    GeneratorOptions options;
    options.families = {seed % 2 ? drafting : Family::kPaged};
    const Scenario s = GenerateScenario(choices, options);
    rejects |= RejectsPastItsTokens(s);
    stale |= DummyRunRows(s) == 1;
    zero |= DummyRunRows(s) == 2;
  }
  EXPECT_TRUE(rejects) << "the generator: num_rejected = q + 1";
  EXPECT_TRUE(stale) << "the generator: a dummy run on stale rows";
  EXPECT_TRUE(zero) << "the generator: a dummy run on zero rows";
  // The enumeration: medium's first part for the inputs, its dummy-run part for the rows.
  Scope medium;
  ASSERT_TRUE(LoadScope("medium", &medium, &err)) << err;
  Scope inputs = medium;
  inputs.parts = {medium.parts[0]};
  inputs.parts[0].requests = {1};
  EnumerationOptions options;
  options.families = {drafting};
  Enumeration e;
  ASSERT_TRUE(e.Build(inputs, options, &err)) << err;
  rejects = false;
  for (int64_t i = 0; i < e.Count() && !rejects; ++i) rejects = RejectsPastItsTokens(e.At(i));
  EXPECT_TRUE(rejects) << "the enumeration: num_rejected = q + 1, in none of " << e.Count() << " batches";
  Scope dummies = medium;
  dummies.parts.clear();
  for (const ScopePart& part : medium.parts)
    if (part.tables == std::vector<TableMode>{TableMode::kDummyRun}) dummies.parts.push_back(part);
  ASSERT_EQ(1u, dummies.parts.size()) << "medium has one dummy-run part";
  dummies.parts[0].params = {ParamClass::kExample};
  options.families = {Family::kPaged};
  Enumeration d;
  ASSERT_TRUE(d.Build(dummies, options, &err)) << err;
  stale = zero = false;
  for (int64_t i = 0; i < d.Count(); ++i) {
    const int rows = DummyRunRows(d.At(i));
    ASSERT_NE(0, rows) << "batch " << i << " of a dummy-run part is no dummy run";
    stale |= rows == 1;
    zero |= rows == 2;
  }
  EXPECT_TRUE(stale) << "the enumeration: a dummy run on stale rows";
  EXPECT_TRUE(zero) << "the enumeration: a dummy run on zero rows";
  // An implementation cannot see batch.dummy_run: none for it.
  options.dummy_runs = false;
  Enumeration none;
  EXPECT_FALSE(none.Build(dummies, options, &err)) << "a scope of dummy runs alone holds no batch without them";
}

}  // namespace
}  // namespace slotguard
