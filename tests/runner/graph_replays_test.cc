// The CUDA-graph protocol (runner/graph_replays.h) on the host backend: the
// capture sizes, the replayed batches, and the bug only a replay shows.
#include <algorithm>

#include <gtest/gtest.h>

#include "runner/graph_replays.h"
#include "runner/scenario_run.h"
#include "testing/scenario_fixtures.h"

namespace slotguard {
namespace {

Scenario Parse(const std::string& text) { return ParseTestScenario(text); }

// kpool_tail, kpool 4: one live request on block 3 at positions 5, 6 ->
// slots 13, 14. Nothing in the real batch addresses block 0.
const char kLiveTail[] = R"({"slotguard": 1, "name": "live-tail", "num_blocks": 8,
  "batch": {"query_start_loc": [0, 2], "positions": [5, 6, 0], "num_actual_tokens": 2,
            "slot_mapping_in": [-1, -1, -1]},
  "groups": [{"name": "tail", "kernel": "kpool_tail", "kpool": 4, "block_table": [[3]]}],
  "expect": {"slot_mapping": {"tail": [13, 14, -1]}}})";

TEST(GraphReplaysTest, CaptureSizesArePowersOfTwoUpTo512) {
  EXPECT_EQ(1, CaptureSize(0));
  EXPECT_EQ(1, CaptureSize(1));
  EXPECT_EQ(4, CaptureSize(3));
  EXPECT_EQ(512, CaptureSize(300));
  EXPECT_EQ(512, CaptureSize(512));
  EXPECT_EQ(513, CaptureSize(513));  // past the largest: captured at its own size
}

TEST(GraphReplaysTest, PaddingExtendsTokensWithPad) {
  const Scenario padded = PadToCaptureSize(Parse(kLiveTail));
  EXPECT_EQ(4, padded.batch.num_tokens);
  EXPECT_EQ((std::vector<int64_t>{5, 6, 0, 0}), padded.batch.positions);
  EXPECT_EQ((std::vector<int64_t>{-1, -1, -1, -1}), padded.batch.slot_mapping_in);
  EXPECT_EQ((std::vector<int64_t>{13, 14, -1, -1}), padded.expect.slot_mapping.at("tail"));
  EXPECT_EQ(2, padded.batch.num_actual_tokens);
}

TEST(GraphReplaysTest, DummiesKeepTheSizesAndEmptyTheState) {
  const std::vector<GraphReplay> replays = GraphReplays(PadToCaptureSize(Parse(kLiveTail)));
  ASSERT_EQ(3u, replays.size());
  for (const GraphReplay& r : replays) {
    EXPECT_EQ(4, r.scenario.batch.num_tokens);
    EXPECT_EQ(2, r.scenario.batch.num_actual_tokens);
    EXPECT_EQ(1, r.scenario.batch.num_reqs());
  }
  const Scenario& dummy = replays[1].scenario;
  EXPECT_EQ((std::vector<int32_t>{-1}), dummy.batch.idx_mapping);
  EXPECT_EQ((std::vector<int32_t>{0}), dummy.groups[0].table.entries);
  EXPECT_EQ((std::vector<int32_t>{0, 2}), dummy.batch.query_start_loc);
  const Scenario& idle = replays[2].scenario;
  EXPECT_EQ((std::vector<int32_t>{0, 0}), idle.batch.query_start_loc);
  EXPECT_EQ((std::vector<int64_t>{0, 0, 0, 0}), idle.batch.positions);
}

TEST(GraphReplaysTest, FixedHoldsThroughEveryReplay) {
  std::unique_ptr<Backend> host = MakeHostBackend();
  host->set_writers(WriterOptions{64});
  const ScenarioReport report = CheckScenario(Parse(kLiveTail), "live-tail.json", *host, 8, /*cuda_graph=*/true);
  EXPECT_TRUE(report.holds) << report.verdict;
  EXPECT_EQ(4, report.tokens);  // checked at the capture size
}

TEST(GraphReplaysTest, OnlyTheDummyReplaysCatchThePrefixVariant) {
  // prefix accepts block 0. The real batch never addresses it, so an eager
  // check holds; replaying the graph for a dummy batch (table 0) writes
  // slots 1, 2 of block 0, and for an idle rank (num_actual_tokens 2 baked
  // into the graph, both tokens clamped to request 0 at position 0) slot 0.
  Scenario s = Parse(kLiveTail);
  ASSERT_TRUE(ForceVariant("prefix", &s));
  std::unique_ptr<Backend> host = MakeHostBackend();
  host->set_writers(WriterOptions{64});
  EXPECT_TRUE(CheckScenario(s, "live-tail.json", *host, 8).holds);
  const ScenarioReport graph = CheckScenario(s, "live-tail.json", *host, 8, /*cuda_graph=*/true);
  EXPECT_FALSE(graph.holds);
  EXPECT_EQ((std::set<std::string>{"null_bytes"}), graph.fired);
  std::vector<std::string> details;
  for (const Finding& f : graph.groups[0].findings) details.push_back(f.detail);
  ASSERT_EQ(3u, details.size());
  EXPECT_NE(std::string::npos, details[0].find("slot 1 (block 0)")) << details[0];
  EXPECT_NE(std::string::npos, details[0].find("dummy batch")) << details[0];
  EXPECT_NE(std::string::npos, details[1].find("slot 2 (block 0)")) << details[1];
  EXPECT_NE(std::string::npos, details[2].find("slot 0 (block 0)")) << details[2];
  EXPECT_NE(std::string::npos, details[2].find("idle DP rank")) << details[2];
}

// The steps of the sequence, in words: "zero", "eager 1", "capture 0", "replay 2".
std::vector<std::string> StepWords(const GraphSequence& sequence) {
  std::vector<std::string> words;
  for (const GraphStep& step : sequence.steps) {
    switch (step.kind) {
      case GraphStep::Kind::kZeroNull: words.push_back("zero"); continue;
      case GraphStep::Kind::kEager: words.push_back("eager"); break;
      case GraphStep::Kind::kCapture: words.push_back("capture"); break;
      case GraphStep::Kind::kReplay: words.push_back("replay"); break;
    }
    words.back() += " " + std::to_string(step.batch);
  }
  return words;
}

TEST(GraphReplaysTest, TheZeroingSitsBeforeOrAfterTheCaptureAndItsEagerWarmUp) {
  const std::vector<GraphReplay> replays = GraphReplays(PadToCaptureSize(Parse(kLiveTail)));
  using Words = std::vector<std::string>;
  // Batches: 0 the real one, 1 the dummy, 2 the idle rank.
  EXPECT_EQ((Words{"capture 0", "replay 0", "replay 1", "replay 2"}), StepWords(GraphSequenceOf(replays, ZeroNull::kNever)));
  EXPECT_EQ((Words{"zero", "eager 1", "capture 0", "replay 0", "replay 1", "replay 2"}),
            StepWords(GraphSequenceOf(replays, ZeroNull::kBeforeCapture)));
  EXPECT_EQ((Words{"eager 1", "capture 0", "zero", "replay 0", "replay 1", "replay 2"}),
            StepWords(GraphSequenceOf(replays, ZeroNull::kAfterCapture)));
  EXPECT_EQ("", GraphSequenceOf(replays, ZeroNull::kAfterCapture).Problem());
}

// Block 0 of kLiveTail's pool (kpool 4, 64 bytes a slot): slots 0..3.
std::vector<uint8_t> NullBlock(const GroupOutputs& out) {
  return std::vector<uint8_t>(out.cache.begin(), out.cache.begin() + 4 * 64);
}
bool SlotZero(const GroupOutputs& out, int slot) {
  return std::all_of(out.cache.begin() + slot * 64, out.cache.begin() + (slot + 1) * 64, [](uint8_t b) { return b == 0; });
}

TEST(GraphReplaysTest, TheWarmUpRunsEagerlyAndTheZeroingWritesBlockZero) {
  // prefix on the dummy batch (table 0) writes tokens 0 and 1 (positions 5,
  // 6) into slots 1 and 2 of block 0; the real batch never addresses it.
  Scenario s = Parse(kLiveTail);
  ASSERT_TRUE(ForceVariant("prefix", &s));
  const std::vector<GraphReplay> replays = GraphReplays(PadToCaptureSize(s));
  std::unique_ptr<Backend> host = MakeHostBackend();
  host->set_writers(WriterOptions{64});
  std::vector<std::vector<GroupOutputs>> after;  // V2's order: eager, capture, zero, real, dummy, idle
  std::string err;
  ASSERT_TRUE(host->RunReplays(GraphSequenceOf(replays, ZeroNull::kAfterCapture), &after, &err)) << err;
  ASSERT_EQ(6u, after.size());
  // The warm-up ran, eagerly: its writes are there before the capture.
  EXPECT_TRUE(SlotZero(after[0][0], 0));
  EXPECT_FALSE(SlotZero(after[0][0], 1));
  EXPECT_FALSE(SlotZero(after[0][0], 2));
  EXPECT_EQ(after[0][0].cache, after[1][0].cache);  // the capture runs nothing
  // The zeroing: block 0 all zero, every other byte as it was.
  EXPECT_EQ(std::vector<uint8_t>(4 * 64, 0), NullBlock(after[2][0]));
  EXPECT_TRUE(std::equal(after[1][0].cache.begin() + 4 * 64, after[1][0].cache.end(), after[2][0].cache.begin() + 4 * 64));
  EXPECT_EQ(std::vector<uint8_t>(4 * 64, 0), NullBlock(after[3][0]));  // the real replay leaves it so
  // The dummy replay writes the very bytes the warm-up wrote, into a zeroed block.
  EXPECT_EQ(NullBlock(after[0][0]), NullBlock(after[4][0]));
  // V1's order zeroes first: the real replay finds the warm-up's bytes.
  std::vector<std::vector<GroupOutputs>> before;
  ASSERT_TRUE(host->RunReplays(GraphSequenceOf(replays, ZeroNull::kBeforeCapture), &before, &err)) << err;
  ASSERT_EQ(6u, before.size());
  EXPECT_EQ(std::vector<uint8_t>(4 * 64, 0), NullBlock(before[0][0]));  // a fresh pool: nothing to zero
  EXPECT_EQ(NullBlock(after[0][0]), NullBlock(before[3][0]));
}

std::vector<std::string> Details(const ScenarioReport& report) {
  std::vector<std::string> details;
  for (const Finding& f : report.groups[0].findings) details.push_back(f.detail);
  return details;
}

TEST(GraphReplaysTest, AZeroingShowsTheDummyReplaysRewriteOfTheSameBytes) {
  Scenario s = Parse(kLiveTail);
  ASSERT_TRUE(ForceVariant("prefix", &s));
  std::unique_ptr<Backend> host = MakeHostBackend();
  host->set_writers(WriterOptions{64});
  // V2's order: the warm-up writes slots 1 and 2, the zeroing clears them,
  // the dummy replay writes them again (the same bytes) and the idle one slot 0.
  s.graph.zero_null = ZeroNull::kAfterCapture;
  std::vector<std::string> details = Details(CheckScenario(s, "live-tail.json", *host, 8, /*cuda_graph=*/true));
  ASSERT_EQ(5u, details.size());
  for (size_t k : {0, 1}) EXPECT_NE(std::string::npos, details[k].find("eager warm-up pass")) << details[k];
  EXPECT_NE(std::string::npos, details[0].find("slot 1 (block 0)")) << details[0];
  EXPECT_NE(std::string::npos, details[1].find("slot 2 (block 0)")) << details[1];
  for (size_t k : {2, 3}) EXPECT_NE(std::string::npos, details[k].find("graph replay of a dummy batch")) << details[k];
  EXPECT_NE(std::string::npos, details[2].find("slot 1 (block 0)")) << details[2];
  EXPECT_NE(std::string::npos, details[3].find("slot 2 (block 0)")) << details[3];
  EXPECT_NE(std::string::npos, details[4].find("slot 0 (block 0)")) << details[4];
  EXPECT_NE(std::string::npos, details[4].find("idle DP rank")) << details[4];
  // V1's order: nothing clears the warm-up's bytes, so the dummy replay's
  // rewrite of them is no new write; the real replay is not blamed for them.
  s.graph.zero_null = ZeroNull::kBeforeCapture;
  details = Details(CheckScenario(s, "live-tail.json", *host, 8, /*cuda_graph=*/true));
  ASSERT_EQ(3u, details.size());
  EXPECT_NE(std::string::npos, details[0].find("slot 1 (block 0)")) << details[0];
  EXPECT_NE(std::string::npos, details[0].find("eager warm-up pass")) << details[0];
  EXPECT_NE(std::string::npos, details[1].find("slot 2 (block 0)")) << details[1];
  EXPECT_NE(std::string::npos, details[2].find("slot 0 (block 0)")) << details[2];
  EXPECT_NE(std::string::npos, details[2].find("idle DP rank")) << details[2];
}

TEST(GraphReplaysTest, CuratedScenariosHoldInEveryZeroingOrder) {
  // The warm-up pass runs the dummy batch before the real replay: a sink's
  // writes there are not the real batch's, and a real batch that writes the
  // very bytes the warm-up wrote (an engine variant's dummy-run scenarios:
  // dflash's engine-v2-dummy-run, whose dummy batch is its own) still has
  // them judged as its own writes.
  std::unique_ptr<Backend> host = MakeHostBackend();
  host->set_writers(WriterOptions{64});
  for (ZeroNull zero : {ZeroNull::kNever, ZeroNull::kBeforeCapture, ZeroNull::kAfterCapture})
    for (Scenario s : CuratedScenarios()) {
      s.graph.zero_null = zero;
      const ScenarioReport report = CheckScenario(s, s.name, *host, 8, /*cuda_graph=*/true);
      EXPECT_TRUE(report.holds) << s.name << " " << ZeroNullName(zero) << ": " << report.verdict;
    }
}

}  // namespace
}  // namespace slotguard
