// Per-output rules and where a write lands (docs/family-format.md, "Outputs"
// and "Where a write lands"): each output's own dummy rule and writer, the
// writer's negative-slot landing judged by negative_lands, a pad value of 0
// under a sink, the caller's entry transform and the writer's token test.
// Every expected slot and finding is worked out by hand below.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "backend/backend.h"
#include "registry/families.h"
#include "runner/scenario_run.h"
#include "testing/scenario_fixtures.h"

namespace slotguard {
namespace {

constexpr int32_t kHead = 16;

// Registers a user family once per process (the registry refuses a name twice).
void Register(const std::string& name, const std::string& text) {
  Family f;
  std::string err;
  if (FindFamily(name, &f, &err)) return;
  ASSERT_TRUE(RegisterFamilyText(text, name + ".json", &err)) << err;
}

ScenarioRun RunWithWriters(const std::string& scenario_text) {
  const Scenario s = ParseTestScenario(scenario_text);
  std::unique_ptr<Backend> host = MakeHostBackend();
  WriterOptions writers;
  writers.head_bytes = kHead;
  host->set_writers(writers);
  ScenarioRun run;
  std::string err;
  EXPECT_TRUE(RunScenario(s, *host, 1000, &run, &err)) << err;
  return run;
}

std::map<std::string, int64_t> Fired(const ScenarioRun& run, size_t group = 0) {
  std::map<std::string, int64_t> out;
  if (group < run.findings.size())
    for (const auto& [name, count] : run.findings[group].counts()) out[name] = count;
  return out;
}

// Two outputs of one mapping, slot = entry * 4 + pos % 4, column pos / 4:
// the group's own (context: i < q - 1) and "query" (the last token). Both
// read a dummy's row (dummy "row"); the context writer is not run for
// dummies, the query writer is.
const char kTwoOutputs[] = R"({"slotguard_family": 1, "name": "two_outputs", "meaning": "m",
  "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 4}],
  "dummy": "row", "column": "pos / block_size", "offset": "pos % block_size", "page": "block_size",
  "outputs": [
    {"name": "", "select": ["i < q - 1"], "writer": {"kind": "paged", "dummies": "skip"}},
    {"name": "query", "select": ["i >= q - 1"]}],
  "null_page": "pristine"})";

// A dummy request (idx_mapping -1) of 3 tokens at positions 0..2 on a zero
// row: context tokens 0, 1 map to slots 0, 1 and query token 2 to slot 2,
// all in block 0 (hazards: null_block, in both outputs). Only the query
// writer runs for a dummy: block 0 takes token 2's write (null_bytes once);
// the context writes never happen.
const char kDummyRun[] = R"({"slotguard": 1, "name": "dummy-run", "num_blocks": 4,
  "batch": {"query_start_loc": [0, 3], "positions": [0, 1, 2], "idx_mapping": [-1]},
  "groups": [{"name": "d", "kernel": "two_outputs", "block_size": 4, "block_table": [[0]]}]})";

TEST(OutputWritersTest, EachOutputHasItsOwnWriterAndHazardsAreJudgedPerOutput) {
  Register("two_outputs", kTwoOutputs);
  const ScenarioRun run = RunWithWriters(kDummyRun);
  ASSERT_EQ(2u, run.reference[0].size());
  EXPECT_EQ((std::vector<int64_t>{0, 1, -1}), run.reference[0][0]);
  EXPECT_EQ((std::vector<int64_t>{-1, -1, 2}), run.reference[0][1]);
  const auto fired = Fired(run);
  EXPECT_EQ(3, fired.count("null_block") ? fired.at("null_block") : 0) << "two context hazards, one query hazard";
  ASSERT_EQ(1u, fired.count("null_bytes"));
  EXPECT_EQ(1, fired.at("null_bytes")) << "the query writer wrote slot 2; the context writer skipped the dummy";
  for (const Finding& f : run.findings[0].kept())
    if (f.invariant == std::string("null_bytes")) EXPECT_EQ(2, f.token);
  EXPECT_EQ(0u, fired.count("write_set")) << "the writes are exactly what the per-output writers say";
}

// A live request's tokens through the same family: both writers write, the
// context slots and the query slot land in block 1, and nothing fires.
TEST(OutputWritersTest, ALiveRequestWritesBothOutputs) {
  Register("two_outputs", kTwoOutputs);
  const ScenarioRun run = RunWithWriters(R"({"slotguard": 1, "name": "live", "num_blocks": 4,
    "batch": {"query_start_loc": [0, 3], "positions": [0, 1, 2]},
    "groups": [{"name": "d", "kernel": "two_outputs", "block_size": 4, "block_table": [[1]]}]})");
  EXPECT_EQ((std::vector<int64_t>{4, 5, -1}), run.reference[0][0]);
  EXPECT_EQ((std::vector<int64_t>{-1, -1, 6}), run.reference[0][1]);
  EXPECT_TRUE(Fired(run).empty());
}

// A mapping that gives -5 to every token (offset -5 from entry 0), with a
// writer that skips only -1. The pool is 4 blocks of 4 slots (16 slots).
std::string NegativeFamily(const std::string& name, const std::string& negative, const std::string& null_page) {
  return R"({"slotguard_family": 1, "name": ")" + name + R"(", "meaning": "m",
    "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 4}],
    "column": "0", "offset": "-5", "page": "block_size", "null_page": ")" + null_page + R"(",
    "writer": {"kind": "paged", "skip": "slot == -1", "negative": ")" + negative + R"("}})";
}

std::string OneToken(const std::string& family, int32_t entry) {
  return R"({"slotguard": 1, "name": "neg", "num_blocks": 4,
    "batch": {"query_start_loc": [0, 1], "positions": [0]},
    "groups": [{"name": "g", "kernel": ")" + family + R"(", "block_size": 4, "block_table": [[)" +
         std::to_string(entry) + "]]}]}";
}

TEST(NegativeLandsTest, ATensorIndexLandsFromThePoolsEndInABlockTheRequestDoesNotOwn) {
  // Entry 0: slot 0 * 4 - 5 = -5, written as cache[-5] = slot 16 - 5 = 11, in
  // block 2, which the request (row [0]) does not own.
  Register("neg_index", NegativeFamily("neg_index", "index", "pristine"));
  const ScenarioRun run = RunWithWriters(OneToken("neg_index", 0));
  EXPECT_EQ((std::vector<int64_t>{-5}), run.reference[0][0]);
  const auto fired = Fired(run);
  ASSERT_EQ(1u, fired.count("negative_lands"));
  for (const Finding& f : run.findings[0].kept())
    if (f.invariant == std::string("negative_lands")) {
      EXPECT_NE(std::string::npos, f.detail.find("lands in slot 11")) << f.detail;
      EXPECT_NE(std::string::npos, f.detail.find("block entry 2")) << f.detail;
    }
}

TEST(NegativeLandsTest, ATensorIndexIntoTheRequestsOwnBlockIsNoFinding) {
  // Column 0 holds entry 0 again (slot -5, written at 11, block 2), but the
  // row is now [0, 2]: the landing block is the request's own.
  Register("neg_index", NegativeFamily("neg_index", "index", "pristine"));
  const ScenarioRun run = RunWithWriters(R"({"slotguard": 1, "name": "own", "num_blocks": 4,
    "batch": {"query_start_loc": [0, 1], "positions": [0]},
    "groups": [{"name": "g", "kernel": "neg_index", "block_size": 4, "block_table": [[0, 2]]}]})");
  EXPECT_EQ(0u, Fired(run).count("negative_lands"));
}

TEST(NegativeLandsTest, PointerArithmeticLandsBeforeThePool) {
  Register("neg_pointer", NegativeFamily("neg_pointer", "pointer", "pristine"));
  const ScenarioRun run = RunWithWriters(OneToken("neg_pointer", 0));
  const auto fired = Fired(run);
  ASSERT_EQ(1u, fired.count("negative_lands"));
  for (const Finding& f : run.findings[0].kept())
    if (f.invariant == std::string("negative_lands"))
      EXPECT_NE(std::string::npos, f.detail.find("before the pool")) << f.detail;
  EXPECT_EQ(0u, fired.count("write_set")) << "nothing before the pool is written into slotguard's pool";
}

TEST(NegativeLandsTest, AClampLandsInBlockZero) {
  // clamp_min(0): -5 becomes slot 0, in block 0 of a pristine pool: a
  // finding, and a write (null_bytes).
  Register("neg_clamp", NegativeFamily("neg_clamp", "clamp0", "pristine"));
  const ScenarioRun run = RunWithWriters(OneToken("neg_clamp", 0));
  const auto fired = Fired(run);
  ASSERT_EQ(1u, fired.count("negative_lands"));
  for (const Finding& f : run.findings[0].kept())
    if (f.invariant == std::string("negative_lands"))
      EXPECT_NE(std::string::npos, f.detail.find("block 0")) << f.detail;
  EXPECT_EQ(1u, fired.count("null_bytes"));
}

TEST(NegativeLandsTest, AWriterThatSkipsNegativeSlotsIsNeverJudged) {
  Register("neg_skips", R"({"slotguard_family": 1, "name": "neg_skips", "meaning": "m",
    "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 4}],
    "column": "0", "offset": "-5", "page": "block_size"})");
  const ScenarioRun run = RunWithWriters(OneToken("neg_skips", 0));
  EXPECT_EQ(0u, Fired(run).count("negative_lands"));
  EXPECT_EQ(0u, Fired(run).count("null_bytes"));
}

// SGLang's convention: the buffer is zeroed and live tokens filled in, so a
// dummy's token holds 0 and writes slot 0 of the sink; a -1 would index the
// pool's last slot.
const char kZeroPad[] = R"({"slotguard_family": 1, "name": "zero_pad", "meaning": "m",
  "params": [{"name": "page_size", "meaning": "p", "min": 1, "example": 1}],
  "column": "pos", "offset": "0", "page": "1", "manager_page": "page_size",
  "tail": {"from": "num_real_tokens", "value": "null_slot"}, "pad_value": 0,
  "null_page": "sink", "writer": {"kind": "paged", "skip": "none"}})";

TEST(PadValueTest, AZeroedBufferPadsWithSlotZeroOfTheSink) {
  Register("zero_pad", kZeroPad);
  // Request 0 live (row [5, 6]: slots 5, 6); request 1 a dummy: 0; token 3 padding: 0.
  const ScenarioRun run = RunWithWriters(R"({"slotguard": 1, "name": "zp", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 2, 3], "positions": [0, 1, 0, 0], "num_tokens": 4, "idx_mapping": [0, -1]},
    "groups": [{"name": "g", "kernel": "zero_pad", "page_size": 1, "block_table": [[5, 6], [0, 0]]}]})");
  EXPECT_EQ((std::vector<int64_t>{5, 6, 0, 0}), run.reference[0][0]);
  EXPECT_TRUE(Fired(run).empty());
}

TEST(PadValueTest, AMinusOneInAZeroedBufferIsPadExactsAndLandsInTheLastSlot) {
  Register("zero_pad", kZeroPad);
  // The same batch, judged against a kernel output planted by hand that
  // gives the dummy's token -1, as the old description did.
  const Scenario s = ParseTestScenario(R"({"slotguard": 1, "name": "zp", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 2, 3], "positions": [0, 1, 0, 0], "num_tokens": 4, "idx_mapping": [0, -1]},
    "groups": [{"name": "g", "kernel": "zero_pad", "page_size": 1, "block_table": [[5, 6], [0, 0]]}]})");
  ScenarioRun run;
  run.kernel.resize(1);
  run.kernel[0].engine = {{5, 6, -1, 0}};
  run.kernel[0].read_past_row.assign(4, 0);
  CheckKernelOutputs(s, 16, &run);
  const auto fired = Fired(run);
  EXPECT_EQ(1u, fired.count("pad_exact"));
  EXPECT_EQ(1u, fired.count("negative_lands")) << "-1 as a tensor index is slot 7, a block no request owns";
  EXPECT_EQ(1u, fired.count("differential"));
}

// The caller's clamp of the table (DeepSeek-V4's sparse-MLA builder,
// clamp_(min=0)): a -1 entry becomes block 0, where the token then lands.
TEST(EntryMapTest, TheCallersClampSendsAMinusOneEntryToBlockZero) {
  Register("clamped", R"J({"slotguard_family": 1, "name": "clamped", "meaning": "m",
    "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 4}],
    "column": "pos / block_size", "offset": "pos % block_size", "page": "block_size",
    "pad_entry": "entry < 0",
    "variants": [{"name": "clamp", "meaning": "the caller clamps", "set": {"entry_map": "max(entry, 0)"}}]})J");
  const std::string scenario = R"({"slotguard": 1, "name": "c", "num_blocks": 4,
    "batch": {"query_start_loc": [0, 2], "positions": [1, 2]},
    "groups": [{"name": "g", "kernel": "clamped", "block_size": 4, "block_table": [[-1]]VARIANT}]})";
  // The description: entry -1 is PAD for both tokens.
  std::string fixed = scenario;
  fixed.replace(fixed.find("VARIANT"), 7, "");
  EXPECT_EQ((std::vector<int64_t>{-1, -1}), RunWithWriters(fixed).reference[0][0]);
  // The clamp: entry 0, slots 1 and 2, in block 0.
  std::string clamp = scenario;
  clamp.replace(clamp.find("VARIANT"), 7, R"(, "variant": "clamp")");
  const ScenarioRun run = RunWithWriters(clamp);
  EXPECT_EQ((std::vector<int64_t>{1, 2}), run.kernel[0].engine[0]);
  EXPECT_EQ(2, Fired(run).at("null_block"));
}

// A writer's own token test (DeepSeek-V4's compressed writers skip a token
// unless (positions[t] + 1) % compress_ratio == 0): a hazard the writer never
// writes.
TEST(WriterTokenTest, TheWritersOwnTokenTestKeepsAHazardOutOfMemory) {
  Register("token_test", R"({"slotguard_family": 1, "name": "token_test", "meaning": "m",
    "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 4}],
    "dummy": "row", "column": "0", "offset": "pos % block_size", "page": "block_size",
    "writer": {"kind": "paged", "skip_token_if": "(pos + 1) % 4 != 0"}})");
  // A dummy on a zero row, positions 2 and 3: both map into block 0 (slots 2,
  // 3: null_block twice); only position 3 passes the writer's test, so one write.
  const ScenarioRun run = RunWithWriters(R"({"slotguard": 1, "name": "w", "num_blocks": 4,
    "batch": {"query_start_loc": [0, 2], "positions": [2, 3], "idx_mapping": [-1]},
    "groups": [{"name": "g", "kernel": "token_test", "block_size": 4, "block_table": [[0]]}]})");
  const auto fired = Fired(run);
  EXPECT_EQ(2, fired.at("null_block"));
  ASSERT_EQ(1u, fired.count("null_bytes"));
  for (const Finding& f : run.findings[0].kept())
    if (f.invariant == std::string("null_bytes")) EXPECT_EQ(1, f.token);
}


// TensorRT-LLM's convention: no null block; CUDA-graph padding is a real
// dummy request, repeated for every padded entry, that owns real pages.
const char kRequestSink[] = R"({"slotguard_family": 1, "name": "request_sink", "meaning": "m",
  "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 4}],
  "dummy": "row", "column": "pos / block_size", "offset": "pos % block_size", "page": "block_size",
  "null_page": "request"})";

TEST(RequestSinkTest, PaddedEntriesShareTheDummysPagesAndBlockZeroIsAnOrdinaryBlock) {
  Register("request_sink", kRequestSink);
  // Request 0 live on block 0 (an ordinary block here): slots 0, 1. Requests
  // 1 and 2 are the dummy, twice, on its page 5: both write slot 20.
  const ScenarioRun run = RunWithWriters(R"({"slotguard": 1, "name": "trt", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 2, 3, 4], "positions": [0, 1, 0, 0], "idx_mapping": [0, -1, -1]},
    "groups": [{"name": "g", "kernel": "request_sink", "block_size": 4, "block_table": [[0], [5], [5]]}]})");
  EXPECT_EQ((std::vector<int64_t>{0, 1, 20, 20}), run.reference[0][0]);
  EXPECT_TRUE(Fired(run).empty());
}

TEST(RequestSinkTest, ALiveTokenNeverWritesTheDummysPage) {
  Register("request_sink", kRequestSink);
  // Request 0's row names the dummy's page 5 (a runner that handed the
  // dummy's page to a live request): its token writes slot 20, own_block.
  const ScenarioRun run = RunWithWriters(R"({"slotguard": 1, "name": "trt-live", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 1, 2], "positions": [0, 0], "idx_mapping": [0, -1]},
    "groups": [{"name": "g", "kernel": "request_sink", "block_size": 4, "block_table": [[5], [5]]}]})");
  const auto fired = Fired(run);
  ASSERT_EQ(1u, fired.count("own_block"));
  EXPECT_EQ(1, fired.at("own_block"));
  for (const Finding& f : run.findings[0].kept())
    if (f.invariant == std::string("own_block")) {
      EXPECT_EQ(0, f.token);
      EXPECT_NE(std::string::npos, f.detail.find("dummy request")) << f.detail;
    }
}


// A described variant without its range guard (range "none") reads past the
// row as the engine's kernel does: the read is recorded, and row_bounds
// names it, while the description itself (range pad) gives PAD.
TEST(DescribedReadsTest, AVariantWithoutItsRangeGuardReadsPastTheRow) {
  Register("unguarded_desc", R"({"slotguard_family": 1, "name": "unguarded_desc", "meaning": "m",
    "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 4}],
    "column": "pos / block_size", "offset": "pos % block_size", "page": "block_size",
    "variants": [{"name": "no_guard", "meaning": "no range guard", "set": {"range": "none"}}]})");
  // Row [3, 5]: position 9 addresses column 2, past the row.
  const std::string text = R"({"slotguard": 1, "name": "past", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 1], "positions": [9]},
    "groups": [{"name": "g", "kernel": "unguarded_desc", "block_size": 4, "block_table": [[3, 5]]VARIANT}]})";
  std::string fixed = text, variant = text;
  fixed.replace(fixed.find("VARIANT"), 7, "");
  variant.replace(variant.find("VARIANT"), 7, R"(, "variant": "no_guard")");
  EXPECT_TRUE(Fired(RunWithWriters(fixed)).empty());
  const auto fired = Fired(RunWithWriters(variant));
  ASSERT_EQ(1u, fired.count("row_bounds"));
  EXPECT_EQ(1, fired.at("row_bounds"));
}

// A group with no cache (vLLM's encoder-only layers): every real token's
// slot is 0 (entry_map "0", offset 0), the padding -1. Two requests of 3 and
// 2 tokens on rows [5] and [6], two padding tokens: [0, 0, 0, 0, 0, -1, -1].
std::string CachelessFamily(const std::string& name, const std::string& null_page) {
  return R"({"slotguard_family": 1, "name": ")" + name + R"(", "meaning": "m",
    "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 4}],
    "column": "0", "entry_map": "0", "offset": "0", "page": "block_size", "null_page": ")" + null_page +
         R"(", "writer": "none"})";
}

std::string CachelessBatch(const std::string& family) {
  return R"({"slotguard": 1, "name": "enc", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 3, 5], "positions": [0, 1, 2, 0, 1, 0, 0]},
    "groups": [{"name": "g", "kernel": ")" + family + R"(", "block_size": 4, "block_table": [[5], [6]]}]})";
}

TEST(NoCacheTest, ACachelessGroupsZeroSlotsAreNoFinding) {
  // null_page "no_cache": only the output is judged, and it is the reference's.
  Register("cacheless", CachelessFamily("cacheless", "no_cache"));
  const ScenarioRun run = RunWithWriters(CachelessBatch("cacheless"));
  EXPECT_EQ((std::vector<int64_t>{0, 0, 0, 0, 0, -1, -1}), run.reference[0][0]);
  EXPECT_TRUE(Fired(run).empty());
}

TEST(NoCacheTest, TheSameZerosInACacheGroupAreFindings) {
  // The same mapping judged as a cache's ("none": block 0 a block like any
  // other, nothing written): tokens of r0 and r1 share slot 0 (unique_slots),
  // and block 0 is in neither row [5] nor [6] (own_block, five tokens).
  Register("zeros_cache", CachelessFamily("zeros_cache", "none"));
  const ScenarioRun run = RunWithWriters(CachelessBatch("zeros_cache"));
  EXPECT_EQ((std::vector<int64_t>{0, 0, 0, 0, 0, -1, -1}), run.reference[0][0]);
  const auto fired = Fired(run);
  EXPECT_EQ(1u, fired.count("unique_slots"));
  ASSERT_EQ(1u, fired.count("own_block"));
  EXPECT_EQ(5, fired.at("own_block"));
  EXPECT_EQ(0u, fired.count("null_bytes")) << "nothing writes through it";
}

}  // namespace
}  // namespace slotguard
