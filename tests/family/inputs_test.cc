// A description's extra inputs (docs/family-format.md, "Inputs"): what the
// loader refuses, how a scenario carries them (batch.inputs), how formulas
// read them, and how the generator and the shrinker keep them in step with
// the batch. The family is vllm_parallel_drafting (families/): one
// per-request input, num_rejected, read by a select.
#include <gtest/gtest.h>

#include <string>

#include "family/family_file.h"
#include "family/family_plan.h"
#include "family/group_model.h"
#include "fuzzing/generators.h"
#include "fuzzing/shrink.h"
#include "registry/families.h"
#include "scenario/scenario_json.h"

namespace slotguard {
namespace {

const std::string kHead =
    R"("slotguard_family": 1, "name": "x", "meaning": "m", "column": "pos / block_size", "offset": "0", "page": "1",
       "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 4}], )";

std::string DescError(const std::string& body) {
  FamilyDesc d;
  std::string err;
  EXPECT_FALSE(ParseFamilyDescription("{" + kHead + body + "}", "f.json", &d, &err)) << body;
  return err;
}

TEST(InputsTest, ADescriptionDeclaresInputsAsVariables) {
  FamilyDesc d;
  std::string err;
  ASSERT_TRUE(ParseFamilyDescription(
      "{" + kHead +
          R"("inputs": [{"name": "n", "per": "request", "meaning": "m", "min": 1, "max": "block_size", "default": "q"},
                        {"name": "b", "per": "token", "meaning": "m", "min": -1, "default": "r"}],
             "select": ["i < q - n", "b >= 0"]})",
      "f.json", &d, &err))
      << err;
  ASSERT_EQ(2u, d.inputs.size());
  EXPECT_EQ(InputPer::kRequest, d.inputs[0].per);
  EXPECT_EQ(InputPer::kToken, d.inputs[1].per);
  EXPECT_EQ(1, d.inputs[0].min);
  EXPECT_EQ(-1, d.inputs[1].min);
  // After the fixed variables and the one parameter.
  EXPECT_EQ(FamilyDesc::kFixedVars + 1, d.input_var(0));
  EXPECT_EQ("n", d.variables[d.input_var(0)]);
  EXPECT_EQ("b", d.variables[d.input_var(1)]);
}

TEST(InputsTest, BadInputDeclarationsAreOneLine) {
  const std::string in = R"({"per": "request", "meaning": "m", "default": 0, )";
  EXPECT_EQ("f.json:/inputs/1/name: 'n' is already a variable; expected a name that is not t, r, q, qsl_begin, "
            "qsl_end, i, pos, lp, seq_len, width, rows, num_reqs, num_tokens, num_actual_tokens, num_real_tokens, "
            "entry, linked, index, op, block_size, n",
            DescError(R"("inputs": [)" + in + R"("name": "n"}, )" + in + R"("name": "n"}])"));
  EXPECT_EQ("f.json:/inputs/0/name: 'pos' is already a variable; expected a name that is not t, r, q, qsl_begin, "
            "qsl_end, i, pos, lp, seq_len, width, rows, num_reqs, num_tokens, num_actual_tokens, num_real_tokens, "
            "entry, linked, index, op, block_size",
            DescError(R"("inputs": [)" + in + R"("name": "pos"}])"));
  EXPECT_EQ("f.json:/inputs/0/name: 'block_size' is already a variable; expected a name that is not t, r, q, "
            "qsl_begin, qsl_end, i, pos, lp, seq_len, width, rows, num_reqs, num_tokens, num_actual_tokens, "
            "num_real_tokens, entry, linked, index, op, block_size",
            DescError(R"("inputs": [)" + in + R"("name": "block_size"}])"));
  EXPECT_EQ("f.json:/inputs/0/per: unknown input kind 'requests', did you mean 'request'?; expected one of request, "
            "token",
            DescError(R"("inputs": [{"name": "n", "per": "requests", "meaning": "m", "default": 0}])"));
  EXPECT_EQ("f.json:/inputs/0/max: max 2 below min 3: no value is in range; expected max >= min, got 2",
            DescError(R"("inputs": [{"name": "n", "per": "request", "meaning": "m", "min": 3, "max": 2, "default": 3}])"));
  EXPECT_EQ("f.json:/inputs/0/default: missing required key; expected a formula: the value where a scenario gives "
            "none",
            DescError(R"("inputs": [{"name": "n", "per": "request", "meaning": "m"}])"));
  // A per-request default cannot read a token's variables.
  EXPECT_EQ("f.json:/inputs/0/default: 'pos' cannot be read here (formula 'pos'); expected a formula over the "
            "parameters, the batch's sizes and a request's fixed variables (r, q, qsl_begin, qsl_end, seq_len)",
            DescError(R"("inputs": [{"name": "n", "per": "request", "meaning": "m", "default": "pos"}])"));
  // A max reads the parameters only.
  EXPECT_EQ("f.json:/inputs/0/max: 'q' cannot be read here (formula 'q'); expected a formula over the family's "
            "parameters",
            DescError(R"("inputs": [{"name": "n", "per": "request", "meaning": "m", "max": "q", "default": 0}])"));
  // A parameter's formulas cannot read an input.
  EXPECT_EQ("f.json:/min_width: 'n' cannot be read here (formula 'n'); expected a formula over the family's "
            "parameters",
            DescError(R"("inputs": [{"name": "n", "per": "request", "meaning": "m", "default": 0}], "min_width": "n")"));
  EXPECT_EQ("f.json:/inputs/0/mni: unknown key 'mni'; expected one of name, per, meaning, min, max, default",
            DescError(R"("inputs": [{"name": "n", "per": "request", "meaning": "m", "default": 0, "mni": 0}])"));
}

// A per-token input read by a select, over a request long enough for the
// interpreter's lanes (which a per-token input turns off): block_size 4,
// row [3, 5], positions 0..5.
std::vector<int64_t> TokenInputSlots(const std::string& default_value, const std::vector<int64_t>* keep) {
  FamilyDesc d;
  std::string err;
  EXPECT_TRUE(ParseFamilyDescription(
      R"({"slotguard_family": 1, "name": "x", "meaning": "m", "column": "pos / block_size",
          "offset": "pos % block_size", "page": "block_size",
          "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 4}],
          "inputs": [{"name": "keep", "per": "token", "meaning": "m", "min": 0, "max": 1, "default": ")" +
          default_value + R"("}], "select": ["keep != 0"]})",
      "f.json", &d, &err))
      << err;
  Batch b;
  b.query_start_loc = {0, 6};
  b.seq_lens = {6};
  b.positions = {0, 1, 2, 3, 4, 5};
  b.num_tokens = b.num_actual_tokens = 6;
  b.idx_mapping = {0};
  b.slot_mapping_in.assign(6, -1);
  if (keep) b.inputs["keep"] = BatchInput{true, *keep};
  BlockTable table;
  table.rows = 1;
  table.width = 2;
  table.entries = {3, 5};
  GroupPlan plan;
  Interpretation out;
  EXPECT_TRUE(MakeGroupPlan(d, d.mapping, {4}, b, &plan, &err)) << err;
  EXPECT_TRUE(Interpret(plan, b, table, nullptr, false, &out, &err)) << err;
  return out.slots.empty() ? std::vector<int64_t>() : out.slots[0];
}

TEST(InputsTest, AFormulaReadsTheTokensInput) {
  const std::vector<int64_t> keep = {1, 0, 1, 1, 0, 1};
  EXPECT_EQ((std::vector<int64_t>{12, -1, 14, 15, -1, 21}), TokenInputSlots("1", &keep));
  // Not given: its default, here a formula over the token.
  EXPECT_EQ((std::vector<int64_t>{12, 13, 14, 15, 20, 21}), TokenInputSlots("1", nullptr));
  EXPECT_EQ((std::vector<int64_t>{-1, 13, -1, 15, -1, 21}), TokenInputSlots("t % 2", nullptr));
}

Family Drafting() {
  Family f;
  std::string err;
  EXPECT_TRUE(FindFamily("vllm_parallel_drafting", &f, &err)) << err;
  return f;
}

// research C1 (block_size 4, max_model_len 64): r0 has 5 tokens, its last one rejected.
std::string Doc(const std::string& inputs, const std::string& extra_batch = "") {
  return R"({"slotguard": 2, "name": "t", "num_blocks": 10,
             "batch": {"query_start_loc": [0, 5, 8], "seq_lens": [9, 12],
                       "positions": [5, 6, 7, 8, 0, 9, 10, 11])" +
         extra_batch + (inputs.empty() ? "" : ", \"inputs\": " + inputs) + R"(},
             "groups": [{"name": "draft", "kernel": "vllm_parallel_drafting", "block_size": 4,
                         "max_model_len": 64, "block_table": [[0, 8, 2], [7, 3, 6]]}]})";
}

std::string LoadError(const std::string& text) {
  Scenario s;
  std::string err;
  EXPECT_FALSE(ParseScenario(text, "x.json", LoadLimits(), &s, &err)) << text;
  return err;
}

std::vector<int64_t> Reference(const Scenario& s) {
  Interpretation out;
  std::string why;
  EXPECT_TRUE(GroupModel(s.groups[0]).Interpret(s.batch, nullptr, false, false, &out, &why)) << why;
  return out.slots.empty() ? std::vector<int64_t>() : out.slots[0];
}

TEST(InputsTest, AFormulaReadsTheRequestsInput) {
  Scenario s;
  std::string err;
  ASSERT_TRUE(ParseScenario(Doc(R"({"num_rejected": [1, 0]})"), "x.json", LoadLimits(), &s, &err)) << err;
  ASSERT_EQ(1u, s.batch.inputs.count("num_rejected"));
  EXPECT_FALSE(s.batch.inputs["num_rejected"].per_token);
  // r0's token 4 (i 4 >= q 5 - 1) is masked; its unmasked slot would be 0 (row [0, 8, 2], pos 0).
  EXPECT_EQ((std::vector<int64_t>{33, 34, 35, 8, -1, 25, 26, 27}), Reference(s));
  // Two rejected in r1: its last two tokens.
  ASSERT_TRUE(ParseScenario(Doc(R"({"num_rejected": [1, 2]})"), "x.json", LoadLimits(), &s, &err)) << err;
  EXPECT_EQ((std::vector<int64_t>{33, 34, 35, 8, -1, 25, -1, -1}), Reference(s));
}

TEST(InputsTest, AMissingInputTakesItsDefault) {
  Scenario s;
  std::string err;
  ASSERT_TRUE(ParseScenario(Doc(""), "x.json", LoadLimits(), &s, &err)) << err;
  EXPECT_TRUE(s.batch.inputs.empty());
  // num_rejected 0: nothing masked, so r0's position-0 token maps to slot 0 (block 0).
  EXPECT_EQ((std::vector<int64_t>{33, 34, 35, 8, 0, 25, 26, 27}), Reference(s));
  std::vector<std::vector<int64_t>> values;
  ASSERT_TRUE(GroupModel(s.groups[0]).InputValues(s.batch, &values, &err)) << err;
  ASSERT_EQ(1u, values.size());
  EXPECT_EQ((std::vector<int64_t>{0, 0}), values[0]);
}

TEST(InputsTest, TheWriterWritesTheInputsBack) {
  Scenario s, back;
  std::string err;
  ASSERT_TRUE(ParseScenario(Doc(R"({"num_rejected": [1, 0]})"), "x.json", LoadLimits(), &s, &err)) << err;
  const std::string text = WriteScenarioJson(s);
  EXPECT_NE(std::string::npos, text.find("\"inputs\": {\n      \"num_rejected\": [1, 0]\n    }")) << text;
  EXPECT_NE(std::string::npos, text.find("\"slotguard\": 2")) << text;
  ASSERT_TRUE(ParseScenario(text, "y.json", LoadLimits(), &back, &err)) << err;
  EXPECT_TRUE(s == back);
  back.batch.inputs["num_rejected"].values[0] = 0;
  EXPECT_FALSE(s == back);
}

TEST(InputsTest, HostileInputsAreOneLine) {
  EXPECT_EQ("x.json:/batch/inputs/num_rejectd: no group's family has the input 'num_rejectd', did you mean "
            "'num_rejected'?; expected one of num_rejected",
            LoadError(Doc(R"({"num_rejectd": [1, 0]})")));
  EXPECT_EQ("x.json:/batch/inputs/num_rejected: length disagrees with the number of requests; expected 2 entries "
            "(input 'num_rejected' of vllm_parallel_drafting is per request), got 3",
            LoadError(Doc(R"({"num_rejected": [1, 0, 0]})")));
  EXPECT_EQ("x.json:/batch/inputs/num_rejected/1: input value out of range; expected 0 <= value <= "
            "9223372036854775807 (vllm_parallel_drafting's input 'num_rejected': the tokens of the previous "
            "speculation that were rejected (num_rejected_tokens_gpu): the request's last num_rejected tokens are "
            "masked), got -1",
            LoadError(Doc(R"({"num_rejected": [1, -1]})")));
  EXPECT_EQ("x.json:/batch/inputs/num_rejected/0: wrong type; expected input value as an integer, got the "
            "string \"1\"",
            LoadError(Doc(R"({"num_rejected": ["1", 0]})")));
  EXPECT_EQ("x.json:/batch/inputs: wrong type; expected an object of input name: array of integers, got an array "
            "of 2 elements",
            LoadError(Doc(R"([1, 0])")));
  // A format-2 key.
  std::string v1 = Doc(R"({"num_rejected": [1, 0]})");
  v1.replace(v1.find("\"slotguard\": 2"), 14, "\"slotguard\": 1");
  EXPECT_EQ("x.json:/batch/inputs: a format-2 key in a version-1 file; expected \"slotguard\": 2 at the top of the "
            "file",
            LoadError(v1));
}

TEST(InputsTest, TheGeneratorDrawsInputsInRangeAndTheyReload) {
  GeneratorOptions options;
  options.families = {Drafting()};
  int drawn = 0, nonzero = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    RandomChoices c(seed);
    const Scenario s = GenerateScenario(c, options);
    const auto it = s.batch.inputs.find("num_rejected");
    if (it == s.batch.inputs.end()) continue;
    ++drawn;
    ASSERT_FALSE(it->second.per_token);
    ASSERT_EQ(static_cast<size_t>(s.batch.num_reqs()), it->second.values.size());
    for (int64_t v : it->second.values) {
      ASSERT_GE(v, 0);
      nonzero += v != 0;
    }
    Scenario back;
    std::string err;
    ASSERT_TRUE(ParseScenario(WriteScenarioJson(s), "g.json", LoadLimits(), &back, &err)) << "seed " << seed << ": " << err;
    EXPECT_TRUE(s == back) << "seed " << seed;
  }
  EXPECT_GT(drawn, 100);
  EXPECT_GT(nonzero, 50);
}

TEST(InputsTest, TheShrinkerKeepsInputsInStepWithTheRequests) {
  Scenario s;
  std::string err;
  ASSERT_TRUE(ParseScenario(Doc(R"({"num_rejected": [1, 2]})"), "x.json", LoadLimits(), &s, &err)) << err;
  // The "finding": some request has 2 rejected tokens. The shrinker drops r0
  // and must drop its num_rejected with it, so r1 keeps its 2.
  const Scenario small = Shrink(s, [](const Scenario& c) {
    const auto it = c.batch.inputs.find("num_rejected");
    if (it == c.batch.inputs.end() || it->second.values.size() != static_cast<size_t>(c.batch.num_reqs()))
      return false;
    for (int64_t v : it->second.values)
      if (v == 2) return true;
    return false;
  });
  EXPECT_EQ(1, small.batch.num_reqs());
  EXPECT_EQ((std::vector<int64_t>{2}), small.batch.inputs.at("num_rejected").values);
  Scenario back;
  ASSERT_TRUE(ParseScenario(WriteScenarioJson(small), "s.json", LoadLimits(), &back, &err)) << err;
}

}  // namespace
}  // namespace slotguard
