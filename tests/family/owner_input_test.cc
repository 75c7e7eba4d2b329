// An owner read from a per-token input (docs/family-format.md, "owner":
// {"input": NAME}): what the loader refuses, the request the interpreter
// gives each token, how the generator draws the input and how the shrinker
// renumbers it. The family is flashinfer_batch_indices (families/): FlashInfer's
// batch_indices, a token's request, -1 for a padded entry.
#include <gtest/gtest.h>

#include <string>

#include "family/family_file.h"
#include "family/family_plan.h"
#include "family/group_model.h"
#include "family/shape_lists.h"
#include "fuzzing/generators.h"
#include "fuzzing/shrink.h"
#include "invariants/group_run.h"
#include "invariants/invariants.h"
#include "registry/families.h"
#include "scenario/scenario_json.h"

namespace slotguard {
namespace {

const std::string kHead =
    R"("slotguard_family": 1, "name": "x", "meaning": "m", "column": "pos / block_size", "offset": "0", "page": "1",
       "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 4}], )";
const std::string kBatchIndices =
    R"("inputs": [{"name": "batch_indices", "per": "token", "meaning": "m", "min": -1, "default": "r"}], )";

std::string DescError(const std::string& body) {
  FamilyDesc d;
  std::string err;
  EXPECT_FALSE(ParseFamilyDescription("{" + kHead + body + "}", "f.json", &d, &err)) << body;
  return err;
}

TEST(OwnerInputTest, AnOwnerInputIsAPerTokenInputWhoseDefaultIsR) {
  FamilyDesc d;
  std::string err;
  ASSERT_TRUE(ParseFamilyDescription("{" + kHead + kBatchIndices + R"("owner": {"input": "batch_indices"}})", "f.json",
                                     &d, &err))
      << err;
  EXPECT_EQ(OwnerRule::kInput, d.mapping.owner);
  EXPECT_EQ("batch_indices", d.mapping.owner_input);
  // A variant may go back to query_start_loc's owner.
  ASSERT_TRUE(ParseFamilyDescription("{" + kHead + kBatchIndices + R"("owner": {"input": "batch_indices"},
      "variants": [{"name": "qsl", "meaning": "m", "set": {"owner": "request"}}]})",
                                     "f.json", &d, &err))
      << err;
  EXPECT_EQ(OwnerRule::kRequest, d.variants[0].mapping.owner);
  EXPECT_EQ("", d.variants[0].mapping.owner_input);
  ASSERT_TRUE(ParseFamilyDescription("{" + kHead + R"("tail": {"from": "num_tokens"}})", "f.json", &d, &err)) << err;
  EXPECT_EQ(TailFrom::kNumTokens, d.mapping.tail_from);
}

TEST(OwnerInputTest, BadOwnerInputsAreOneLine) {
  EXPECT_EQ("f.json:/owner/input: no input 'batch_indices'; expected an input of \"inputs\" (the family has none)",
            DescError(R"("owner": {"input": "batch_indices"})"));
  EXPECT_EQ("f.json:/owner/input: no input 'batch_indice', did you mean 'batch_indices'?; expected one of "
            "batch_indices",
            DescError(kBatchIndices + R"("owner": {"input": "batch_indice"})"));
  EXPECT_EQ("f.json:/owner/input: input 'n' is per request; expected a per-token input: one request index per token",
            DescError(R"("inputs": [{"name": "n", "per": "request", "meaning": "m", "default": "r"}],
                         "owner": {"input": "n"})"));
  EXPECT_EQ("f.json:/inputs/0/default: the owner input's default '0' is not the token's query_start_loc request; "
            "expected \"r\" (a scenario without the array keeps query_start_loc's owner)",
            DescError(R"("inputs": [{"name": "b", "per": "token", "meaning": "m", "min": -1, "default": "0"}],
                         "owner": {"input": "b"})"));
  EXPECT_EQ("f.json:/owner/input: missing required key; expected the name of the per-token input that holds each "
            "token's request",
            DescError(kBatchIndices + R"("owner": {})"));
  EXPECT_EQ("f.json:/owner/input: wrong type; expected an input's name, got 0",
            DescError(kBatchIndices + R"("owner": {"input": 0})"));
  EXPECT_EQ("f.json:/owner: wrong type; expected \"request\", \"last_request\" or {\"input\": NAME}, got 3",
            DescError(kBatchIndices + R"("owner": 3)"));
  EXPECT_EQ("f.json:/tail/from: unknown tail start 'num_token', did you mean 'num_tokens'?; expected one of "
            "num_real_tokens, num_actual_tokens, min(num_actual_tokens, num_real_tokens), num_tokens",
            DescError(R"("tail": {"from": "num_token"})"));
}

std::string Doc(const std::string& batch, const std::string& rows) {
  return R"({"slotguard": 2, "name": "t", "num_blocks": 10, "batch": )" + batch +
         R"(, "groups": [{"name": "kv", "kernel": "flashinfer_batch_indices", "page_size": 4, "block_table": )" + rows +
         "}]}";
}

Interpretation Reference(const std::string& text) {
  Scenario s;
  std::string err;
  EXPECT_TRUE(ParseScenario(text, "x.json", LoadLimits(), &s, &err)) << err;
  Interpretation out;
  EXPECT_TRUE(GroupModel(s.groups[0]).Interpret(s.batch, nullptr, false, false, &out, &err)) << err;
  return out;
}

// kv_indptr [0, 2, 4], kv_indices [5, 9, 2, 7] (rows r0 [5, 9], r1 [2, 7]), page_size 4.
TEST(OwnerInputTest, ATokensRequestIsItsInputsValue) {
  const std::string rows = "[[5, 9], [2, 7]]";
  // Interleaved: t1 (query_start_loc's r0) is r1's at pos 6: page_iter 2 + 1, page 7, entry 2: 30;
  // t2 (r1's by query_start_loc) is r0's at pos 5: page_iter 1, page 9, entry 1: 37.
  Interpretation out = Reference(Doc(R"({"query_start_loc": [0, 2, 4], "seq_lens": [6, 8], "positions": [4, 6, 5, 7],
                                         "inputs": {"batch_indices": [0, 1, 0, 1]}})",
                                     rows));
  EXPECT_EQ((std::vector<int32_t>{0, 1, 0, 1}), out.owner);
  EXPECT_EQ((std::vector<int64_t>{36, 30, 37, 31}), out.slots[0]);
  // Outside [0, 2): a token of no request, PAD (-1, 2, int32's largest).
  out = Reference(Doc(R"({"query_start_loc": [0, 2, 4], "seq_lens": [6, 8], "positions": [4, 5, 6, 7],
                          "inputs": {"batch_indices": [-1, 0, 2, 2147483647]}})",
                      rows));
  EXPECT_EQ((std::vector<int32_t>{-1, 0, -1, -1}), out.owner);
  EXPECT_EQ((std::vector<int64_t>{-1, 37, -1, -1}), out.slots[0]);
  // No array: query_start_loc's owner, the padded tokens none's (no tail: they are PAD by their owner).
  out = Reference(Doc(R"({"query_start_loc": [0, 2, 4], "seq_lens": [6, 8], "num_tokens": 5})", rows));
  EXPECT_EQ((std::vector<int32_t>{0, 0, 1, 1, -1}), out.owner);
  EXPECT_EQ((std::vector<int64_t>{36, 37, 30, 31, -1}), out.slots[0]);
  // No tail: a padded token whose batch index names r0 is r0's, at its position 0 (page 5, entry 0).
  out = Reference(Doc(R"({"query_start_loc": [0, 2, 4], "seq_lens": [6, 8], "num_tokens": 5,
                          "positions": [4, 5, 6, 7, 0], "inputs": {"batch_indices": [0, 0, 1, 1, 0]}})",
                      rows));
  EXPECT_EQ((std::vector<int32_t>{0, 0, 1, 1, 0}), out.owner);
  EXPECT_EQ((std::vector<int64_t>{36, 37, 30, 31, 20}), out.slots[0]);
}

// A request's tokens need not be contiguous: interleaved r0, r1, r0, r1,
// a kernel that moves t2 onto t0's slot (both r0's) breaks unique_slots,
// with r1's t1 moved too (29: its own block, no slot shared), so both
// requests are looked at and their tokens alternate.
TEST(OwnerInputTest, UniqueSlotsSeesARequestsTokensApart) {
  Scenario s;
  std::string err;
  ASSERT_TRUE(ParseScenario(Doc(R"({"query_start_loc": [0, 2, 4], "seq_lens": [6, 8], "positions": [4, 6, 5, 7],
                                    "inputs": {"batch_indices": [0, 1, 0, 1]}})",
                                "[[5, 9], [2, 7]]"),
                            "x.json", LoadLimits(), &s, &err))
      << err;
  const std::vector<int64_t> reference = {36, 30, 37, 31};
  std::vector<int64_t> kernel = {36, 29, 36, 31};
  const std::vector<int32_t> requests = RequestOfToken(s.batch, s.groups[0]);
  ASSERT_EQ((std::vector<int32_t>{0, 1, 0, 1}), requests);
  const std::vector<uint8_t> read_past(4, 0);
  GroupRun run;
  run.scenario = &s;
  run.group = &s.groups[0];
  run.request_of_token = &requests;
  run.read_past_row = &read_past;
  SetAddressing(&run);
  run.outputs.push_back({"kv", &kernel, &kernel, &reference, nullptr});
  FindingSink sink(100);
  CheckUniqueSlots(run, &sink);
  ASSERT_EQ(1u, sink.kept().size());
  EXPECT_EQ(2, sink.kept()[0].token);
  EXPECT_EQ("slot 36 also written by token 0 of the same request (the reference keeps them apart)",
            sink.kept()[0].detail);
}

Family BatchIndices() {
  Family f;
  std::string err;
  EXPECT_TRUE(FindFamily("flashinfer_batch_indices", &f, &err)) << err;
  return f;
}

TEST(OwnerInputTest, TheShapeListNamesNoRequestAnotherAndPastTheRequests) {
  Group g = ExampleGroup(BatchIndices(), "kv");
  // Token of r1 in a batch of 3: its own, none, r0, r2 (last and neighbour), past: 3, 4, int32's largest.
  EXPECT_EQ((std::vector<int64_t>{1, -1, 0, 2, 3, 4, 2147483647}), OwnerValueList(g, 0, 1, 3));
  // A padded token (default -1) of a batch of 1: none, r0, past.
  EXPECT_EQ((std::vector<int64_t>{-1, 0, 1, 2, 2147483647}), OwnerValueList(g, 0, -1, 1));
}

TEST(OwnerInputTest, TheGeneratorMovesTokensAndTheyReload) {
  GeneratorOptions options;
  options.families = {BatchIndices()};
  int drawn = 0, moved = 0, none_inside = 0, past = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    RandomChoices c(seed);
    const Scenario s = GenerateScenario(c, options);
    const auto it = s.batch.inputs.find("batch_indices");
    if (it == s.batch.inputs.end()) continue;
    ++drawn;
    ASSERT_TRUE(it->second.per_token);
    ASSERT_EQ(static_cast<size_t>(s.batch.num_tokens), it->second.values.size());
    const int32_t R = s.batch.num_reqs();
    for (int32_t r = 0; r < R; ++r)
      for (int64_t t = s.batch.query_start_loc[r]; t < s.batch.query_start_loc[r + 1]; ++t) {
        const int64_t v = it->second.values[t];
        moved += v >= 0 && v < R && v != r;
        none_inside += v == -1;
      }
    for (int64_t v : it->second.values) {
      ASSERT_GE(v, -1);
      ASSERT_LE(v, 2147483647);
      past += v >= R;
    }
    Scenario back;
    std::string err;
    ASSERT_TRUE(ParseScenario(WriteScenarioJson(s), "g.json", LoadLimits(), &back, &err)) << "seed " << seed << ": " << err;
    EXPECT_TRUE(s == back) << "seed " << seed;
  }
  EXPECT_GT(drawn, 100);
  EXPECT_GT(moved, 20);
  EXPECT_GT(none_inside, 20);
  EXPECT_GT(past, 20);
}

TEST(OwnerInputTest, TheShrinkerRenumbersTheOwners) {
  Scenario s;
  std::string err;
  // Three requests of one token each, every token r2's (row [7]).
  ASSERT_TRUE(ParseScenario(Doc(R"({"query_start_loc": [0, 1, 2, 3], "seq_lens": [1, 1, 1],
                                    "inputs": {"batch_indices": [2, 2, 2]}})",
                                "[[5], [6], [7]]"),
                            "x.json", LoadLimits(), &s, &err))
      << err;
  // The "finding": a token of the request whose row is [7]. Dropping r0 and
  // r1 keeps it only when the tokens' index follows r2 down to 0.
  const Scenario small = Shrink(s, [](const Scenario& c) {
    const auto it = c.batch.inputs.find("batch_indices");
    if (it == c.batch.inputs.end()) return false;
    for (int64_t v : it->second.values)
      if (v >= 0 && v < c.batch.num_reqs() && c.groups[0].table.row_width(static_cast<int32_t>(v)) > 0 &&
          c.groups[0].table.at(static_cast<int32_t>(v), 0) == 7)
        return true;
    return false;
  });
  EXPECT_EQ(1, small.batch.num_reqs());
  EXPECT_EQ((std::vector<int64_t>{0}), small.batch.inputs.at("batch_indices").values);
  Scenario back;
  ASSERT_TRUE(ParseScenario(WriteScenarioJson(small), "s.json", LoadLimits(), &back, &err)) << err;
}

}  // namespace
}  // namespace slotguard
