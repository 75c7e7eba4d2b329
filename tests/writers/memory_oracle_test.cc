// The writers and the memory invariants (docs/memory-and-graphs.md, null_bytes, write_set):
// what the host writers put in a pool, worked out by hand, and what the
// invariants say about pools a wrong mapping or a stray byte produced.
#include <cstring>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "backend/backend.h"
#include "runner/scenario_run.h"
#include "testing/scenario_fixtures.h"
#include "scenario/scenario_json.h"
#include "writers/cache_pool.h"
#include "writers/payload.h"

namespace slotguard {
namespace {

Scenario Parse(const std::string& text) { return ParseTestScenario(text); }

// One request of 3 tokens at positions 0..2 on block 2 of a 4-block pool of
// 4-slot pages: slots 8, 9, 10. Block 0 is slots 0..3.
const char kThreeTokens[] = R"({"slotguard": 1, "name": "three", "num_blocks": 4,
  "batch": {"query_start_loc": [0, 3], "positions": [0, 1, 2]},
  "groups": [{"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[2]]}]})";

constexpr int32_t kHead = 16;  // two payload words per slot

uint64_t Word(const std::vector<uint8_t>& cache, int64_t slot, int w) {
  uint64_t v;
  std::memcpy(&v, cache.data() + slot * kHead + w * 8, 8);
  return v;
}

uint64_t PoisonWord() {
  uint64_t v;
  std::memset(&v, kPoisonByte, 8);
  return v;
}

RC_GTEST_PROP(PayloadTest, EveryWordDecodesAndIsNeitherZeroNorPoison, ()) {
  const int64_t token = *rc::gen::inRange<int64_t>(0, int64_t{1} << 31);
  const int32_t group = *rc::gen::inRange<int32_t>(0, 1 << 16);
  const int32_t word = *rc::gen::inRange<int32_t>(0, kMaxHeadBytes / kPayloadWordBytes);
  const uint64_t w = PayloadWord(token, group, word);
  RC_ASSERT(w != 0u);
  RC_ASSERT(w != PoisonWord());
  int64_t t;
  int32_t g, i;
  RC_ASSERT(DecodePayloadWord(w, &t, &g, &i));
  RC_ASSERT(t == token);
  RC_ASSERT(g == group);
  RC_ASSERT(i == word);
}

TEST(PayloadTest, PoisonAndZeroAreNoPayload) {
  int64_t t;
  int32_t g, i;
  EXPECT_FALSE(DecodePayloadWord(0, &t, &g, &i));
  EXPECT_FALSE(DecodePayloadWord(PoisonWord(), &t, &g, &i));
}

TEST(WritersTest, PagedWriterFillsExactlyTheMappedSlots) {
  const Scenario s = Parse(kThreeTokens);
  std::unique_ptr<Backend> host = MakeHostBackend();
  host->set_writers(WriterOptions{kHead});
  std::vector<GroupOutputs> out;
  std::string err;
  ASSERT_TRUE(host->Run(s, &out, &err)) << err;
  ASSERT_EQ(16u * kHead, out[0].cache.size());  // 4 blocks x 4 slots x 16 bytes
  for (int64_t slot = 0; slot < 16; ++slot)
    for (int w = 0; w < 2; ++w) {
      uint64_t expected = slot < 4 ? 0 : PoisonWord();
      if (slot >= 8 && slot <= 10) expected = PayloadWord(slot - 8, 0, w);  // token t at slot 8 + t
      EXPECT_EQ(expected, Word(out[0].cache, slot, w)) << "slot " << slot << " word " << w;
    }
}

TEST(WritersTest, RingWriterSkipsPadAndWritesItsPage) {
  // kpool_tail, kpool 4: request 0 on block 3 at positions 5, 6 -> slots 13, 14;
  // request 1 on the null block -> PAD, nothing written.
  const Scenario s = Parse(R"({"slotguard": 1, "name": "ring", "num_blocks": 4,
    "batch": {"query_start_loc": [0, 2, 3], "positions": [5, 6, 0], "idx_mapping": [0, -1]},
    "groups": [{"name": "tail", "kernel": "kpool_tail", "kpool": 4, "block_table": [[3], [0]]}]})");
  std::unique_ptr<Backend> host = MakeHostBackend();
  host->set_writers(WriterOptions{kHead});
  std::vector<GroupOutputs> out;
  std::string err;
  ASSERT_TRUE(host->Run(s, &out, &err)) << err;
  for (int64_t slot = 0; slot < 16; ++slot) {
    uint64_t expected = slot < 4 ? 0 : PoisonWord();
    if (slot == 13) expected = PayloadWord(0, 0, 1);
    if (slot == 14) expected = PayloadWord(1, 0, 1);
    EXPECT_EQ(expected, Word(out[0].cache, slot, 1)) << "slot " << slot;
  }
}

// What a family's writer skips (writer.skip), on a pool of 8 slots: a
// negative slot it does not skip indexes from the pool's end.
TEST(WritersTest, TheFamilysSkipRuleDecidesWhichNegativeSlotsWrite) {
  std::vector<uint8_t> cache(8 * kHead, kPoisonByte);
  CacheView view;
  view.bytes = cache.data();
  view.slots = 8;
  view.page_slots = 2;
  view.head_bytes = kHead;
  const std::vector<int64_t> slots = {-1, -2, 5, 8};  // 8 is past the pool: never written
  auto written = [&](uint8_t rule) {
    WriterJob job{slots.data(), 4, 0};
    job.skip_rule = rule;
    std::vector<int64_t> out;
    for (int64_t t = 0; t < 4; ++t) out.push_back(WrittenSlot(view, job, t));
    return out;
  };
  EXPECT_EQ((std::vector<int64_t>{-1, -1, 5, -1}), written(kSkipNegative));
  EXPECT_EQ((std::vector<int64_t>{-1, 6, 5, -1}), written(kSkipMinusOne));
  EXPECT_EQ((std::vector<int64_t>{7, 6, 5, -1}), written(kSkipNone));
  // The host writer writes exactly there.
  WriterJob job{slots.data(), 4, 0};
  job.skip_rule = kSkipNone;
  RunWriterOnHost(WriterKind::kPaged, view, job);
  EXPECT_EQ(PayloadWord(0, 0, 0), Word(cache, 7, 0));
  EXPECT_EQ(PayloadWord(1, 0, 0), Word(cache, 6, 0));
  EXPECT_EQ(PayloadWord(2, 0, 0), Word(cache, 5, 0));
  EXPECT_EQ(PoisonWord(), Word(cache, 4, 0));
}

// SGLang's buffer is zeroed and only the live tokens filled in (pad_value 0):
// the dummy's tokens (3, 4) and the padding (6) write slot 0, the sink's, and
// write_set expects exactly that. A kernel that gives the dummy -1 instead
// writes the pool's last slot, 31 (16 pages of 2), as set_kv_buffer's
// buffer[-1] does (the writer skips nothing): write_set finds the stray
// payload there and negative_lands names the landing.
TEST(MemoryInvariantsTest, WriteSetFollowsTheWritersSkipRule) {
  Scenario s;
  std::string err;
  ASSERT_TRUE(LoadScenarioFile(std::string(SLOTGUARD_SOURCE_DIR) +
                                   "/scenarios/engines/sglang_out_cache_loc/prefill-dummy-padding.json",
                               LoadLimits(), &s, &err))
      << err;
  for (const bool minus_one : {false, true}) {
    const std::vector<int64_t> mapping =
        minus_one ? std::vector<int64_t>{10, 11, 18, -1, -1, 8, 0} : std::vector<int64_t>{10, 11, 18, 0, 0, 8, 0};
    ScenarioRun run;
    run.kernel.resize(1);
    GroupOutputs& g = run.kernel[0];
    g.engine = {mapping};
    g.read_past_row.assign(mapping.size(), 0);
    g.head_bytes = kHead;
    CacheView view = CacheGeometry(s, s.groups[0], kHead);
    ASSERT_EQ(32, view.slots);
    FillInitialCache(view, &g.cache);
    view.bytes = g.cache.data();
    WriterJob job = WriterJobFor(s.groups[0], 0, mapping.data(), 7, 0);
    EXPECT_EQ(kSkipNone, job.skip_rule);
    EXPECT_EQ(kLandIndex, job.negative);
    RunWriterOnHost(WriterFor(s.groups[0], 0), view, job);
    EXPECT_EQ(minus_one ? PayloadWord(4, 0, 0) : PoisonWord(), Word(g.cache, 31, 0));  // the last write wins
    EXPECT_EQ(PayloadWord(6, 0, 0), Word(g.cache, 0, 0));
    CheckKernelOutputs(s, 16, &run);
    const auto& counts = run.findings[0].counts();
    EXPECT_EQ(minus_one ? 1u : 0u, counts.count("write_set")) << minus_one;
    EXPECT_EQ(minus_one ? 1u : 0u, counts.count("negative_lands")) << minus_one;
    EXPECT_EQ(0u, counts.count("null_bytes")) << "slot 0 is the sink's, written by tokens that own no state";
  }
}

// The memory invariants over a pool that `mapping` produced.
ScenarioRun CheckPool(const Scenario& s, const std::vector<int64_t>& mapping,
                      void (*tamper)(std::vector<uint8_t>*) = nullptr) {
  ScenarioRun run;
  run.kernel.resize(1);
  GroupOutputs& g = run.kernel[0];
  g.engine = {mapping};
  g.read_past_row.assign(mapping.size(), 0);
  g.head_bytes = kHead;
  CacheView view = CacheGeometry(s, s.groups[0], kHead);
  FillInitialCache(view, &g.cache);
  view.bytes = g.cache.data();
  RunWriterOnHost(WriterFor(s.groups[0], 0), view, WriterJob{mapping.data(), static_cast<int64_t>(mapping.size()), 0});
  if (tamper) tamper(&g.cache);
  CheckKernelOutputs(s, 16, &run);
  return run;
}

int64_t Count(const ScenarioRun& run, const std::string& invariant) {
  auto it = run.findings[0].counts().find(invariant);
  return it == run.findings[0].counts().end() ? 0 : it->second;
}

TEST(MemoryInvariantsTest, CorrectPoolHasNoMemoryFindings) {
  const ScenarioRun run = CheckPool(Parse(kThreeTokens), {8, 9, 10});
  EXPECT_EQ(0, run.findings[0].total());
}

TEST(MemoryInvariantsTest, ATokenRoutedToBlockZeroIsNamedByItsPayload) {
  // Token 1 written to slot 1 instead of 9: block 0 dirty (null_bytes), slot 1
  // holds what no token should write there and slot 9 was never written
  // (write_set, twice).
  const ScenarioRun run = CheckPool(Parse(kThreeTokens), {8, 1, 10});
  EXPECT_EQ(1, Count(run, "null_bytes"));
  EXPECT_EQ(2, Count(run, "write_set"));
  bool named = false, missing = false;
  for (const Finding& f : run.findings[0].kept()) {
    if (f.invariant == "null_bytes") {
      EXPECT_EQ(1, f.token);
      EXPECT_EQ("slot 1 (block 0): block 0 holds token 1's payload (word 0); it must stay zero", f.detail);
      named = true;
    }
    if (f.invariant == "write_set" && f.detail.find("slot 9 ") == 0) {
      EXPECT_EQ("slot 9 (block 2): word 0 holds poison; expected token 1's payload (the reference maps it here)",
                f.detail);
      missing = true;
    }
  }
  EXPECT_TRUE(named);
  EXPECT_TRUE(missing);
}

TEST(MemoryInvariantsTest, AStrayByteOutsideTheWriteSetIsFound) {
  const ScenarioRun run = CheckPool(Parse(kThreeTokens), {8, 9, 10},
                                    [](std::vector<uint8_t>* cache) { (*cache)[12 * kHead + 3] = 0; });
  EXPECT_EQ(0, Count(run, "null_bytes"));
  ASSERT_EQ(1, Count(run, "write_set"));
  EXPECT_EQ("slot 12 (block 3): holds 0xa5a5a5a500a5a5a5; the reference maps no token here, so it must still hold poison",
            run.findings[0].kept()[0].detail);
}

TEST(MemoryInvariantsTest, AByteInBlockZeroFailsBoth) {
  const ScenarioRun run = CheckPool(Parse(kThreeTokens), {8, 9, 10},
                                    [](std::vector<uint8_t>* cache) { (*cache)[2 * kHead + 9] = 1; });
  EXPECT_EQ(1, Count(run, "null_bytes"));
  EXPECT_EQ(1, Count(run, "write_set"));
}

TEST(MemoryInvariantsTest, TokensSharingASlotMayInterleaveWordByWord) {
  // kpool 2, positions 0, 1, 2 on block 1: slots 2, 3, 2. Tokens 0 and 2
  // share slot 2; on the GPU their words may interleave: word 0 from token 0,
  // word 1 from token 2 is a legal result, a word from token 1 is not.
  const Scenario s = Parse(R"({"slotguard": 1, "name": "wrap", "num_blocks": 3,
    "batch": {"query_start_loc": [0, 3], "positions": [0, 1, 2]},
    "groups": [{"name": "tail", "kernel": "kpool_tail", "kpool": 2, "block_table": [[1]]}]})");
  auto interleave = [](std::vector<uint8_t>* cache) {
    const uint64_t w0 = PayloadWord(0, 0, 0), w1 = PayloadWord(2, 0, 1);
    std::memcpy(cache->data() + 2 * kHead, &w0, 8);
    std::memcpy(cache->data() + 2 * kHead + 8, &w1, 8);
  };
  EXPECT_EQ(0, CheckPool(s, {2, 3, 2}, interleave).findings[0].total());
  auto foreign = [](std::vector<uint8_t>* cache) {
    const uint64_t w = PayloadWord(1, 0, 1);
    std::memcpy(cache->data() + 2 * kHead + 8, &w, 8);
  };
  EXPECT_EQ(1, Count(CheckPool(s, {2, 3, 2}, foreign), "write_set"));
}

}  // namespace
}  // namespace slotguard
