// replay's tables (report/replay_table.h) from a run kept whole.
#include "report/replay_table.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "scenario/scenario_json.h"
#include "testing/scenario_fixtures.h"

namespace slotguard {
namespace {

const std::string kScenarios = SLOTGUARD_SOURCE_DIR "/scenarios";

TEST(ReplayTableTest, LongScenariosShowOnlyTheTokensWithFindings) {
  Scenario s = LoadTestScenario(kScenarios + "/paged/tile-crossing-1030-tokens.json");
  ASSERT_GT(s.batch.num_tokens, kReplayEveryToken);
  ForceVariant("pad_from_n", &s);
  const ScenarioRun run = RunWholeOnHost(s);
  std::ostringstream some, every;
  PrintReplayGroup(s, 0, run, false, some);
  PrintReplayGroup(s, 0, run, true, every);
  EXPECT_NE(std::string::npos, some.str().find(" tokens without findings not shown; --all-tokens shows them)\n"))
      << some.str();
  EXPECT_EQ(std::string::npos, every.str().find("not shown")) << every.str();
  EXPECT_GT(every.str().size(), some.str().size());
}

TEST(ReplayTableTest, AFaultedGroupHasNoTable) {
  const Scenario s = LoadTestScenario(kScenarios + "/paged/decode.json");
  ScenarioRun run = RunWholeOnHost(s);
  run.kernel[0].fault = "the worker process killed by SIGSEGV (Segmentation fault)";
  std::ostringstream out;
  PrintReplayGroup(s, 0, run, false, out);
  EXPECT_EQ("\ngroup " + s.groups[0].name + ": no outputs: the worker process killed by SIGSEGV (Segmentation fault)\n",
            out.str());
}

// A per-request kind's output has num_reqs * ops elements, not a slot per
// token: the table has a row per element (here 2 requests * 9 stores = 18,
// for 35 tokens), with no position. It once walked the tokens and read past
// the outputs, and crashed on a group whose rows are empty.
TEST(ReplayTableTest, APerRequestOutputHasARowPerElement) {
  Scenario s = LoadTestScenario(kScenarios + "/engines/vllm_offload_store/o12-chunks-of-three.json");
  ASSERT_EQ(35, s.batch.num_tokens);
  const ScenarioRun run = RunWholeOnHost(s);
  ASSERT_EQ(18u, run.kernel[0].engine[0].size());
  std::ostringstream out;
  PrintReplayGroup(s, 0, run, true, out);
  std::istringstream lines(out.str());
  std::string line;
  std::vector<std::string> rows;
  while (std::getline(lines, line))
    if (line.size() > 7 && line[0] == ' ' && std::isdigit(static_cast<unsigned char>(line[6]))) rows.push_back(line);
  ASSERT_EQ(18u, rows.size()) << out.str();
  EXPECT_NE(std::string::npos, out.str().find("  elem    req       pos   block")) << out.str();
  // Element 3 is request 0's operation 3: chunk 1 is skipped whole (no store: PAD).
  EXPECT_EQ("      3     0         -       -        PAD        PAD  ", rows[3]);
  // Element 9 is request 1's operation 0: block 10 stored.
  EXPECT_EQ("      9     1         -      10         10         10  ", rows[9]);
  // Empty rows: no store at all, no row in the table, and no crash.
  for (Group& g : s.groups) {
    g.table.width = 0;
    g.table.entries.clear();
  }
  const ScenarioRun empty = RunWholeOnHost(s);
  std::ostringstream none;
  PrintReplayGroup(s, 0, empty, true, none);
  EXPECT_EQ(std::string::npos, none.str().find("\n      0 ")) << none.str();
}

TEST(ReplayTableTest, TheReplayEndsWithTheScenarioLine) {
  const Scenario s = LoadTestScenario(kScenarios + "/paged/mutants/dummy-reads-row.json");
  std::ostringstream out;
  EXPECT_TRUE(PrintReplay(s, "x.json", "host", RunWholeOnHost(s), false, out));
  EXPECT_EQ(0u, out.str().find("scenario paged-dummy-reads-row (x.json), backend host\n")) << out.str();
  EXPECT_NE(std::string::npos, out.str().find("\nok    x.json (paged-dummy-reads-row): expected finding caught ("))
      << out.str();
}

TEST(ReplayTableTest, ConsecutiveBlocksWithTheSameCountAreOneRange) {
  std::map<int64_t, int64_t> written;
  for (int64_t b = 1; b <= 64; ++b) written[b] = 16;
  written[65] = 6;
  EXPECT_EQ(" 1-64:16 65:6", BlockRanges(written, 1));
  // A gap, a change of count and the null block each end a range.
  EXPECT_EQ(" 0!:16 1-2:16 4:16 5:3 6-7:16", BlockRanges({{0, 16}, {1, 16}, {2, 16}, {4, 16}, {5, 3}, {6, 16}, {7, 16}}, 1));
  EXPECT_EQ(" 0!-1!:2 2:2", BlockRanges({{0, 2}, {1, 2}, {2, 2}}, 2));
  EXPECT_EQ(" 3:1", BlockRanges({{3, 1}}, 1));
  EXPECT_EQ("", BlockRanges({}, 1));
  // Capped: the first ranges, the null block's first, and a count.
  EXPECT_EQ(" 0!:1 2:1 ... (2 more ranges; --all-tokens lists them)", BlockRanges({{0, 1}, {2, 1}, {4, 1}, {6, 1}}, 1, 2));
  EXPECT_EQ(" 0!:1 2:1", BlockRanges({{0, 1}, {2, 1}}, 1, 2));
}

TEST(ReplayTableTest, TheBlockPictureShowsRanges) {
  Scenario s = LoadTestScenario(kScenarios + "/paged/tile-crossing-1030-tokens.json");
  std::ostringstream out;
  PrintReplayGroup(s, 0, RunWholeOnHost(s), false, out);
  // 1030 tokens, block_size 16, request 0's row holds blocks 1..65: 64 full
  // blocks and 6 tokens in the last.
  EXPECT_NE(std::string::npos, out.str().find("\n    request 0: 1-64:16 65:6\n")) << out.str();
}

TEST(ReplayTableTest, RunsOfPlainRequestsFoldIntoOneLine) {
  // 324 one-token requests of their own blocks, request 200 a dummy whose
  // token the prefix variant sends into block 0.
  Scenario s = LoadTestScenario(kScenarios + "/rings/mutants/kpool-prefix.json");
  const int32_t n = 324;
  s.batch.query_start_loc.clear();
  for (int32_t r = 0; r <= n; ++r) s.batch.query_start_loc.push_back(r);
  s.batch.positions.assign(n, 0);
  s.batch.seq_lens.assign(n, 1);
  s.batch.idx_mapping.clear();
  for (int32_t r = 0; r < n; ++r) s.batch.idx_mapping.push_back(r == 200 ? -1 : r);
  s.batch.num_actual_tokens = s.batch.num_tokens = n;
  s.batch.slot_mapping_in.assign(n, kPadSlot);
  s.num_blocks = n + 1;
  Group& g = s.groups[0];
  g.table.rows = n;
  g.table.width = 1;
  g.table.entries.clear();
  for (int32_t r = 0; r < n; ++r) g.table.entries.push_back(r == 200 ? 0 : r + 1);
  s.expect = Expect();
  std::ostringstream out;
  PrintReplayGroup(s, 0, RunWholeOnHost(s), false, out);
  const std::string text = out.str();
  EXPECT_NE(std::string::npos, text.find("\n    requests 0-199: 200 live requests, none in the null block "
                                         "(--all-tokens lists them)\n    request 200 (dummy): 0!:1\n    requests "
                                         "201-323: 123 live requests, none in the null block"))
      << text;
  EXPECT_LT(std::count(text.begin(), text.end(), '\n'), 40) << text;
  std::ostringstream all;
  PrintReplayGroup(s, 0, RunWholeOnHost(s), true, all);
  EXPECT_NE(std::string::npos, all.str().find("\n    request 57: 58:1\n")) << all.str();
}

/// A 5000-token batch whose one request has 4 tokens: with pad_from_n the
/// 4996 padding tokens keep stale slots, a finding each in several
/// invariants.
Scenario LargeFailure() {
  Scenario s;
  std::string err;
  EXPECT_TRUE(ParseScenario(R"({"slotguard": 1, "name": "large-failure", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 4], "seq_lens": [4], "num_tokens": 5000},
    "groups": [{"name": "attn", "kernel": "paged", "block_size": 16, "block_table": [[1]]}],
    "expect": {"verdict": "pass"}})",
                            "large.json", LoadLimits(), &s, &err))
      << err;
  EXPECT_TRUE(ForceVariant("pad_from_n", &s));
  return s;
}

int64_t Lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

TEST(ReplayTableTest, ALargeFailureListsAtMostEightFindingsPerInvariant) {
  const Scenario s = LargeFailure();
  const ScenarioRun run = RunWholeOnHost(s);
  int64_t total = run.findings[0].total();
  ASSERT_GT(total, 4990);  // a finding per stale token, at least
  std::ostringstream capped;
  EXPECT_FALSE(PrintReplay(s, "large.json", "host", run, false, capped));
  const std::string text = capped.str();
  const size_t invariants = run.findings[0].counts().size();
  // head, table (the tokens of the listed findings), blocks, the group's
  // headline, a line per token of the listed findings (8 per invariant) and
  // one "more" line, the scenario line: bounded, not ~total.
  EXPECT_LE(Lines(text), static_cast<int64_t>(30 + 2 * 9 * invariants)) << text;
  EXPECT_NE(std::string::npos, text.find(" more tokens with findings not shown: ")) << text;
  const std::string last = text.substr(text.rfind('\n', text.size() - 2) + 1);
  EXPECT_EQ(0u, last.find("FAIL  large.json (large-failure): unexpected findings (")) << last;
  // The headline: pad_from_n leaves the padding tokens 4..4999 at the
  // buffer's 0, slot 0 of block 0; the reference pads them.
  EXPECT_NE(std::string::npos,
            text.find("\ngroup attn: padding wrote slot 0 of block 0 (tokens 4-67 and 4932 more); reference PAD\n"))
      << text;
  // 8 listed per invariant, the rest counted in one line.
  int64_t listed = 0;
  for (const auto& [name, count] : run.findings[0].counts()) listed += std::min<int64_t>(count, 8);
  EXPECT_NE(std::string::npos, text.find("\n  (" + std::to_string(total - listed) +
                                         " more findings not shown: past the first 8 per invariant; --max-findings 0 "
                                         "or --all-tokens lists them)\n"))
      << text;
  // --max-findings 2 lists fewer, 0 (or --all-tokens) everything: a line
  // per token with findings (every padding token).
  std::ostringstream two, all, every;
  PrintReplay(s, "large.json", "host", run, false, two, 2);
  PrintReplay(s, "large.json", "host", run, false, all, 0);
  PrintReplay(s, "large.json", "host", run, true, every);
  EXPECT_LT(Lines(two.str()), Lines(text));
  EXPECT_GT(Lines(all.str()), 4996);
  EXPECT_EQ(std::string::npos, all.str().find("more findings not shown")) << all.str().substr(0, 2000);
  EXPECT_GT(Lines(every.str()), 4996 + s.batch.num_tokens);
}

}  // namespace
}  // namespace slotguard
