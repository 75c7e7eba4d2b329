// The writers, the CUDA-graph replays and fault isolation on the GPU:
// judged like the host backend's, on curated and generated scenarios,
// mutants included. Skipped without a device.
#include <algorithm>

#include <gtest/gtest.h>

#include <map>

#include "backend/backend.h"
#include "backend/isolated_backend.h"
#include "fuzzing/generators.h"
#include "registry/families.h"
#include "runner/graph_replays.h"
#include "runner/scenario_run.h"
#include "testing/scenario_fixtures.h"

namespace slotguard {
namespace {

std::vector<Scenario> Curated() { return CuratedScenarios(); }

// Generated scenarios, every other one with a historical variant forced.
std::vector<Scenario> Generated(int count) {
  const std::vector<Variant> mutants = NonFixedVariants();
  std::vector<Scenario> scenarios;
  for (int seed = 0; seed < count; ++seed) {
    RandomChoices choices(seed);
    GeneratorOptions options;
    options.inconsistent = seed % 3 == 0;
    Scenario s = GenerateScenario(choices, options);
    if (seed % 2) {
      const Variant v = mutants[seed % mutants.size()];
      for (Group& g : s.groups)
        if (g.family == GetVariant(v).family) g.variant = v;
    }
    scenarios.push_back(std::move(s));
  }
  return scenarios;
}

class WritersGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    gpu_ = MakeGpuBackend(&why);
    if (!gpu_) GTEST_SKIP() << why;
    host_ = MakeHostBackend();
    gpu_->set_writers(WriterOptions{64});
    host_->set_writers(WriterOptions{64});
  }
  // The same findings, invariant by invariant (row_bounds in the padded
  // layout only: elsewhere the GPU has no evidence of it). Where the kernel maps two
  // tokens to one slot, which one's words land there is a race on the GPU
  // and an order on the host, so write_set may differ there (and only there).
  void ExpectSameJudgement(const Scenario& s, bool cuda_graph) {
    const ScenarioReport g = CheckScenario(s, s.name, *gpu_, 4, cuda_graph);
    const ScenarioReport h = CheckScenario(s, s.name, *host_, 4, cuda_graph);
    ASSERT_EQ(ScenarioStatus::kChecked, g.status) << s.name << ": " << g.error;
    bool racing = SharesASlot(s);
    // Under a graph every replayed batch writes too: the dummy batch's
    // padded tokens can share a slot of block 0 that the eager warm-up
    // wrote first, so which token's word is there after the dummy replay
    // (the same as the warm-up's, or not) is a race on the GPU.
    if (cuda_graph)
      for (const GraphReplay& replay : GraphReplays(PadToCaptureSize(s))) racing = racing || SharesASlot(replay.scenario);
    for (size_t i = 0; i < g.groups.size(); ++i) {
      std::map<std::string, int64_t> gc = g.groups[i].counts, hc = h.groups[i].counts;
      if (racing) gc.erase("write_set"), hc.erase("write_set");
      // Outside the padded layout only the host sees reads past a row.
      if (s.table_layout != TableLayoutKind::kPadded) hc.erase("row_bounds"), gc.erase("row_bounds");
      EXPECT_EQ(hc, gc) << s.name << " group " << g.groups[i].name << "\n" << WriteScenarioJson(s);
    }
  }
  bool SharesASlot(const Scenario& s) {
    std::vector<GroupOutputs> out;
    std::string err;
    EXPECT_TRUE(host_->Run(s, &out, &err)) << err;
    for (const GroupOutputs& g : out) {
      std::vector<int64_t> slots;
      for (int64_t v : g.engine[0])
        if (v >= 0) slots.push_back(v);
      std::sort(slots.begin(), slots.end());
      if (std::adjacent_find(slots.begin(), slots.end()) != slots.end()) return true;
    }
    return false;
  }
  std::unique_ptr<Backend> gpu_, host_;
};

TEST_F(WritersGpuTest, CuratedScenariosHoldWithTheWritersAndGraphReplays) {
  for (const Scenario& s : Curated()) {
    EXPECT_TRUE(CheckScenario(s, s.name, *gpu_, 4).holds) << s.name;
    EXPECT_TRUE(CheckScenario(s, s.name, *gpu_, 4, /*cuda_graph=*/true).holds) << s.name;
  }
}

TEST_F(WritersGpuTest, CachesMatchTheHostWhereNoTwoTokensShareASlot) {
  for (const Scenario& s : Curated()) {
    std::vector<GroupOutputs> g, h;
    std::string err;
    ASSERT_TRUE(gpu_->Run(s, &g, &err)) << err;
    ASSERT_TRUE(host_->Run(s, &h, &err)) << err;
    for (size_t i = 0; i < g.size(); ++i) {
      std::vector<int64_t> slots;
      for (int64_t v : h[i].engine[0])
        if (v >= 0) slots.push_back(v);
      std::sort(slots.begin(), slots.end());
      if (std::adjacent_find(slots.begin(), slots.end()) != slots.end()) continue;  // racing writers
      EXPECT_EQ(h[i].cache, g[i].cache) << s.name << " group " << i;
    }
  }
}

TEST_F(WritersGpuTest, GeneratedScenariosAndMutantsAreJudgedLikeOnTheHost) {
  for (const Scenario& s : Generated(400)) ExpectSameJudgement(s, false);
}

TEST_F(WritersGpuTest, GraphReplaysAreJudgedLikeOnTheHost) {
  for (const Scenario& s : Generated(200)) ExpectSameJudgement(s, true);
  for (const char* variant : {"prefix", "clamp", "dummy_reads_row", "no_common_guard"})
    for (Scenario s : Curated())
      if (ForceVariant(variant, &s)) ExpectSameJudgement(s, true);
}

// Each 8-byte word of a pool as zero (0), poison (1) or a payload (2):
// which token's payload a word holds is a race where tokens share a slot,
// which of the three it is is not.
std::vector<uint8_t> WordClasses(const std::vector<uint8_t>& cache) {
  std::vector<uint8_t> classes;
  for (size_t at = 0; at + 8 <= cache.size(); at += 8) {
    const auto word = cache.begin() + static_cast<std::ptrdiff_t>(at);
    const bool zero = std::all_of(word, word + 8, [](uint8_t b) { return b == 0; });
    const bool poison = std::all_of(word, word + 8, [](uint8_t b) { return b == 0xA5; });
    classes.push_back(zero ? 0 : poison ? 1 : 2);
  }
  return classes;
}

// The eager warm-up pass and the zeroing of block 0 (graph.zero_null) on
// the GPU: after every step the pools as the host's (word by word: zero,
// poison or a payload), and the same judgement, in both orders.
TEST_F(WritersGpuTest, TheZeroingOrdersRunAndAreJudgedLikeOnTheHost) {
  for (ZeroNull zero : {ZeroNull::kBeforeCapture, ZeroNull::kAfterCapture})
    for (const char* variant : {"", "prefix", "clamp"})
      for (Scenario s : Curated()) {
        if (*variant && !ForceVariant(variant, &s)) continue;
        s.graph.zero_null = zero;
        ExpectSameJudgement(s, true);
        if (s.num_blocks > 64) continue;  // pools small enough to compare after every step
        const GraphSequence sequence = GraphSequenceOf(GraphReplays(PadToCaptureSize(s)), zero);
        std::vector<std::vector<GroupOutputs>> g, h;
        std::string err;
        ASSERT_TRUE(gpu_->RunReplays(sequence, &g, &err)) << s.name << ": " << err;
        ASSERT_TRUE(host_->RunReplays(sequence, &h, &err)) << s.name << ": " << err;
        ASSERT_EQ(h.size(), g.size()) << s.name;
        for (size_t k = 0; k < g.size(); ++k)
          for (size_t i = 0; i < g[k].size() && i < h[k].size(); ++i)
            EXPECT_EQ(WordClasses(h[k][i].cache), WordClasses(g[k][i].cache))
                << s.name << " step " << k << " group " << i << " " << ZeroNullName(zero);
      }
}

// A reader's requirement on block 0 (null_read): the example families of
// examples/families/null_read_*.json in every zeroing order, the same
// findings, worded the same (the step, the byte, who wrote it), as on the
// host (tests/invariants/null_read_test.cc works them out by hand).
TEST_F(WritersGpuTest, TheReadersRequirementIsJudgedLikeOnTheHost) {
  for (const char* name : {"null_read_sink", "null_read_sink_any", "null_read_pristine"}) {
    Family f;
    std::string err;
    if (!FindFamily(name, &f, &err)) {
      ASSERT_TRUE(RegisterFamilyFile(std::string(SLOTGUARD_SOURCE_DIR) + "/examples/families/" + name + ".json", &err))
          << err;
    }
    for (ZeroNull zero : {ZeroNull::kNever, ZeroNull::kBeforeCapture, ZeroNull::kAfterCapture}) {
      Scenario s = ParseTestScenario(R"({"slotguard": 2, "name": "z", "num_blocks": 4,
        "batch": {"query_start_loc": [0, 1], "positions": [0]},
        "groups": [{"name": "m", "kernel": ")" + std::string(name) + R"(", "block_size": 2, "block_table": [[3]]}]})");
      s.graph.zero_null = zero;
      ExpectSameJudgement(s, true);
      std::vector<std::string> details[2];
      int k = 0;
      for (Backend* b : {gpu_.get(), host_.get()}) {
        // The report is held here: a range-for over a member of the temporary would read it after its end.
        const ScenarioReport report = CheckScenario(s, s.name, *b, 8, true);
        ASSERT_EQ(1u, report.groups.size()) << name << ": " << report.error;
        for (const Finding& finding : report.groups[0].findings)
          if (finding.invariant == "null_read") details[k].push_back(finding.detail);
        ++k;
      }
      EXPECT_EQ(details[1], details[0]) << name << " " << ZeroNullName(zero);
      EXPECT_EQ(std::string(name) == "null_read_sink" ? (zero == ZeroNull::kBeforeCapture ? 3u : 1u) : 0u,
                details[0].size())
          << name << " " << ZeroNullName(zero);
    }
  }
}

TEST_F(WritersGpuTest, AGpuWorkerGivesWhatTheInProcessGpuGives) {
  SetWorkerExecutable(SLOTGUARD_BINARY);
  IsolationOptions o;
  o.backend_name = "gpu";
  o.worker_args = {"__worker", "--backend", "gpu"};
  std::unique_ptr<Backend> isolated = MakeIsolatedBackend(o);
  isolated->set_writers(WriterOptions{64});
  for (const Scenario& s : Curated()) {
    std::vector<GroupOutputs> a, b;
    std::string err;
    ASSERT_TRUE(isolated->Run(s, &a, &err)) << s.name << ": " << err;
    ASSERT_TRUE(gpu_->Run(s, &b, &err)) << err;
    ASSERT_EQ(b.size(), a.size());
    for (size_t g = 0; g < a.size(); ++g) {
      EXPECT_EQ("", a[g].fault) << s.name;
      EXPECT_EQ(b[g].engine, a[g].engine) << s.name;
      EXPECT_EQ(b[g].flat, a[g].flat) << s.name;
    }
  }
}

}  // namespace
}  // namespace slotguard
