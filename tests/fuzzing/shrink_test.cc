// The minimizer (src/fuzzing/shrink.cc) on format 2: persistent tables stay
// valid while requests, rows and tokens go, and huge positions and padding
// shrink in few steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>
#include <set>

#include "backend/backend.h"
#include "fuzzing/generators.h"
#include "fuzzing/shrink.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"

namespace slotguard {
namespace {

Scenario Parse(const std::string& text) {
  Scenario s;
  std::string err;
  EXPECT_TRUE(ParseScenario(text, "s.json", LoadLimits(), &s, &err)) << err;
  return s;
}

/// Whether the row request r reads in group g holds `block`.
bool ReadsBlock(const Scenario& s, size_t g, int32_t r, int32_t block) {
  const int32_t row = s.batch.row_of(r);
  if (row < 0 || g >= s.groups.size()) return false;
  const BlockTable& t = s.groups[g].table;
  for (int32_t c = 0; c < t.width; ++c)
    if (t.at(row, c) == block) return true;
  return false;
}

/// Every request names a row that exists, and reloading gives the same scenario.
void ExpectValid(const Scenario& s) {
  for (const Group& g : s.groups)
    for (int32_t r = 0; r < s.batch.num_reqs(); ++r) EXPECT_LT(s.batch.row_of(r), g.table.rows) << g.name;
  Scenario again;
  std::string err;
  ASSERT_TRUE(ParseScenario(WriteScenarioJson(s), "shrunk.json", LoadLimits(), &again, &err)) << err;
  EXPECT_TRUE(again == s);
}

// Three live requests reading rows 4, 1 and 6 of an 8-row table, a dummy;
// the predicate needs only a request whose row holds block 42. The others
// go, the rows nobody reads go with idx_mapping renumbered, and the table
// ends per request (format 1), since that still reproduces.
TEST(ShrinkPersistentTest, RequestsAndUnreadRowsGoThenTheTableIsPerRequest) {
  const Scenario s = Parse(R"({"slotguard": 2, "name": "s", "num_blocks": 100,
      "batch": {"query_start_loc": [0, 2, 3, 4, 5], "seq_lens": [2, 9, 1, 4], "table_rows": "idx_mapping",
                "idx_mapping": [4, 1, -1, 6]},
      "groups": [{"name": "p", "kernel": "paged", "block_size": 4,
                  "block_table": [[7, 8, 9], [10, 11, 42], [12, 13, 14], [15, 16, 17], [1, 2, 3],
                                  [42, 18, 19], [20, 21, 22], [23, 24, 25]]}]})");
  int calls = 0;
  const Scenario small = Shrink(s, [&](const Scenario& c) {
    ++calls;
    for (int32_t r = 0; r < c.batch.num_reqs(); ++r)
      if (c.batch.query_start_loc[r + 1] > c.batch.query_start_loc[r] && ReadsBlock(c, 0, r, 42)) return true;
    return false;
  });
  ExpectValid(small);
  EXPECT_EQ(1, small.batch.num_reqs());
  EXPECT_EQ(TableRows::kRequest, small.batch.table_rows);
  EXPECT_EQ(1, FormatVersion(small));
  ASSERT_EQ(1, small.groups[0].table.rows);
  EXPECT_TRUE(ReadsBlock(small, 0, 0, 42));
  EXPECT_LT(calls, 400) << calls;
}

// When the finding needs the persistent table (here: a stale row 0 that no
// request reads, holding block 9, as the dummy_reads_row variant would read
// it), the table stays persistent, its other unread rows go, and idx_mapping
// names a row that exists.
TEST(ShrinkPersistentTest, KeepsTheStaleRowTheFindingNeeds) {
  const Scenario s = Parse(R"({"slotguard": 2, "name": "s", "num_blocks": 100,
      "batch": {"query_start_loc": [0, 1, 2, 3], "seq_lens": [1, 5, 2], "table_rows": "idx_mapping",
                "idx_mapping": [3, -1, 5]},
      "groups": [{"name": "k", "kernel": "kpool_tail", "kpool": 4,
                  "block_table": [[9], [30], [31], [32], [33], [34], [35]]}]})");
  const Scenario small = Shrink(s, [](const Scenario& c) {
    if (c.batch.table_rows != TableRows::kIdxMapping || c.groups.empty() || c.groups[0].table.rows == 0) return false;
    bool row0_read = false, dummy = false, live = false;
    for (int32_t idx : c.batch.idx_mapping) {
      row0_read |= idx == 0;
      dummy |= idx == -1;
      live |= idx > 0;
    }
    return !row0_read && dummy && live && c.groups[0].table.at(0, 0) > 0;
  });
  ExpectValid(small);
  EXPECT_EQ(TableRows::kIdxMapping, small.batch.table_rows);
  EXPECT_EQ(2, small.batch.num_reqs());
  EXPECT_EQ(2, small.groups[0].table.rows);  // row 0 and the live request's
  EXPECT_EQ(std::set<int32_t>({-1, 1}), std::set<int32_t>(small.batch.idx_mapping.begin(), small.batch.idx_mapping.end()));
}

// A dummy run's finding (the engine's eagle_step, reading the stale row 0
// of an idle rank, surface 6 D2, among three dummies) shrinks to the one
// dummy that writes there, and the run stays a dummy run: without the key
// the stale block would be its request's own.
TEST(ShrinkPersistentTest, ADummyRunStaysADummyRun) {
  const Scenario s = Parse(R"({"slotguard": 2, "name": "s", "num_blocks": 100,
      "batch": {"query_start_loc": [0, 1, 2, 3], "positions": [0, 0, 0], "table_rows": "idx_mapping",
                "idx_mapping": [0, 1, 2], "dummy_run": true},
      "groups": [{"name": "d", "kernel": "eagle_step", "variant": "engine_81be2e09", "block_size": 4,
                  "max_model_len": 64, "block_table": [[17, 23], [0, 0], [0, 0], [0, 0]]}]})");
  std::unique_ptr<Backend> host = MakeHostBackend();
  auto own_block = [&](const Scenario& c) {
    ScenarioRun run;
    std::string err;
    if (!RunScenario(c, *host, 1, &run, &err)) return false;
    for (const FindingSink& sink : run.findings)
      for (const Finding& f : sink.kept())
        if (f.invariant == "own_block" && f.detail.find("dummy run") != std::string::npos) return true;
    return false;
  };
  ASSERT_TRUE(own_block(s));
  const Scenario small = Shrink(s, own_block);
  ExpectValid(small);
  EXPECT_TRUE(small.batch.dummy_run);
  EXPECT_EQ(1, small.batch.num_reqs());
}

// A position near 2^62 shrinks to a small one that keeps its ring offset
// (pos mod kpool), in few attempts; 100000 padding tokens go in halves.
TEST(ShrinkPersistentTest, HugePositionsAndPaddingShrinkFast) {
  const Scenario s = Parse(R"({"slotguard": 2, "name": "s", "num_blocks": 100,
      "batch": {"query_start_loc": [0, 1], "seq_lens": [4611686018427387900], "num_tokens": 100001},
      "groups": [{"name": "k", "kernel": "kpool_tail", "kpool": 8, "block_table": [[5]]}]})");
  const int64_t offset = (int64_t{4611686018427387900} - 1) % 8;
  int calls = 0;
  const Scenario small = Shrink(s, [&](const Scenario& c) {
    ++calls;
    return c.batch.num_reqs() == 1 && c.batch.num_real_tokens() == 1 && c.batch.num_tokens > 1 &&
           c.batch.positions[0] % 8 == offset;
  });
  ExpectValid(small);
  EXPECT_EQ(offset, small.batch.positions[0]);
  EXPECT_EQ(2, small.batch.num_tokens);
  EXPECT_LT(calls, 300) << calls;
}

// The campaign's own rule on generated persistent tables: with the
// dummy_reads_row variant forced, the minimized scenario still fires the
// same invariant, the reference still passes it, and it loads.
TEST(ShrinkPersistentTest, GeneratedPersistentFindingsMinimizeToValidScenarios) {
  std::unique_ptr<Backend> host = MakeHostBackend();
  auto fired = [&](const Scenario& c) {
    ScenarioRun run;
    std::string err;
    EXPECT_TRUE(RunScenario(c, *host, 1, &run, &err)) << err;
    std::set<std::string> names;
    for (const FindingSink& sink : run.findings)
      for (const auto& [name, count] : sink.counts()) names.insert(name);
    return names;
  };
  int minimized = 0;
  for (uint64_t seed = 0; seed < 4000 && minimized < 3; ++seed) {
    RandomChoices choices(seed);
    GeneratorOptions options;
    options.families = {Family::kPaged};
    Scenario s = GenerateScenario(choices, options);
    if (s.batch.table_rows != TableRows::kIdxMapping) continue;
    for (Group& g : s.groups) g.variant = Variant::kPagedDummyReadsRow;
    const std::set<std::string> first = fired(s);
    if (first.empty() || !ReferencePasses(s)) continue;
    const std::string target = *first.begin();
    const Scenario small = Shrink(s, [&](const Scenario& c) { return fired(c).count(target) && ReferencePasses(c); });
    ExpectValid(small);
    EXPECT_TRUE(fired(small).count(target)) << seed;
    EXPECT_TRUE(ReferencePasses(small)) << seed;
    EXPECT_LE(small.batch.num_reqs(), 2) << seed;
    ++minimized;
  }
  EXPECT_EQ(3, minimized);
}

/// A paged scenario whose requests have these lengths (prefills: context 0),
/// `padding` padding tokens, and rows wide enough for them (blocks of 16).
Scenario Prefills(const std::vector<int64_t>& lengths, int64_t padding) {
  std::string qsl = "0", seq_lens, rows;
  int64_t end = 0, next_block = 1, width = 0;
  for (int64_t q : lengths) width = std::max(width, (q + 15) / 16);
  for (int64_t q : lengths) {
    qsl += ", " + std::to_string(end += q);
    seq_lens += (seq_lens.empty() ? "" : ", ") + std::to_string(q);
    std::string row;
    for (int64_t c = 0; c < width; ++c) row += (c ? ", " : "") + std::to_string(next_block++);
    rows += (rows.empty() ? "[" : ", [") + row + "]";
  }
  return Parse(R"({"slotguard": 1, "name": "s", "num_blocks": )" + std::to_string(next_block) +
               R"(, "batch": {"query_start_loc": [)" + qsl + R"(], "seq_lens": [)" + seq_lens +
               R"(], "num_tokens": )" + std::to_string(end + padding) +
               R"(}, "groups": [{"name": "p", "kernel": "paged", "block_size": 16, "block_table": [)" + rows + "]}]}");
}

// A bug past a request program's first 1024-token tile needs one request of
// 1025 tokens: the request's length shrinks to that boundary by binary
// search, from any start, in a few dozen candidates (one token at a time
// took thousands), and the padding and the columns go the same way.
TEST(ShrinkBoundaryTest, ARequestShrinksToTheTileBoundaryFromAnyStart) {
  auto past_the_tile = [](const Scenario& c) {
    for (int32_t r = 0; r < c.batch.num_reqs(); ++r)
      if (c.batch.query_start_loc[r + 1] - c.batch.query_start_loc[r] > 1024) return true;
    return false;
  };
  std::string minimized;
  for (const auto& [lengths, padding] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
           {{61, 2890}, 4000}, {{1500, 7, 4000}, 0}, {{1025}, 3}}) {
    int calls = 0;
    const Scenario small = Shrink(Prefills(lengths, padding), [&](const Scenario& c) {
      ++calls;
      return past_the_tile(c);
    });
    ExpectValid(small);
    ASSERT_EQ(1, small.batch.num_reqs());
    EXPECT_EQ(1025, small.batch.num_real_tokens());
    EXPECT_EQ(1025, small.batch.num_tokens) << "no padding";
    EXPECT_EQ(0, small.groups[0].table.width) << "no column the predicate needs";
    EXPECT_LT(calls, 200) << lengths.size() << " requests";
    if (minimized.empty()) minimized = WriteScenarioJson(small);
    EXPECT_TRUE(minimized == WriteScenarioJson(small)) << "the same minimum from every start";
  }
}

// Each valid candidate is reported, with the smallest failing scenario so
// far: what the campaign's status line shows while it shrinks.
TEST(ShrinkBoundaryTest, EveryCandidateIsReportedWithTheSmallestSoFar) {
  ShrinkOptions options;
  std::vector<int64_t> tokens;
  int last_attempt = 0;
  options.on_attempt = [&](const Scenario& smallest, int attempts) {
    EXPECT_EQ(last_attempt + 1, attempts);
    last_attempt = attempts;
    tokens.push_back(smallest.batch.num_tokens);
  };
  int calls = 0;
  Shrink(Prefills({40, 30}, 10), [&](const Scenario& c) {
    ++calls;
    return c.batch.num_real_tokens() >= 20;
  }, options);
  EXPECT_EQ(calls, last_attempt);
  ASSERT_FALSE(tokens.empty());
  EXPECT_TRUE(std::is_sorted(tokens.rbegin(), tokens.rend())) << "the smallest so far never grows";
  EXPECT_EQ(20, tokens.back());
}

}  // namespace
}  // namespace slotguard
