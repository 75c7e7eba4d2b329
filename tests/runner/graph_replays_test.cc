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

}  // namespace
}  // namespace slotguard
