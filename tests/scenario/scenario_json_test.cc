// Loader tests: every malformed input is one exact line with its pointer
// (compared as whole strings, like ninja's parser tests); valid input gets
// its defaults derived as docs/scenario-format.md says.
#include "family/group_model.h"
#include "scenario/found_by.h"
#include "scenario/scenario_json.h"

#include <gtest/gtest.h>

#include <string>

namespace slotguard {
namespace {

// A minimal valid scenario; tests splice one field in or out.
std::string Doc(const std::string& batch = R"({"query_start_loc": [0, 2, 3], "seq_lens": [5, 1]})",
                const std::string& groups =
                    R"([{"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[1, 2], [3, 0]]}])",
                const std::string& extra = "") {
  return R"({"slotguard": 1, "name": "t", "num_blocks": 8, "batch": )" + batch +
         R"(, "groups": )" + groups + extra + "}";
}

class ScenarioJsonTest : public ::testing::Test {
 protected:
  void AssertLoads(const std::string& text, Scenario* s = nullptr) {
    Scenario local;
    std::string err;
    ASSERT_TRUE(ParseScenario(text, "x.json", limits_, s ? s : &local, &err)) << err;
  }
  void AssertError(const std::string& text, const std::string& expected) {
    Scenario s;
    std::string err;
    ASSERT_FALSE(ParseScenario(text, "x.json", limits_, &s, &err)) << "loaded: " << text;
    EXPECT_EQ(expected, err);
  }
  LoadLimits limits_;
};

TEST_F(ScenarioJsonTest, LoadsTheMinimalScenario) {
  Scenario s;
  AssertLoads(Doc(), &s);
  EXPECT_EQ("t", s.name);
  ASSERT_EQ(1u, s.groups.size());
  EXPECT_EQ(Family::kPaged, s.groups[0].family);
  EXPECT_EQ(Variant::kPagedFixed, s.groups[0].variant);
  EXPECT_EQ(4, ParamOf(s.groups[0], "kernel_block_size"));  // defaults to block_size
  EXPECT_EQ(2, s.groups[0].table.width);
  EXPECT_FALSE(s.expect.present);
}

TEST_F(ScenarioJsonTest, DerivesPositionsFromSeqLens) {
  Scenario s;
  AssertLoads(Doc(R"({"query_start_loc": [0, 2, 3], "seq_lens": [5, 1], "num_tokens": 5})"), &s);
  // seq_len - q + i, padding 0
  EXPECT_EQ((std::vector<int64_t>{3, 4, 0, 0, 0}), s.batch.positions);
  EXPECT_EQ(3, s.batch.num_actual_tokens);
  EXPECT_EQ(5, s.batch.num_tokens);
  EXPECT_EQ((std::vector<int32_t>{0, 1}), s.batch.idx_mapping);
  EXPECT_EQ((std::vector<int64_t>(5, -1)), s.batch.slot_mapping_in);
}

TEST_F(ScenarioJsonTest, DerivesSeqLensFromPositions) {
  Scenario s;
  AssertLoads(Doc(R"({"query_start_loc": [0, 2, 2, 3], "positions": [7, 8, 0, 0]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[1, 2, 3], [0, 0, 0], [4, 0, 0]]}])"),
              &s);
  EXPECT_EQ((std::vector<int64_t>{9, 0, 1}), s.batch.seq_lens);  // last position + 1; 0 when empty
  EXPECT_EQ(4, s.batch.num_tokens);                              // len(positions)
  EXPECT_EQ(3, s.batch.num_actual_tokens);                       // qsl[R]
}

TEST_F(ScenarioJsonTest, PrefillFromZeroWhenNeitherPositionsNorSeqLens) {
  Scenario s;
  AssertLoads(Doc(R"({"query_start_loc": [0, 2, 3]})"), &s);
  EXPECT_EQ((std::vector<int64_t>{2, 1}), s.batch.seq_lens);
  EXPECT_EQ((std::vector<int64_t>{0, 1, 0}), s.batch.positions);
}

TEST_F(ScenarioJsonTest, BlockZeroAndMinusOneAreValidInput) {
  AssertLoads(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[0, -1]]}])"));
}

TEST_F(ScenarioJsonTest, NotJson) {
  AssertError("{\"slotguard\": 1,\n \"name\": }",
              "x.json: invalid JSON at line 2, column 10: syntax error while parsing value - "
              "unexpected '}'; expected '[', '{', or a literal; expected a scenario object");
  AssertError("", "x.json: invalid JSON at line 1, column 1: syntax error while parsing value - "
                  "unexpected end of input; expected '[', '{', or a literal; expected a scenario object");
}

TEST_F(ScenarioJsonTest, RootMustBeAnObject) {
  AssertError("[1, 2]", "x.json:/: wrong type; expected a scenario object, got an array of 2 elements");
}

TEST_F(ScenarioJsonTest, MissingRequiredKeys) {
  AssertError(R"({"slotguard": 1, "name": "t", "batch": {}, "groups": []})",
              "x.json:/num_blocks: missing required key; expected an integer >= 1");
  AssertError(Doc(R"({"seq_lens": [1]})"),
              "x.json:/batch/query_start_loc: missing required key; expected an array of num_reqs + 1 integers");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})", R"([{"name": "a", "kernel": "paged", "block_table": [[1]]}])"),
              "x.json:/groups/0/block_size: missing required key; expected an integer >= 1");
}

TEST_F(ScenarioJsonTest, UnknownKeysSuggestTheClosestName) {
  AssertError(Doc(R"({"query_start_loc": [0, 2, 3], "postions": [1, 2, 3]})"),
              "x.json:/batch/postions: unknown key 'postions', did you mean 'positions'?; expected one of "
              "query_start_loc, seq_lens, positions, num_actual_tokens, num_tokens, idx_mapping, slot_mapping_in, table_rows, inputs, dummy_run");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 4, "kpool": 4, "block_table": [[1]]}])"),
              "x.json:/groups/0/kpool: key 'kpool' does not apply to kernel paged; expected one of "
              "name, kernel, variant, block_table, block_size, kernel_block_size, dcp, enabled");
}

TEST_F(ScenarioJsonTest, DuplicateKeysAreNamed) {
  AssertError(Doc(R"({"query_start_loc": [0, 1], "query_start_loc": [0, 1]})"),
              "x.json:/batch/query_start_loc: duplicate key 'query_start_loc'; expected each key once per object");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[1]]},
                      {"name": "b", "name": "c", "kernel": "paged", "block_size": 4, "block_table": [[1]]}])"),
              "x.json:/groups/1/name: duplicate key 'name'; expected each key once per object");
}

TEST_F(ScenarioJsonTest, WrongTypes) {
  AssertError(Doc(R"({"query_start_loc": [0, 1.5]})"),
              "x.json:/batch/query_start_loc/1: wrong type; expected query_start_loc as an integer, got 1.5");
  AssertError(Doc(R"({"query_start_loc": "0,1"})"),
              "x.json:/batch/query_start_loc: wrong type; expected an array of integers, got the string \"0,1\"");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 4, "enabled": 1, "block_table": [[1]]}])"),
              "x.json:/groups/0/enabled: wrong type; expected true or false, got 1");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [["1"]]}])"),
              "x.json:/groups/0/block_table/0/0: wrong type; expected a block id as an integer, got the string \"1\"");
  AssertError(R"({"slotguard": 3, "name": "t"})", "x.json:/slotguard: unsupported format version; expected 1 or 2, got 3");
}

// A per-request group's expected output has one entry per request (a state
// index), or per request and operation (a block operation); a copy's second
// output is NAME.dst.
TEST_F(ScenarioJsonTest, PerRequestOutputsHaveOneEntryPerRequestOrOperation) {
  const std::string batch = R"({"query_start_loc": [0, 1, 2, 2], "seq_lens": [12, 30, 0], "idx_mapping": [0, 1, -1]})";
  const std::string gdn = R"([{"name": "gdn", "kernel": "vllm_gdn", "block_size": 16, "block_table": [[5], [7], [0]]}])";
  AssertLoads(Doc(batch, gdn, R"(, "expect": {"slot_mapping": {"gdn": [5, 7, 0]}})"));
  AssertError(Doc(batch, gdn, R"(, "expect": {"slot_mapping": {"gdn": [5, 7, 0, 0]}})"),
              "x.json:/expect/slot_mapping/gdn: length disagrees with the number of requests (a state index per "
              "request); expected 3 entries, got 4");
  const std::string copy =
      R"([{"name": "copy", "kernel": "vllm_mamba_copy", "block_size": 16, "block_table": [[5, 6], [2, 3], [0, 0]]}])";
  AssertLoads(Doc(batch, copy, R"(, "expect": {"slot_mapping": {"copy": [-1, -1, -1], "copy.dst": [-1, -1, -1]}})"));
  AssertError(Doc(batch, copy, R"(, "expect": {"slot_mapping": {"copy": [-1, -1]}})"),
              "x.json:/expect/slot_mapping/copy: length disagrees with the number of requests times the operations "
              "per request; expected 3 entries, got 2");
}

TEST_F(ScenarioJsonTest, LengthsThatDisagree) {
  AssertError(Doc(R"({"query_start_loc": [0, 2, 3], "seq_lens": [5]})"),
              "x.json:/batch/seq_lens: length disagrees with the number of requests; expected 2 entries, got 1");
  AssertError(Doc(R"({"query_start_loc": [0, 2, 3], "positions": [1, 2, 3], "num_tokens": 4})"),
              "x.json:/batch/positions: length disagrees with num_tokens; expected 4 entries, got 3");
  AssertError(Doc(R"({"query_start_loc": [0, 2, 3], "slot_mapping_in": [-1]})"),
              "x.json:/batch/slot_mapping_in: length disagrees with num_tokens; expected 3 entries, got 1");
  AssertError(Doc(R"({"query_start_loc": [0, 2, 3], "positions": [1, 2]})"),
              "x.json:/batch/positions: fewer tokens than the requests hold; expected num_tokens >= qsl[R] (3), got 2");
  AssertError(Doc(R"({"query_start_loc": [0, 2, 3]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[1, 2]]}])"),
              "x.json:/groups/0/block_table: row count disagrees with the number of requests; expected 2 rows (one per request), got 1");
  AssertError(Doc(R"({"query_start_loc": [0, 2, 3]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[1, 2], [3]]}])"),
              "x.json:/groups/0/block_table/1: row length disagrees with row 0; expected 2 columns, got 1");
  AssertError(Doc(R"({"query_start_loc": [0, 2, 3], "num_actual_tokens": 4, "num_tokens": 3})"),
              "x.json:/batch/num_actual_tokens: num_actual_tokens exceeds num_tokens; expected <= 3, got 4");
}

TEST_F(ScenarioJsonTest, QueryStartLocMustStartAtZeroAndNotDecrease) {
  AssertError(Doc(R"({"query_start_loc": [1, 2, 3]})"),
              "x.json:/batch/query_start_loc/0: query_start_loc must start at 0; expected 0, got 1");
  AssertError(Doc(R"({"query_start_loc": [0, 3, 2]})"),
              "x.json:/batch/query_start_loc/2: query_start_loc decreases; expected >= 3 (the previous entry), got 2");
  AssertError(Doc(R"({"query_start_loc": []})"),
              "x.json:/batch/query_start_loc: empty query_start_loc; expected num_reqs + 1 entries starting at 0, got an empty array");
}

TEST_F(ScenarioJsonTest, BlockIdsOutOfRange) {
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[8]]}])"),
              "x.json:/groups/0/block_table/0/0: block id out of range; expected -1 <= id < num_blocks (8), got 8");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[-2]]}])"),
              "x.json:/groups/0/block_table/0/0: block id out of range; expected -1 <= id < num_blocks (8), got -2");
  // Hybrid: ids are kernel block ids, num_blocks * block_size / kernel_block_size of them.
  AssertLoads(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 4, "kernel_block_size": 2, "block_table": [[15]]}])"));
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 4, "kernel_block_size": 2, "block_table": [[16]]}])"),
              "x.json:/groups/0/block_table/0/0: block id out of range; expected -1 <= id < "
              "num_blocks * block_size / kernel_block_size (16), got 16");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[18446744073709551615]]}])"),
              "x.json:/groups/0/block_table/0/0: block id out of range; expected -1 <= id < num_blocks (8), got 18446744073709551615");
}

TEST_F(ScenarioJsonTest, SizesMustBePositive) {
  AssertError(R"({"slotguard": 1, "name": "t", "num_blocks": 0})",
              "x.json:/num_blocks: num_blocks out of range; expected 1 <= num_blocks <= 2147483647, got 0");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 0, "block_table": [[1]]}])"),
              "x.json:/groups/0/block_size: block_size out of range; expected 1 <= block_size <= 2147483647, got 0");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 16, "kernel_block_size": 5, "block_table": [[1]]}])"),
              "x.json:/groups/0/kernel_block_size: kernel_block_size does not divide block_size; expected a divisor of 16, got 5");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 16, "dcp": {"world": 2, "rank": 2}, "block_table": [[1]]}])"),
              "x.json:/groups/0/dcp/rank: rank out of range; expected 0 <= rank <= 1, got 2");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 16, "dcp": {"world": 2, "interleave": 3}, "block_table": [[1]]}])"),
              "x.json:/groups/0/dcp/interleave: interleave does not divide block_size; expected a divisor of 16, got 3");
  AssertError(Doc(R"({"query_start_loc": [0, 1], "seq_lens": [-1]})"),
              "x.json:/batch/seq_lens/0: seq_len out of range; expected 0 <= seq_len <= 4611686018427387904, got -1");
  AssertError(Doc(R"({"query_start_loc": [0, 2], "seq_lens": [1]})"),
              "x.json:/batch/seq_lens/0: seq_len shorter than the request's query length, so positions would "
              "be negative; expected seq_len >= 2 or explicit positions, got 1");
}

TEST_F(ScenarioJsonTest, ValuesPastInt32) {
  AssertError(Doc(R"({"query_start_loc": [0, 1], "positions": [4611686018427387904]})"),
              "x.json:/batch/positions/0: position out of range; expected 0 <= position <= 4611686018427387903, got "
              "4611686018427387904");
  AssertError(Doc(R"({"query_start_loc": [0, 2147483648]})"),
              "x.json:/batch/query_start_loc/1: query_start_loc past int32; expected 0 <= query_start_loc <= 2147483647, got 2147483648");
  AssertError(Doc(R"({"query_start_loc": [0, 1], "idx_mapping": [-2]})"),
              "x.json:/batch/idx_mapping/0: idx_mapping entry out of range; expected -1 <= idx_mapping entry <= 2147483647, got -2");
}

TEST_F(ScenarioJsonTest, DimensionsOverTheCaps) {
  limits_.max_tokens = 4;
  AssertError(Doc(R"({"query_start_loc": [0, 5]})"),
              "x.json:/batch/query_start_loc/1: too many tokens; expected at most 4 (raise with --max-tokens), got 5");
  AssertError(Doc(R"({"query_start_loc": [0, 1], "num_tokens": 5})"),
              "x.json:/batch/num_tokens: num_tokens out of range; expected 0 <= num_tokens <= 4, got 5");
  limits_ = LoadLimits();
  limits_.max_requests = 1;
  AssertError(Doc(R"({"query_start_loc": [0, 1, 2]})"),
              "x.json:/batch/query_start_loc: too many entries; expected at most 2 (raise with --max-requests), got 3");
  limits_ = LoadLimits();
  limits_.max_table_entries = 6;
  // 2 rows of 2 columns fit, but position 40 with block_size 4 selects column 10:
  // padded to 12 columns per row, 24 entries.
  AssertError(Doc(R"({"query_start_loc": [0, 1, 2], "positions": [40, 0]})"),
              "x.json:/groups/0/block_table: block table too large once padded to the farthest column a "
              "position selects; expected at most 6 entries (raise with --max-table-entries), got 24");
}

TEST_F(ScenarioJsonTest, UnknownNamesSuggest) {
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "pagd", "block_size": 4, "block_table": [[1]]}])"),
              "x.json:/groups/0/kernel: unknown kernel family 'pagd', did you mean 'paged'?; expected one of "
              "paged, kpool_tail, qsa_ring, qsa_compressed, compressor_ring, dflash, dsv4_compressed, eagle_step, "
              "eagle_step_chain, flashinfer_append, flashinfer_batch_indices, lmcache_vllm_adapter, sglang_mamba, sglang_out_cache_loc, trtllm_paged, "
              "vllm_encoder_only, vllm_extract_hidden_states, vllm_gather_block_tables, vllm_gdn, vllm_hisparse_compressed, vllm_lightning, vllm_mamba, vllm_mamba_copy, vllm_mamba_postcopy, vllm_offload_store, vllm_parallel_drafting, vllm_sliding_window");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "paged", "variant": "unguardd", "block_size": 4, "block_table": [[1]]}])"),
              "x.json:/groups/0/variant: unknown variant 'unguardd' of family paged, did you mean 'unguarded'?; "
              "expected one of fixed, unguarded, dummy_reads_row, pad_from_n, gathered_row");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[1]]},
                      {"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[2]]}])"),
              "x.json:/groups/1/name: duplicate group name 'a'; expected a name not used by /groups/0");
}

TEST_F(ScenarioJsonTest, Expectations) {
  Scenario s;
  AssertLoads(Doc(R"({"query_start_loc": [0, 2, 3]})", R"([{"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[1, 2], [3, 0]]}])",
                  R"(, "expect": {"verdict": "finding", "findings": ["null_block"], "slot_mapping": {"attn": [4, 5, 12]}})"),
              &s);
  EXPECT_TRUE(s.expect.present);
  EXPECT_EQ(Verdict::kFinding, s.expect.verdict);
  EXPECT_EQ(std::vector<std::string>{"null_block"}, s.expect.findings);
  EXPECT_EQ((std::vector<int64_t>{4, 5, 12}), s.expect.slot_mapping.at("attn"));

  AssertError(Doc(R"({"query_start_loc": [0, 2, 3]})", R"([{"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[1, 2], [3, 0]]}])",
                  R"(, "expect": {"verdict": "finding", "findings": ["null_blok"]})"),
              "x.json:/expect/findings/0: unknown invariant 'null_blok', did you mean 'null_block'?; expected one of "
              "differential, null_block, negative_lands, null_owner_pad, pad_exact, padding_tail, in_range, own_block, "
              "unique_slots, live_maps, row_bounds, window_reads, golden, pad_marker, skip_agrees, live_state, unique_state, state_writes, op_null_src, op_null_dst, op_foreign_dst, gathered_row, null_bytes, write_set, null_read, no_fault");
  AssertError(Doc(R"({"query_start_loc": [0, 2, 3]})", R"([{"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[1, 2], [3, 0]]}])",
                  R"(, "expect": {"findings": ["null_block"]})"),
              "x.json:/expect/findings: findings listed but the verdict is 'pass'; expected \"verdict\": \"finding\" beside them");
  AssertError(Doc(R"({"query_start_loc": [0, 2, 3]})", R"([{"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[1, 2], [3, 0]]}])",
                  R"(, "expect": {"slot_mapping": {"atn": [1, 2, 3]}})"),
              "x.json:/expect/slot_mapping/atn: no output named 'atn', did you mean 'attn'?; expected one of attn");
  AssertError(Doc(R"({"query_start_loc": [0, 2, 3]})", R"([{"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[1, 2], [3, 0]]}])",
                  R"(, "expect": {"slot_mapping": {"attn": [1, 2]}})"),
              "x.json:/expect/slot_mapping/attn: length disagrees with num_tokens; expected 3 entries, got 2");
  AssertError(Doc(R"({"query_start_loc": [0, 2, 3]})", R"([{"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[1, 2], [3, 0]]}])",
                  R"(, "expect": {"verdict": "fail"})"),
              "x.json:/expect/verdict: unknown verdict 'fail'; expected \"pass\" or \"finding\"");
}

TEST_F(ScenarioJsonTest, RingParameters) {
  Scenario s;
  AssertLoads(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[1]]},
                      {"name": "c", "kernel": "qsa_compressed", "block_size": 2, "compress_ratio": 4, "common": "attn", "block_table": [[1]]},
                      {"name": "c128", "kernel": "compressor_ring", "capacity": 8, "ring_block_size": 4, "block_table": [[1, 2]]}])",
                  R"(, "expect": {"slot_mapping": {"c128.tail": [-1]}})"),
              &s);
  EXPECT_EQ("attn", LinkOf(s.groups[1], "common"));
  EXPECT_EQ(8, ParamOf(s.groups[2], "capacity"));
  EXPECT_EQ((std::vector<int64_t>{-1}), s.expect.slot_mapping.at("c128.tail"));

  AssertError(Doc(R"({"query_start_loc": [0, 1]})", R"([{"name": "t", "kernel": "kpool_tail", "block_table": [[1]]}])"),
              "x.json:/groups/0/kpool: missing required key; expected an integer >= 1");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})", R"([{"name": "t", "kernel": "kpool_tail", "kpool": 4, "block_table": [[]]}])"),
              "x.json:/groups/0/block_table/0: row too narrow; expected 1 column (its family reads them unguarded: min_width 1), got 0");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "r", "kernel": "compressor_ring", "capacity": 8, "ring_block_size": 3, "block_table": [[1]]}])"),
              "x.json:/groups/0/ring_block_size: ring_block_size does not divide capacity; expected a divisor of 8, got 3");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "r", "kernel": "compressor_ring", "capacity": 8, "ring_block_size": 4, "block_table": [[1]]}])"),
              "x.json:/groups/0/block_table/0: row too narrow; expected 2 columns (its family reads them unguarded: min_width capacity / ring_block_size), got 1");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[1]]},
                      {"name": "c", "kernel": "qsa_compressed", "block_size": 2, "compress_ratio": 4, "common": "atn", "block_table": [[1]]}])"),
              "x.json:/groups/1/common: no group named 'atn', did you mean 'attn'?; expected the name of a paged group: attn");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[1]]},
                      {"name": "q", "kernel": "qsa_ring", "ring": 4, "block_table": [[1]]},
                      {"name": "c", "kernel": "qsa_compressed", "block_size": 2, "compress_ratio": 4, "common": "q", "block_table": [[1]]}])"),
              "x.json:/groups/2/common: group 'q' is not a paged group; expected the name of a paged group: attn, got a qsa_ring group");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})",
                  R"([{"name": "c", "kernel": "qsa_compressed", "block_size": 2, "compress_ratio": 4, "common": "c", "block_table": [[1]]}])"),
              "x.json:/groups/0/common: group 'c' is not a paged group; expected a paged group in this scenario (there is none), got a qsa_compressed group");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})", R"([{"name": "t", "kernel": "kpool_tail", "kpool": 4, "ring": 4, "block_table": [[1]]}])"),
              "x.json:/groups/0/ring: key 'ring' does not apply to kernel kpool_tail; expected one of name, kernel, variant, block_table, kpool");
  AssertError(Doc(R"({"query_start_loc": [0, 1]})", R"([{"name": "t", "kernel": "kpool_tail", "kpool": 4, "block_table": [[1]]}])",
                  R"(, "expect": {"slot_mapping": {"t.tail": [1]}})"),
              "x.json:/expect/slot_mapping/t.tail: no output named 't.tail'; expected one of t");
}

TEST_F(ScenarioJsonTest, PointerTokensAreEscaped) {
  AssertError(Doc(R"({"query_start_loc": [0, 1], "a/b~c": 1})"),
              "x.json:/batch/a~1b~0c: unknown key 'a/b~c'; expected one of query_start_loc, seq_lens, positions, "
              "num_actual_tokens, num_tokens, idx_mapping, slot_mapping_in, table_rows, inputs, dummy_run");
}

TEST_F(ScenarioJsonTest, HostileInputNeverCrashes) {
  Scenario s;
  std::string err;
  // Nesting is refused before the parser builds anything (10 MB of '['
  // once took 2.1 GB): past 32 levels, at the first container too deep.
  const std::string deep(100000, '[');
  EXPECT_FALSE(ParseScenario(deep, "x.json", limits_, &s, &err));
  EXPECT_EQ("x.json: line 1, column 33: arrays and objects nested deeper than 32 levels; expected nesting at most 32 "
            "deep",
            err);
  const std::string deep_valid = std::string(20000, '[') + std::string(20000, ']');
  EXPECT_FALSE(ParseScenario(deep_valid, "x.json", limits_, &s, &err));
  EXPECT_EQ(0u, err.find("x.json: line 1, column 33: arrays and objects nested deeper"));
  // 32 levels are parsed (and are not a scenario); brackets inside strings do not count.
  const std::string at_limit = std::string(32, '[') + "\"[[[[\"" + std::string(32, ']');
  EXPECT_FALSE(ParseScenario(at_limit, "x.json", limits_, &s, &err));
  EXPECT_EQ("x.json:/: wrong type; expected a scenario object, got an array of 1 element", err);
  EXPECT_FALSE(ParseScenario(std::string("\0\xff\xfe{", 4), "x.json", limits_, &s, &err));
  EXPECT_FALSE(ParseScenario(Doc(R"({"query_start_loc": [0, 1e400]})"), "x.json", limits_, &s, &err));
  EXPECT_FALSE(ParseScenario(Doc(R"({"query_start_loc": [0, -9223372036854775809]})"), "x.json", limits_, &s, &err));
}

// --max-memory-mib: the estimate is worked out from the sizes before the
// arrays of that size exist, and names the dimension that drives it. A
// paged group has 1 output; with the default footprint (no worker, host)
// a token costs 16 * 2 (two copies of the scenario) + 32 (the output) = 64
// bytes, and the process itself 16 MiB (scenario/memory_estimate.cc); the
// parsed document of these small files adds a few KiB.
TEST_F(ScenarioJsonTest, AScenarioOverTheMemoryBudgetIsOneLineNamingItsLargestDimension) {
  limits_.max_memory_mib = 80;
  const std::string group = R"([{"name": "p", "kernel": "paged", "block_size": 16, "block_table": [[1]]}])";
  // 16 MiB + 1048000 tokens * 64 bytes (and a few KiB of document, request
  // and table) are within 80 MiB; 2^20 + 1 tokens are over.
  AssertLoads(Doc(R"({"query_start_loc": [0, 1], "num_tokens": 1048000})", group));
  AssertError(Doc(R"({"query_start_loc": [0, 1], "num_tokens": 1048577})", group),
              "x.json:/batch/num_tokens: checking this scenario would take at least 81 MiB, 65 MiB of it for "
              "num_tokens 1048577 (64 bytes per token, 1 output); expected at most 80 MiB (raise with "
              "--max-memory-mib)");
  // A compressor_ring group has two outputs: 96 bytes per token.
  const std::string ring =
      R"([{"name": "c", "kernel": "compressor_ring", "capacity": 4, "ring_block_size": 4, "block_table": [[1, 2, 3, 4]]}])";
  AssertError(Doc(R"({"query_start_loc": [0, 1], "num_tokens": 1048576})", ring),
              "x.json:/batch/num_tokens: checking this scenario would take at least 113 MiB, 96 MiB of it for "
              "num_tokens 1048576 (96 bytes per token, 2 outputs); expected at most 80 MiB (raise with "
              "--max-memory-mib)");
  // Without num_tokens the tokens are query_start_loc's last entry.
  AssertError(Doc(R"({"query_start_loc": [0, 1048577]})", group),
              "x.json:/batch/query_start_loc/1: checking this scenario would take at least 81 MiB, 65 MiB of it for "
              "num_tokens 1048577 (64 bytes per token, 1 output); expected at most 80 MiB (raise with "
              "--max-memory-mib)");
}

TEST_F(ScenarioJsonTest, TheWritersPoolAndAWorkerCountInTheBudget) {
  limits_.max_memory_mib = 64;
  // 2^18 blocks of 16 slots * 64 bytes = 256 MiB per pool, one copy (filled in place).
  const std::string doc = R"({"slotguard": 1, "name": "w", "num_blocks": 262144, "batch": {"query_start_loc": [0, 1]},
      "groups": [{"name": "p", "kernel": "paged", "block_size": 16, "block_table": [[1]]}]})";
  AssertLoads(doc);  // no writers: no pool
  limits_.footprint.head_bytes = 64;
  limits_.footprint.max_cache_bytes = int64_t{1} << 30;
  AssertError(doc, "x.json:/groups/0: checking this scenario would take at least 273 MiB, most of it for the "
                   "writers' pool of group 'p' (256 MiB); expected at most 64 MiB (raise with --max-memory-mib)");
  limits_.footprint.max_cache_bytes = 255 << 20;  // a pool over --max-cache-mib is not built: nothing to count
  AssertLoads(doc);
  // A worker process holds a third copy of the scenario, and the outputs
  // are there three times (the worker's, its reply frame, slotguard's):
  // 16 * 3 + 32 * 3 = 144 bytes per token, and 16 MiB for each process.
  limits_.footprint = RunFootprint();
  limits_.footprint.isolated = true;
  AssertError(Doc(R"({"query_start_loc": [0, 1], "num_tokens": 470000})"),
              "x.json:/batch/num_tokens: checking this scenario would take at least 97 MiB, 65 MiB of it for "
              "num_tokens 470000 (144 bytes per token, 1 output); expected at most 64 MiB (raise with "
              "--max-memory-mib)");
  // The gpu backend adds the device's arrays (48 per token, 64 per output
  // token) and the CUDA context (640 MiB, never the term named): with a
  // worker, 16 * 3 + 48 + (32 * 3 + 64) = 256 bytes per token.
  limits_.footprint.device = true;
  limits_.max_memory_mib = 1024;
  AssertLoads(Doc(R"({"query_start_loc": [0, 1], "num_tokens": 1400000})", R"([{"name": "p", "kernel": "paged", "block_size": 16, "block_table": [[1]]}])"));
  AssertError(Doc(R"({"query_start_loc": [0, 1], "num_tokens": 1600000})"),
              "x.json:/batch/num_tokens: checking this scenario would take at least 1063 MiB, 391 MiB of it for "
              "num_tokens 1600000 (256 bytes per token, 1 output); expected at most 1024 MiB (raise with "
              "--max-memory-mib)");
}

// One huge token: the parser's buffers for it count (a 250-million-digit
// number took 1,676 MiB under a 256 MiB budget, and an unterminated string
// 1,437 MiB). A number costs 8 times its bytes, a string 5 more than its
// bytes' twice; each is named as the term that drives the estimate.
TEST_F(ScenarioJsonTest, OneHugeTokenCountsInTheParsingBudget) {
  limits_.max_memory_mib = 16;
  Scenario s;
  std::string err;
  const std::string number = R"({"slotguard": 1, "name": "x", "num_blocks": )" + std::string(3 << 20, '1') + "}";
  EXPECT_FALSE(ParseScenario(number, "x.json", limits_, &s, &err));
  EXPECT_EQ("x.json: parsing it would take about 28 MiB (3145773 bytes, 4 JSON values, one token of 3145728 bytes); "
            "expected at most 16 MiB (raise with --max-memory-mib)",
            err);
  const std::string unterminated = R"({"slotguard": 1, "name": ")" + std::string(2 << 20, 'a');
  EXPECT_FALSE(ParseScenario(unterminated, "x.json", limits_, &s, &err));
  EXPECT_EQ("x.json: parsing it would take about 17 MiB (2097178 bytes, 3 JSON values, one token of 2097152 bytes); "
            "expected at most 16 MiB (raise with --max-memory-mib)",
            err);
  limits_.max_memory_mib = 64;  // within the budget it parses, and is refused for what it is
  EXPECT_FALSE(ParseScenario(number, "x.json", limits_, &s, &err));
  EXPECT_EQ(std::string::npos, err.find("parsing it would take")) << err;
}

// A --kernel-cmd provider is not a worker: only a scenario with a group it
// runs pays for the request (40 bytes a token, in both processes) and the
// answer (24 per output); one without pays slotguard's own 64 and the
// provider's 16 MiB (a 16M-token paged scenario was estimated at 2336 MiB
// and peaked at about 1000).
TEST_F(ScenarioJsonTest, AProviderProcessCountsOnlyTheGroupsItRuns) {
  limits_.max_memory_mib = 64;
  limits_.footprint.provider_process = true;
  limits_.footprint.provided_families = 1u << static_cast<int>(Family::kKpoolTail);
  AssertError(Doc(R"({"query_start_loc": [0, 1], "num_tokens": 1048576})"),
              "x.json:/batch/num_tokens: checking this scenario would take at least 97 MiB, 64 MiB of it for "
              "num_tokens 1048576 (64 bytes per token, 1 output); expected at most 64 MiB (raise with "
              "--max-memory-mib)");
  const std::string kpool = R"([{"name": "k", "kernel": "kpool_tail", "kpool": 4, "block_table": [[1]]}])";
  AssertError(Doc(R"({"query_start_loc": [0, 1], "num_tokens": 262144})", kpool),
              "x.json:/batch/num_tokens: checking this scenario would take at least 65 MiB, 32 MiB of it for "
              "num_tokens 262144 (128 bytes per token, 1 output); expected at most 64 MiB (raise with "
              "--max-memory-mib)");
}

TEST_F(ScenarioJsonTest, AFileWhoseJsonDocumentWouldBeOverTheBudgetIsRefusedBeforeParsing) {
  limits_.max_memory_mib = 1;
  // 40,000 numbers: 48 bytes per value, about 1.9 MiB once parsed.
  std::string positions;
  for (int i = 0; i < 40000; ++i) positions += (i ? "," : "") + std::string("0");
  Scenario s;
  std::string err;
  EXPECT_FALSE(ParseScenario(Doc(R"({"query_start_loc": [0, 1], "positions": [)" + positions + "]}"), "x.json",
                             limits_, &s, &err));
  EXPECT_EQ(0u, err.find("x.json: parsing it would take about 2 MiB ("));
  EXPECT_NE(std::string::npos, err.find(" JSON values); expected at most 1 MiB (raise with --max-memory-mib)")) << err;
}

TEST_F(ScenarioJsonTest, MissingFile) {
  Scenario s;
  std::string err;
  EXPECT_FALSE(LoadScenarioFile("/nonexistent/x.json", limits_, &s, &err));
  EXPECT_EQ("/nonexistent/x.json: no such file or directory; expected a scenario file", err);
}

}  // namespace
}  // namespace slotguard

namespace slotguard {
namespace {

std::string Doc2(const std::string& batch, const std::string& groups, const std::string& extra = "") {
  return R"({"slotguard": 2, "name": "t", "num_blocks": 8)" + extra + R"(, "batch": )" + batch +
         R"(, "groups": )" + groups + "}";
}

TEST_F(ScenarioJsonTest, FormatTwoKeysNeedVersionTwo) {
  AssertError(Doc(R"({"query_start_loc": [0, 1], "table_rows": "idx_mapping"})"),
              "x.json:/batch/table_rows: a format-2 key in a version-1 file; expected \"slotguard\": 2 at the top "
              "of the file");
  AssertError(R"({"slotguard": 1, "name": "t", "num_blocks": 8, "table_layout": "tight"})",
              "x.json:/table_layout: a format-2 key in a version-1 file; expected \"slotguard\": 2 at the top of "
              "the file");
  AssertError(Doc2(R"({"query_start_loc": [0, 1], "table_rows": "idx"})", "[]"),
              "x.json:/batch/table_rows: unknown table_rows value 'idx'; expected one "
              "of request, idx_mapping");
  AssertError(Doc2(R"({"query_start_loc": [0, 1]})", "[]", R"(, "table_layout": "tigth")"),
              "x.json:/table_layout: unknown table layout 'tigth'; expected one of padded, "
              "tight, strided");
}

TEST_F(ScenarioJsonTest, ADummyRunMakesEveryRequestADummy) {
  // idx_mapping arange on a persistent table, as vLLM's make_dummy gives it.
  Scenario s;
  AssertLoads(Doc2(R"({"query_start_loc": [0, 1, 2], "idx_mapping": [0, 1], "table_rows": "idx_mapping",
                       "dummy_run": true})",
                   R"([{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[5], [0], [0]]}])"),
              &s);
  EXPECT_TRUE(s.batch.dummy_run);
  EXPECT_EQ(2, FormatVersion(s));
  for (int32_t r = 0; r < 2; ++r) {
    EXPECT_TRUE(s.batch.is_dummy(r)) << r;
    EXPECT_EQ(r, s.batch.row_of(r)) << r;  // its row is read
    EXPECT_EQ(-1, s.batch.owned_row(r)) << r;  // and owned by no one
  }
  // It survives the writer and differs from the same batch without it.
  Scenario back;
  AssertLoads(WriteScenarioJson(s), &back);
  EXPECT_TRUE(back == s);
  Scenario live = s;
  live.batch.dummy_run = false;
  EXPECT_FALSE(live == s);
  // Its dummies may name one row twice: no request is live to own it.
  AssertLoads(Doc2(R"({"query_start_loc": [0, 1, 2], "idx_mapping": [0, 0], "table_rows": "idx_mapping",
                       "dummy_run": true})",
                   R"([{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[0]]}])"));
  AssertError(Doc(R"({"query_start_loc": [0, 1], "dummy_run": true})"),
              "x.json:/batch/dummy_run: a format-2 key in a version-1 file; expected \"slotguard\": 2 at the top "
              "of the file");
  AssertError(Doc2(R"({"query_start_loc": [0, 1], "dummy_run": 1})", "[]"),
              "x.json:/batch/dummy_run: not a boolean; expected true or false, got 1");
}

TEST_F(ScenarioJsonTest, GraphZeroNullSaysWhereTheEngineZeroesBlockZero) {
  Scenario s;
  AssertLoads(Doc2(R"({"query_start_loc": [0, 1]})", R"([{"name": "a", "kernel": "paged", "block_size": 4,
                       "block_table": [[1]]}])"),
              &s);
  EXPECT_EQ(ZeroNull::kNever, s.graph.zero_null);  // the default
  EXPECT_EQ(1, FormatVersion(s));
  for (ZeroNull zero : {ZeroNull::kBeforeCapture, ZeroNull::kAfterCapture}) {
    const std::string name = ZeroNullName(zero);
    AssertLoads(Doc2(R"({"query_start_loc": [0, 1]})", R"([{"name": "a", "kernel": "paged", "block_size": 4,
                         "block_table": [[1]]}])",
                     R"(, "graph": {"zero_null": ")" + name + R"("})"),
                &s);
    EXPECT_EQ(zero, s.graph.zero_null) << name;
    EXPECT_EQ(2, FormatVersion(s)) << name;
    // It survives the writer and differs from the same scenario without it.
    Scenario back;
    AssertLoads(WriteScenarioJson(s), &back);
    EXPECT_TRUE(back == s) << name;
    Scenario never = s;
    never.graph = GraphOptions();
    EXPECT_FALSE(never == s) << name;
  }
  AssertError(Doc(R"({"query_start_loc": [0, 1]})", "[]", R"(, "graph": {"zero_null": "never"})"),
              "x.json:/graph: a format-2 key in a version-1 file; expected \"slotguard\": 2 at the top of the file");
  AssertError(Doc2(R"({"query_start_loc": [0, 1]})", "[]", R"(, "graph": {"zero_null": "after"})"),
              "x.json:/graph/zero_null: unknown zero_null value 'after'; expected one of never, before_capture, "
              "after_capture");
  AssertError(Doc2(R"({"query_start_loc": [0, 1]})", "[]", R"(, "graph": {"zero_null": 1})"),
              "x.json:/graph/zero_null: wrong type; expected \"never\", \"before_capture\" or "
              "\"after_capture\", got 1");
  AssertError(Doc2(R"({"query_start_loc": [0, 1]})", "[]", R"(, "graph": {"when": "never"})"),
              "x.json:/graph/when: unknown key 'when'; expected one of zero_null");
  AssertError(Doc2(R"({"query_start_loc": [0, 1]})", "[]", R"(, "graph": "never")"),
              "x.json:/graph: wrong type; expected a graph object, got the string \"never\"");
}

TEST_F(ScenarioJsonTest, APersistentTableHasTheRowsIdxMappingNames) {
  // Two requests reading rows 3 and 0 of a 5-row persistent table.
  Scenario s;
  AssertLoads(Doc2(R"({"query_start_loc": [0, 1, 2], "idx_mapping": [3, 0], "table_rows": "idx_mapping"})",
                   R"([{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[1], [2], [3], [4], [5]]}])"),
              &s);
  EXPECT_EQ(TableRows::kIdxMapping, s.batch.table_rows);
  EXPECT_EQ(5, s.groups[0].table.rows);
  EXPECT_EQ(3, s.batch.row_of(0));
  EXPECT_EQ(0, s.batch.row_of(1));
  EXPECT_EQ(2, FormatVersion(s));
  AssertError(Doc2(R"({"query_start_loc": [0, 1, 2], "idx_mapping": [3, 0], "table_rows": "idx_mapping"})",
                   R"([{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[1], [2], [3]]}])"),
              "x.json:/groups/0/block_table: persistent table has fewer rows than idx_mapping names; expected at "
              "least 4 rows (max(idx_mapping) + 1), got 3");
  // Each row is one request's.
  AssertError(Doc2(R"({"query_start_loc": [0, 1, 2, 3], "idx_mapping": [2, -1, 2], "table_rows": "idx_mapping"})",
                   R"([{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[1], [2], [3]]}])"),
              "x.json:/batch/idx_mapping/2: two requests read one row of the persistent table; expected a row no "
              "other request reads (request 0 reads row 2), got 2");
  // Only dummies: no row is read, an empty table is fine.
  AssertLoads(Doc2(R"({"query_start_loc": [0, 1], "idx_mapping": [-1], "table_rows": "idx_mapping"})",
                   R"([{"name": "a", "kernel": "qsa_ring", "ring": 4, "block_table": []}])"));
}

TEST_F(ScenarioJsonTest, PositionsAndSeqLensAreInt64InEitherVersion) {
  Scenario s;
  AssertLoads(Doc(R"({"query_start_loc": [0, 2], "seq_lens": [4294967301]})",
                  R"([{"name": "q", "kernel": "qsa_ring", "ring": 4, "block_table": [[1]]}])"),
              &s);
  EXPECT_EQ((std::vector<int64_t>{4294967299, 4294967300}), s.batch.positions);  // 2^32 + 3, + 4
  AssertLoads(Doc(R"({"query_start_loc": [0, 1], "positions": [4611686018427387903]})",
                  R"([{"name": "q", "kernel": "qsa_ring", "ring": 4, "block_table": [[1]]}])"),
              &s);
  EXPECT_EQ((std::vector<int64_t>{4611686018427387904}), s.batch.seq_lens);  // 2^62: last position + 1
}

TEST_F(ScenarioJsonTest, TheWriterKeepsFormatTwo) {
  Scenario s;
  AssertLoads(Doc2(R"({"query_start_loc": [0, 1, 2], "idx_mapping": [1, -1], "table_rows": "idx_mapping"})",
                   R"([{"name": "a", "kernel": "paged", "block_size": 4, "block_table": [[7], [2]]}])",
                   R"(, "table_layout": "strided")"),
              &s);
  const std::string text = WriteScenarioJson(s);
  EXPECT_NE(std::string::npos, text.find("\"slotguard\": 2")) << text;
  EXPECT_NE(std::string::npos, text.find("\"table_layout\": \"strided\"")) << text;
  EXPECT_NE(std::string::npos, text.find("\"table_rows\": \"idx_mapping\"")) << text;
  Scenario again;
  std::string err;
  ASSERT_TRUE(ParseScenario(text, "w.json", limits_, &again, &err)) << err;
  EXPECT_EQ(s, again);
  // A version-1 scenario is still written as version 1.
  AssertLoads(Doc(), &s);
  EXPECT_NE(std::string::npos, WriteScenarioJson(s).find("\"slotguard\": 1"));
}

// A fuzz reproducer's found_by: how it was found, so that it reproduces.
TEST_F(ScenarioJsonTest, FoundByRecordsTheImplementationAndRoundTrips) {
  const std::string groups = R"([{"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[1, 2], [3, 0]]}])";
  Scenario s;
  AssertLoads(Doc(R"({"query_start_loc": [0, 2, 3]})", groups,
                  R"(, "found_by": {"backend": "host", "kernel_cmd": "python3 p.py", "family_files": ["f.json"],
                       "writers": true, "head_bytes": 16})"),
              &s);
  EXPECT_TRUE(s.found_by.present);
  EXPECT_EQ("host", s.found_by.backend);
  EXPECT_EQ("python3 p.py", s.found_by.kernel_cmd);
  EXPECT_EQ(std::vector<std::string>{"f.json"}, s.found_by.family_files);
  EXPECT_TRUE(s.found_by.writers);
  EXPECT_EQ(16, s.found_by.head_bytes);
  Scenario again;
  AssertLoads(WriteScenarioJson(s), &again);
  EXPECT_TRUE(again == s);
  EXPECT_EQ("slotguard replay --backend host --writers --head-bytes 16 --family-file f.json --kernel-cmd "
            "'python3 p.py' 'my dir/x.json'",
            ReplayCommand(s.found_by, "my dir/x.json"));
  // A cubin goes with its spec; slotguard's own kernels name nothing.
  FoundBy cubin;
  cubin.present = true;
  cubin.kernel_cubin = "k.cubin";
  cubin.kernel_spec = "k.spec.json";
  EXPECT_EQ("slotguard replay --kernel-cubin k.cubin --kernel-spec k.spec.json x.json", ReplayCommand(cubin, "x.json"));
  EXPECT_EQ("slotguard replay -- -x.json", ReplayCommand(FoundBy(), "-x.json"));
}

TEST_F(ScenarioJsonTest, FoundByErrorsNameTheKey) {
  const std::string groups = R"([{"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[1, 2], [3, 0]]}])";
  const std::string batch = R"({"query_start_loc": [0, 2, 3]})";
  AssertError(Doc(batch, groups, R"(, "found_by": {"kernel_comd": "x"})"),
              "x.json:/found_by/kernel_comd: unknown key 'kernel_comd', did you mean 'kernel_cmd'?; expected one of "
              "backend, kernel_lib, kernel_cubin, kernel_spec, kernel_cmd, family_files, writers, head_bytes");
  AssertError(Doc(batch, groups, R"(, "found_by": {"backend": "gpus"})"),
              "x.json:/found_by/backend: unknown backend 'gpus', did you mean 'gpu'?; expected one of host, gpu");
  AssertError(Doc(batch, groups, R"(, "found_by": {"kernel_cubin": "k.cubin"})"),
              "x.json:/found_by/kernel_cubin: kernel_cubin and kernel_spec go together; expected both or neither");
  AssertError(Doc(batch, groups, R"(, "found_by": {"kernel_lib": "a.so", "kernel_cmd": "p"})"),
              "x.json:/found_by: more than one implementation; expected one of kernel_lib, kernel_cubin (with "
              "kernel_spec), kernel_cmd");
  AssertError(Doc(batch, groups, R"(, "found_by": {"writers": 1})"),
              "x.json:/found_by/writers: not a boolean; expected true or false, got 1");
}

}  // namespace
}  // namespace slotguard
