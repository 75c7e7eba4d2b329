// --kernel-spec: formulas (grid, values, conditions), the spec file's
// one-line errors, and what spec 2 launches: specializations, launch
// preconditions and whole-scenario launches decided on the host
// (spec_launch.h), argument cells, scratch sizes and group arrays.
#include <cstring>

#include <gtest/gtest.h>

#include "plugin/kernel_spec.h"
#include "plugin/spec_launch.h"
#include "util/error_line.h"

namespace slotguard {
namespace {

sg_mapping_call Call() {
  sg_mapping_call c{};
  c.family = "kpool_tail";
  c.num_reqs = 5;
  c.num_actual_tokens = 700;
  c.num_real_tokens = 690;
  c.num_tokens = 1024;
  c.kpool_tail.kpool = 64;
  return c;
}

int64_t Eval(const std::string& text) {
  GridFormula f;
  std::string err;
  EXPECT_TRUE(f.Parse(text, &err)) << err;
  int64_t v = -1;
  EXPECT_TRUE(f.Evaluate(Call(), &v, &err)) << err;
  return v;
}

TEST(GridFormulaTest, Evaluates) {
  EXPECT_EQ(7, Eval("num_reqs + cdiv(num_tokens - num_actual_tokens, 256)"));  // 5 + cdiv(324, 256)
  EXPECT_EQ(14, Eval("2 * (num_reqs + 2)"));
  EXPECT_EQ(-3, Eval("-num_reqs + 2"));
  EXPECT_EQ(64, Eval("max(kpool, 1)"));
  EXPECT_EQ(1, Eval("min(num_reqs, 1)"));
  EXPECT_EQ(4, Eval("num_tokens / 256 % 5"));  // (1024 / 256) % 5
  EXPECT_EQ(42, Eval("42"));
  EXPECT_EQ(3, Eval("cdiv(num_real_tokens, 256)"));  // qsl[num_reqs] = 690
}

TEST(KernelSpecTest, SpecTwoNamesAreNotSpecOnes) {
  KernelSpec spec;
  std::string err;
  const std::string params = R"("params": [{"scalar": "num_real_tokens", "type": "i64"}], "grid": [1], "block": [1]})";
  EXPECT_TRUE(ParseKernelSpec(R"({"slotguard_kernel_spec": 2, "family": "kpool_tail", "symbol": "k", )" + params,
                              "k.json", &spec, &err))
      << err;
  EXPECT_FALSE(ParseKernelSpec(R"({"slotguard_kernel_spec": 1, "family": "kpool_tail", "symbol": "k", )" + params,
                               "k.json", &spec, &err));
  EXPECT_EQ("k.json:/params/0: 'num_real_tokens' is a spec-2 name; expected \"slotguard_kernel_spec\": 2 to use it",
            err);
}

TEST(GridFormulaTest, ErrorsNameTheProblem) {
  GridFormula f;
  std::string err;
  EXPECT_FALSE(f.Parse("num_req + 1", &err));
  EXPECT_EQ(0u, err.find("unknown variable 'num_req', did you mean 'num_reqs'?; expected one of num_reqs, "))
      << err;
  EXPECT_FALSE(f.Parse("ceil(num_tokens, 2)", &err));
  EXPECT_EQ("unknown function 'ceil'; expected cdiv, min, max or mod", err);
  EXPECT_FALSE(f.Parse("cdiv(num_tokens)", &err));
  EXPECT_EQ("cdiv takes 2 arguments, got 1", err);
  EXPECT_FALSE(f.Parse("(num_tokens", &err));
  EXPECT_EQ("expected ')' at column 12", err);
  EXPECT_FALSE(f.Parse("num_tokens $ 2", &err));
  EXPECT_EQ("unexpected '$' at column 12", err);
  ASSERT_TRUE(f.Parse("ring + 1", &err));  // a parameter of another family
  int64_t v;
  EXPECT_FALSE(f.Evaluate(Call(), &v, &err));
  EXPECT_EQ("'ring' is not a parameter of family kpool_tail", err);
  ASSERT_TRUE(f.Parse("num_tokens / (num_reqs - 5)", &err));
  EXPECT_FALSE(f.Evaluate(Call(), &v, &err));
  EXPECT_EQ("division by zero", err);
}

// fuzz_kernel_spec found "max(num_reqs, ------...": the parser recursed once
// per unary minus until the stack overflowed. Every nesting (unary
// operators, parentheses, arguments, a long chain of one operator, which
// the evaluator and the tree's destructor recurse through) stops at 64.
TEST(GridFormulaTest, DeepFormulasAreErrorsNotStackOverflows) {
  // Each under the 1024-character limit of a formula, each deeper than 64.
  const std::vector<std::string> deep = {
      std::string(900, '-') + "num_reqs",
      std::string(900, '!') + "num_reqs",
      std::string(450, '(') + "1" + std::string(450, ')'),
      [] {
        std::string s;
        for (int i = 0; i < 120; ++i) s += "min(1, ";
        return s + "1" + std::string(120, ')');
      }(),
      [] {
        std::string s = "1";
        for (int i = 0; i < 240; ++i) s += " + 1";
        return s;
      }(),
  };
  for (const std::string& text : deep) {
    GridFormula f;
    std::string err;
    EXPECT_FALSE(f.Parse(text, &err)) << text.substr(0, 20);
    EXPECT_EQ(0u, err.find("the formula nests deeper than 64 operations at column ")) << err;
    EXPECT_NE(std::string::npos, err.find("; expected a shallower formula")) << err;
  }
  // 64 levels are a formula: 63 minus signs over a number.
  EXPECT_EQ(-1, Eval(std::string(63, '-') + "1"));
  GridFormula f;
  std::string err;
  EXPECT_FALSE(f.Parse(std::string(64, '-') + "1", &err));
  // A formula's text is quoted in messages: one short line, so no control
  // character and at most 1024 characters.
  EXPECT_FALSE(f.Parse("num_tokens\n- 1", &err));
  EXPECT_EQ("a control character at column 11; expected a formula on one line", err);
  EXPECT_FALSE(f.Parse("1" + std::string(2000, ' '), &err));
  EXPECT_EQ("a formula of 2001 characters; expected at most 1024", err);
}

TEST(KernelSpecTest, TheExampleSpecLoads) {
  KernelSpec spec;
  std::string err;
  ASSERT_TRUE(LoadKernelSpec(SLOTGUARD_SOURCE_DIR "/examples/cubin/kpool_tail_kernel.spec.json", &spec, &err)) << err;
  EXPECT_EQ(Family::kKpoolTail, spec.family);
  EXPECT_EQ("kpool_tail_map", spec.symbol);
  EXPECT_EQ(2, spec.version);
  ASSERT_EQ(12u, spec.params.size());
  EXPECT_EQ(SpecArgKind::kBuffer, spec.params[0].kind);
  EXPECT_EQ("slot_mapping", spec.params[0].name);
  EXPECT_EQ(SpecType::kI64, spec.params[4].type);
  EXPECT_EQ(128, spec.block[0]);
  int64_t grid;
  ASSERT_TRUE(spec.grid[0].Evaluate(Call(), &grid, &err)) << err;
  EXPECT_EQ(7, grid);
}

std::string SpecError(const std::string& text) {
  KernelSpec spec;
  std::string err;
  EXPECT_FALSE(ParseKernelSpec(text, "k.json", &spec, &err));
  return err;
}

const std::string kHead = R"({"slotguard_kernel_spec": 1, "family": "kpool_tail", "symbol": "k", )";

// The spec reader and the scenario loader share one JSON reader
// (util/json_reader.h): every error is "FILE:POINTER: problem; expected X, got Y".
TEST(KernelSpecTest, ErrorsNameFilePointerAndExpectation) {
  EXPECT_EQ("k.json: invalid JSON at line 1, column 2: syntax error while parsing object key - unexpected end of "
            "input; expected string literal; expected a kernel spec object", SpecError("{"));
  EXPECT_EQ("k.json:/slotguard_kernel_spec: missing required key; expected the spec version 1 or 2", SpecError("{}"));
  EXPECT_EQ("k.json:/famly: unknown key 'famly', did you mean 'family'?; expected one of slotguard_kernel_spec, "
            "family, symbol, params, grid, block, shared_bytes",
            SpecError(R"({"slotguard_kernel_spec": 1, "famly": "paged"})"));
  EXPECT_EQ("k.json:/family: unknown kernel family 'kpool'; expected one of paged, kpool_tail, qsa_ring, "
            "qsa_compressed, compressor_ring, dflash, dsv4_compressed, eagle_step, eagle_step_chain, flashinfer_append, flashinfer_batch_indices, lmcache_vllm_adapter, sglang_mamba, "
            "sglang_out_cache_loc, trtllm_paged, vllm_encoder_only, vllm_extract_hidden_states, vllm_gather_block_tables, vllm_gdn, vllm_hisparse_compressed, vllm_lightning, vllm_mamba, vllm_mamba_copy, vllm_mamba_postcopy, vllm_offload_store, vllm_parallel_drafting, vllm_sliding_window",
            SpecError(R"({"slotguard_kernel_spec": 1, "family": "kpool", "symbol": "k"})"));
  EXPECT_EQ("k.json:/params/1/buffer: unknown buffer 'postions', did you mean 'positions'?; expected one of "
            "query_start_loc, positions, seq_lens, seq_lens_i32, idx_mapping, slot_mapping_in, block_table, slot_mapping, "
            "tail_slot_mapping, common_slot_mapping, gate_slot_mapping, request_of_token",
            SpecError(kHead + R"("params": [{"buffer": "slot_mapping"}, {"buffer": "postions"}]})"));
  EXPECT_EQ("k.json:/params/0/type: missing required key; expected \"i32\", \"i64\" or \"ptr\"",
            SpecError(kHead + R"("params": [{"scalar": "num_reqs"}]})"));
  EXPECT_EQ("k.json:/params/0/type: a number cannot be a pointer; expected \"i32\" or \"i64\", got \"ptr\"",
            SpecError(kHead + R"("params": [{"param": "kpool", "type": "ptr"}]})"));
  EXPECT_EQ("k.json:/params/0: not one kind of parameter; expected exactly one of \"buffer\", \"scalar\", "
            "\"param\", \"constant\", got 2",
            SpecError(kHead + R"("params": [{"buffer": "positions", "constant": 0}]})"));
  EXPECT_EQ("k.json:/grid/0: unknown function 'ceil'; expected cdiv, min, max or mod",
            SpecError(kHead + R"j("params": [], "grid": ["ceil(num_tokens, 256)"], "block": [128]})j"));
  EXPECT_EQ("k.json:/symbol: duplicate key 'symbol'; expected each key once per object",
            SpecError(kHead + R"("symbol": "k2", "params": [], "grid": [1], "block": [1]})"));
  EXPECT_EQ("k.json:/params/0/param: unknown parameter of family kpool_tail 'ring'; expected one of kpool",
            SpecError(kHead + R"("params": [{"param": "ring", "type": "i32"}]})"));
  EXPECT_EQ("k.json:/grid: wrong number of dimensions; expected an array of 1 to 3 formulas (strings or "
            "integers), got 4",
            SpecError(kHead + R"("params": [], "grid": [1, 1, 1, 1], "block": [1]})"));
  EXPECT_EQ("k.json:/block: wrong type; expected an array of 1 to 3 integers, got the string \"128\"",
            SpecError(kHead + R"("params": [], "grid": [1], "block": "128"})"));
  EXPECT_EQ("k.json:/block/0: block size out of range; expected 1 <= block size <= 1024, got 2048",
            SpecError(kHead + R"("params": [], "grid": [1], "block": [2048]})"));
}

// --- spec 2 ------------------------------------------------------------------

TEST(GridFormulaTest, ComparisonsAndLogicYieldZeroOrOne) {
  EXPECT_EQ(1, Eval("num_reqs == 5"));
  EXPECT_EQ(0, Eval("num_reqs != 5"));
  EXPECT_EQ(0, Eval("kpool < 64"));
  EXPECT_EQ(1, Eval("kpool <= 64"));
  EXPECT_EQ(1, Eval("num_tokens > num_actual_tokens"));
  EXPECT_EQ(0, Eval("num_reqs >= 6"));
  EXPECT_EQ(1, Eval("num_reqs > 4 && kpool >= 64"));
  EXPECT_EQ(0, Eval("num_reqs > 5 || !kpool"));
  EXPECT_EQ(0, Eval("!(num_reqs == 5)"));
  EXPECT_EQ(1, Eval("!0"));
  EXPECT_EQ(2, Eval("!!num_reqs + 1"));
  EXPECT_EQ(-1, Eval("-(num_reqs < 6)"));
  // Precedence as in C: arithmetic, then < <= > >=, then == !=, then &&, then ||.
  EXPECT_EQ(1, Eval("1 + 2 == 3"));
  EXPECT_EQ(1, Eval("1 < 2 == 1"));
  EXPECT_EQ(1, Eval("0 && 0 || 1"));
  EXPECT_EQ(0, Eval("0 && (0 || 1)"));
  EXPECT_EQ(7, Eval("max(num_reqs > 3, 7)"));
  EXPECT_EQ(6, Eval("num_reqs + (num_tokens > 1000)"));
  // && and || evaluate their right side only when it decides.
  EXPECT_EQ(1, Eval("num_reqs == 5 || 1 / 0"));
  EXPECT_EQ(0, Eval("num_reqs == 0 && 1 / 0"));
  EXPECT_EQ(1, Eval("num_reqs == 0 || num_tokens / num_reqs > 100"));
}

TEST(GridFormulaTest, NumGroupsAndVariables) {
  GridFormula f;
  std::string err;
  ASSERT_TRUE(f.Parse("num_groups * (num_reqs + 1) + kpool", &err)) << err;
  int64_t v = 0;
  ASSERT_TRUE(f.Evaluate(Call(), &v, &err)) << err;
  EXPECT_EQ(1 * 6 + 64, v);  // num_groups is 1 in a one-group launch
  ASSERT_TRUE(f.Evaluate(Call(), 3, &v, &err)) << err;
  EXPECT_EQ(3 * 6 + 64, v);
  ASSERT_TRUE(f.Parse("kpool == 4 && num_reqs >= kpool || num_groups > 1", &err)) << err;
  EXPECT_EQ((std::vector<std::string>{"kpool", "num_reqs", "num_groups"}), f.Variables());
}

TEST(GridFormulaTest, ComparisonErrorsNameTheProblem) {
  GridFormula f;
  std::string err;
  EXPECT_FALSE(f.Parse("kpool = 4", &err));
  EXPECT_EQ("'=' is no operator at column 7; expected '==' to compare", err);
  EXPECT_FALSE(f.Parse("kpool == 4 & num_reqs > 1", &err));
  EXPECT_EQ("'&' is no operator at column 12; expected '&&'", err);
  EXPECT_FALSE(f.Parse("kpool | 1", &err));
  EXPECT_EQ("'|' is no operator at column 7; expected '||'", err);
  EXPECT_FALSE(f.Parse("kpool <", &err));
  EXPECT_EQ("the formula ends early", err);
  EXPECT_FALSE(f.Parse("!", &err));
  EXPECT_EQ("the formula ends early", err);
  EXPECT_FALSE(f.Parse("!= 3", &err));
  EXPECT_EQ("unexpected '!' at column 1", err);
  ASSERT_TRUE(f.Parse("4611686018427387903 * 2 + num_reqs", &err)) << err;
  int64_t v;
  EXPECT_FALSE(f.Evaluate(Call(), &v, &err));
  EXPECT_EQ("the value overflows int64", err);
  ASSERT_TRUE(f.Parse("num_tokens * 4611686018427387903", &err)) << err;
  EXPECT_FALSE(f.Evaluate(Call(), &v, &err));
  EXPECT_EQ("the value overflows int64", err);
}

KernelSpec Spec(const std::string& text, const std::string& file = "k.json") {
  KernelSpec spec;
  std::string err;
  EXPECT_TRUE(ParseKernelSpec(text, file, &spec, &err)) << err;
  return spec;
}

const std::string kHead2 = R"({"slotguard_kernel_spec": 2, "family": "kpool_tail", "symbol": "k", )";
const std::string kTail = R"(, "grid": [1], "block": [1]})";

TEST(KernelSpecTest, SpecTwoArgumentsParse) {
  const KernelSpec spec = Spec(kHead2 + R"("params": [
      {"value": "kpool * 2 + 1", "type": "i32"}, {"value": 7, "type": "i64"},
      {"scratch": "token_to_req", "elements": "num_tokens + 1", "element_bytes": 4},
      {"buffer": "request_of_token"}, {"scalar": "num_real_tokens", "type": "i64"},
      {"scalar": "num_groups", "type": "i32"}])" + kTail);
  ASSERT_EQ(6u, spec.params.size());
  EXPECT_EQ(SpecArgKind::kValue, spec.params[0].kind);
  EXPECT_EQ("kpool * 2 + 1", spec.params[0].formula.text());
  EXPECT_EQ(SpecType::kI32, spec.params[0].type);
  EXPECT_EQ("7", spec.params[1].formula.text());
  EXPECT_EQ(SpecArgKind::kScratch, spec.params[2].kind);
  EXPECT_EQ("token_to_req", spec.params[2].name);
  EXPECT_EQ("num_tokens + 1", spec.params[2].formula.text());
  EXPECT_EQ(4, spec.params[2].element_bytes);
  EXPECT_EQ(SpecArgKind::kBuffer, spec.params[3].kind);
  EXPECT_EQ("request_of_token", spec.params[3].name);
  EXPECT_FALSE(spec.whole_scenario);
  EXPECT_EQ("k.json", spec.file);
  EXPECT_EQ("/params", spec.params_pointer);
}

TEST(KernelSpecTest, SpecializationsAndPreconditionsParse) {
  const KernelSpec spec = Spec(R"j({"slotguard_kernel_spec": 2, "family": "qsa_ring", "symbol": "ring4",
      "params": [{"buffer": "slot_mapping"}], "grid": ["cdiv(num_tokens, 128)"], "block": [128],
      "precondition": ["num_reqs >= 1", "num_tokens < 100000"],
      "specializations": [
        {"requires": ["ring == 4"]},
        {"requires": ["ring == 16", "num_reqs > 0"], "cubin": "ring16.cubin", "symbol": "ring16",
         "params": [{"buffer": "slot_mapping"}, {"param": "ring", "type": "i32"}], "block": [256], "shared_bytes": 64},
        {"cubin": "/abs/any.fatbin", "grid": [2]}]})j",
                               "dir/sub/k.json");
  ASSERT_EQ(2u, spec.precondition.size());
  EXPECT_EQ("num_tokens < 100000", spec.precondition[1].text());
  ASSERT_EQ(3u, spec.specializations.size());
  const SpecSpecialization& s0 = spec.specializations[0];
  ASSERT_EQ(1u, s0.conditions.size());
  EXPECT_EQ("ring == 4", s0.conditions[0].text());
  EXPECT_EQ("", s0.kernel.cubin);  // the --kernel-cubin file
  EXPECT_EQ("ring4", s0.kernel.symbol);
  EXPECT_EQ(1u, s0.kernel.params.size());
  EXPECT_EQ(128, s0.kernel.block[0]);
  const SpecSpecialization& s1 = spec.specializations[1];
  EXPECT_EQ(2u, s1.conditions.size());
  EXPECT_EQ("dir/sub/ring16.cubin", s1.kernel.cubin);  // relative to the spec's folder
  EXPECT_EQ("ring16", s1.kernel.symbol);
  ASSERT_EQ(2u, s1.kernel.params.size());
  EXPECT_EQ("/specializations/1/params", s1.kernel.params_pointer);
  EXPECT_EQ(256, s1.kernel.block[0]);
  EXPECT_EQ(64, s1.kernel.shared_bytes);
  EXPECT_EQ("cdiv(num_tokens, 128)", s1.kernel.grid[0].text());
  EXPECT_EQ("/grid", s1.kernel.grid_pointer);
  const SpecSpecialization& s2 = spec.specializations[2];
  EXPECT_TRUE(s2.conditions.empty());  // always fits
  EXPECT_EQ("/abs/any.fatbin", s2.kernel.cubin);
  EXPECT_EQ("2", s2.kernel.grid[0].text());
  EXPECT_EQ("/specializations/2/grid", s2.kernel.grid_pointer);

  // Every specialization may name its own symbol, params, grid and block instead.
  const KernelSpec own = Spec(R"({"slotguard_kernel_spec": 2, "family": "qsa_ring", "specializations": [
      {"requires": ["ring == 4"], "symbol": "a", "params": [], "grid": [1], "block": [32]}]})");
  EXPECT_EQ("", own.symbol);
  EXPECT_EQ("a", own.display_symbol());
}

TEST(KernelSpecTest, WholeScenarioSpecsParse) {
  const KernelSpec spec = Spec(R"({"slotguard_kernel_spec": 2, "family": "paged", "launch": "scenario",
      "symbol": "compute_slot_mappings",
      "params": [{"scalar": "num_reqs", "type": "i32"}, {"buffer": "query_start_loc"},
                 {"group_array": "block_table", "type": "u64"}, {"group_array": "block_table_row_stride", "type": "i64"},
                 {"group_array": "block_size", "type": "i32"}, {"group_array": "slot_mapping", "type": "u64"},
                 {"param": "dcp_rank", "type": "i32"}],
      "grid": ["num_groups", "num_reqs + 1"], "block": [128]})");
  EXPECT_TRUE(spec.whole_scenario);
  ASSERT_EQ(7u, spec.params.size());
  EXPECT_EQ(SpecArgKind::kGroupArray, spec.params[2].kind);
  EXPECT_EQ(SpecType::kU64, spec.params[2].type);
  EXPECT_EQ(SpecType::kI64, spec.params[3].type);
  EXPECT_EQ("block_size", spec.params[4].name);
  EXPECT_FALSE(Spec(kHead2 + R"("launch": "group", "params": [])" + kTail).whole_scenario);
}

// Spec 1 files mean what they meant: spec-2 keys and names are errors there.
TEST(KernelSpecTest, SpecOneCannotUseSpecTwoKeys) {
  const std::string v1 = R"({"slotguard_kernel_spec": 1, "family": "kpool_tail", "symbol": "k", )";
  const std::string needs = " needs \"slotguard_kernel_spec\": 2; expected \"slotguard_kernel_spec\": 2, or only the ";
  EXPECT_EQ("k.json:/launch: key 'launch'" + needs +
                "spec-1 keys slotguard_kernel_spec, family, symbol, params, grid, block, shared_bytes",
            SpecError(v1 + R"("launch": "scenario", "params": [])" + kTail));
  EXPECT_EQ("k.json:/precondition: key 'precondition'" + needs +
                "spec-1 keys slotguard_kernel_spec, family, symbol, params, grid, block, shared_bytes",
            SpecError(v1 + R"("precondition": ["num_reqs >= 1"], "params": [])" + kTail));
  EXPECT_EQ("k.json:/specializations: key 'specializations'" + needs +
                "spec-1 keys slotguard_kernel_spec, family, symbol, params, grid, block, shared_bytes",
            SpecError(v1 + R"("specializations": [], "params": [])" + kTail));
  const std::string param_keys = "spec-1 keys buffer, scalar, param, constant, type";
  EXPECT_EQ("k.json:/params/0/value: key 'value'" + needs + param_keys,
            SpecError(v1 + R"("params": [{"value": "1", "type": "i32"}])" + kTail));
  EXPECT_EQ("k.json:/params/0/scratch: key 'scratch'" + needs + param_keys,
            SpecError(v1 + R"("params": [{"scratch": "s", "elements": 1, "element_bytes": 4}])" + kTail));
  EXPECT_EQ("k.json:/params/0/group_array: key 'group_array'" + needs + param_keys,
            SpecError(v1 + R"("params": [{"group_array": "block_table", "type": "u64"}])" + kTail));
  const std::string name = " is a spec-2 name; expected \"slotguard_kernel_spec\": 2 to use it";
  EXPECT_EQ("k.json:/params/0: 'request_of_token'" + name,
            SpecError(v1 + R"("params": [{"buffer": "request_of_token"}])" + kTail));
  EXPECT_EQ("k.json:/params/0: 'num_groups'" + name,
            SpecError(v1 + R"("params": [{"scalar": "num_groups", "type": "i32"}])" + kTail));
  EXPECT_EQ("k.json:/grid/0: 'num_groups'" + name, SpecError(v1 + R"("params": [], "grid": ["num_groups"], "block": [1]})"));
  EXPECT_EQ("k.json:/params/0/type: unknown type 'u64', did you mean 'i64'?; expected one of i32, i64, ptr",
            SpecError(v1 + R"("params": [{"constant": 1, "type": "u64"}])" + kTail));
  // A spec-1 grid naming another family's parameter still fails only per launch, as it did.
  EXPECT_TRUE(Spec(v1 + R"("params": [], "grid": ["ring"], "block": [1]})").grid[0].text() == "ring");
}

TEST(KernelSpecTest, SpecTwoErrorsNameFilePointerAndExpectation) {
  const std::string scenario = R"({"slotguard_kernel_spec": 2, "family": "paged", "launch": "scenario", "symbol": "k", )";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {kHead2 + R"("params": [{"buffer": "slot_mapping", "constant": 0}])" + kTail,
       "k.json:/params/0: not one kind of parameter; expected exactly one of \"buffer\", \"scalar\", \"param\", "
       "\"constant\", \"value\", \"scratch\", \"group_array\", got 2"},
      {kHead2 + R"("params": [{"values": "1"}])" + kTail,
       "k.json:/params/0/values: unknown key 'values', did you mean 'value'?; expected one of buffer, scalar, param, "
       "constant, type, value, scratch, elements, element_bytes, group_array"},
      {kHead2 + R"("launch": "grup", "params": [])" + kTail,
       "k.json:/launch: unknown launch 'grup', did you mean 'group'?; expected one of group, scenario"},
      {kHead2 + R"("params": [{"value": "kpool * 2"}])" + kTail,
       "k.json:/params/0/type: missing required key; expected \"i32\" or \"i64\""},
      {kHead2 + R"("params": [{"value": "kpool", "type": "ptr"}])" + kTail,
       "k.json:/params/0/type: a number cannot be a pointer; expected \"i32\" or \"i64\", got \"ptr\""},
      {kHead2 + R"("params": [{"value": "kpool", "type": "u64"}])" + kTail,
       "k.json:/params/0/type: \"u64\" is only for a group_array of buffers; expected \"i32\" or \"i64\", got \"u64\""},
      {kHead2 + R"("params": [{"scalar": "num_reqs", "type": "u64"}])" + kTail,
       "k.json:/params/0/type: \"u64\" is only for a group_array of buffers; expected \"i32\" or \"i64\", got \"u64\""},
      {kHead2 + R"("params": [{"value": "kpool = 2", "type": "i32"}])" + kTail,
       "k.json:/params/0/value: '=' is no operator at column 7; expected '==' to compare"},
      {kHead2 + R"("params": [{"value": true, "type": "i32"}])" + kTail,
       "k.json:/params/0/value: wrong type; expected a formula (string) or an integer, got true"},
      {kHead2 + R"("params": [{"value": "ring * 2", "type": "i32"}])" + kTail,
       "k.json:/params/0/value: 'ring' is not a parameter of family kpool_tail; expected the call's sizes or the "
       "family's parameters (kpool)"},
      {kHead2 + R"("params": [], "grid": ["ring"], "block": [1]})",
       "k.json:/grid/0: 'ring' is not a parameter of family kpool_tail; expected the call's sizes or the family's "
       "parameters (kpool)"},
      {kHead2 + R"("params": [{"scratch": "s", "element_bytes": 4}])" + kTail,
       "k.json:/params/0/elements: missing required key; expected its element count, a formula (\"num_tokens + 1\")"},
      {kHead2 + R"("params": [{"scratch": "s", "elements": 4}])" + kTail,
       "k.json:/params/0/element_bytes: missing required key; expected the bytes of one element, 1 to 1024"},
      {kHead2 + R"("params": [{"scratch": "s", "elements": 4, "element_bytes": 0}])" + kTail,
       "k.json:/params/0/element_bytes: element_bytes out of range; expected 1 <= element_bytes <= 1024, got 0"},
      {kHead2 + R"("params": [{"scratch": "", "elements": 4, "element_bytes": 4}])" + kTail,
       "k.json:/params/0/scratch: empty name; expected a name for the buffer (\"token_to_req\")"},
      {kHead2 + R"("params": [{"scratch": "s", "elements": 4, "element_bytes": 4, "type": "ptr"}])" + kTail,
       "k.json:/params/0/type: a scratch buffer is a pointer; expected no \"type\""},
      {kHead2 + R"("params": [{"scratch": "s", "elements": 4, "element_bytes": 4},
                              {"scratch": "s", "elements": 8, "element_bytes": 4}])" + kTail,
       "k.json:/params/1/scratch: scratch 's' is named twice; expected each scratch buffer named once"},
      {kHead2 + R"("params": [{"buffer": "positions", "elements": 4}])" + kTail,
       "k.json:/params/0/elements: key 'elements' belongs to a scratch parameter; expected it beside \"scratch\" only"},
      {kHead2 + R"("params": [{"group_array": "block_table", "type": "u64"}])" + kTail,
       "k.json:/params/0/group_array: key 'group_array' needs \"launch\": \"scenario\"; expected \"launch\": "
       "\"scenario\" (one launch over every group), or a parameter of one group's call"},
      {scenario + R"("params": [{"group_array": "block_tabel", "type": "u64"}])" + kTail,
       "k.json:/params/0/group_array: unknown group_array name 'block_tabel', did you mean 'block_table'?; expected "
       "one of query_start_loc, positions, seq_lens, seq_lens_i32, idx_mapping, slot_mapping_in, block_table, "
       "slot_mapping, tail_slot_mapping, common_slot_mapping, gate_slot_mapping, request_of_token, block_size, kernel_block_size, "
       "dcp_world, dcp_rank, dcp_interleave, enabled, num_reqs, num_actual_tokens, num_real_tokens, num_tokens, "
       "block_table_width, block_table_row_stride, block_table_rows, block_table_rows_by_idx_mapping"},
      {scenario + R"("params": [{"group_array": "block_table", "type": "i64"}])" + kTail,
       "k.json:/params/0/type: a group array of buffers holds their addresses; expected \"u64\", got \"i64\""},
      {scenario + R"("params": [{"group_array": "slot_mapping"}])" + kTail,
       "k.json:/params/0/type: missing required key; expected \"u64\" (the buffers' addresses)"},
      {scenario + R"("params": [{"group_array": "block_size", "type": "u64"}])" + kTail,
       "k.json:/params/0/type: \"u64\" is only for a group_array of buffers; expected \"i32\" or \"i64\", got \"u64\""},
      {scenario + R"("params": [{"buffer": "block_table"}])" + kTail,
       "k.json:/params/0/buffer: 'block_table' differs per group, and a \"launch\": \"scenario\" kernel takes every "
       "group at once; expected {\"group_array\": \"block_table\", \"type\": \"u64\"}"},
      {kHead2 + R"("precondition": "num_reqs >= 1", "params": [])" + kTail,
       "k.json:/precondition: wrong type; expected an array of conditions (formula strings such as \"ring == 4\"), "
       "got the string \"num_reqs >= 1\""},
      {kHead2 + R"("precondition": ["num_reqs >= 1", "num_req > 0"], "params": [])" + kTail,
       "k.json:/precondition/1: unknown variable 'num_req', did you mean 'num_reqs'?; expected one of num_reqs, "
       "num_actual_tokens, num_real_tokens, num_tokens, block_table_width, block_table_row_stride, block_table_rows, "
       "block_table_rows_by_idx_mapping, num_groups, block_size, kernel_block_size, dcp_world, dcp_rank, "
       "dcp_interleave, enabled, kpool, ring, compress_ratio, capacity, ring_block_size, num_query_per_req, "
       "max_model_len, page_size, tokens_per_block, sink_tokens, attention_window, one_more_block, lookahead, "
       "align, spec, num_accepted, logical_block_size, and 13 more"},
      {kHead2 + R"("params": [], "specializations": {})" + kTail,
       "k.json:/specializations: wrong type; expected an array of specializations, got an object"},
      {kHead2 + R"("params": [], "specializations": [])" + kTail,
       "k.json:/specializations: no specialization; expected at least one {\"requires\": [...], \"cubin\": ...}"},
      {kHead2 + R"("params": [], "specializations": [{"require": ["kpool == 4"]}])" + kTail,
       "k.json:/specializations/0/require: unknown key 'require', did you mean 'requires'?; expected one of "
       "requires, cubin, symbol, params, grid, block, shared_bytes"},
      {kHead2 + R"("params": [], "specializations": [{"requires": ["kpool == 4"], "launch": "group"}])" + kTail,
       "k.json:/specializations/0/launch: unknown key 'launch'; expected one of requires, cubin, symbol, params, "
       "grid, block, shared_bytes"},
      {kHead2 + R"("params": [], "specializations": [{"requires": ["ring == 4"]}])" + kTail,
       "k.json:/specializations/0/requires/0: 'ring' is not a parameter of family kpool_tail; expected the call's "
       "sizes or the family's parameters (kpool)"},
      {kHead2 + R"("params": [], "specializations": [{"requires": "kpool == 4"}])" + kTail,
       "k.json:/specializations/0/requires: wrong type; expected an array of conditions (formula strings such as "
       "\"ring == 4\"), got the string \"kpool == 4\""},
      {kHead2 + R"("params": [], "specializations": [{"cubin": ""}])" + kTail,
       "k.json:/specializations/0/cubin: empty path; expected a cubin, fatbin or PTX file (relative to the spec's "
       "folder)"},
      {R"({"slotguard_kernel_spec": 2, "family": "kpool_tail", "params": [], "grid": [1], "block": [1],
          "specializations": [{"requires": []}]})",
       "k.json:/specializations/0/symbol: missing required key; expected the kernel's symbol name (here or at the "
       "top level)"},
      {R"({"slotguard_kernel_spec": 2, "family": "kpool_tail", "symbol": "k", "grid": [1], "block": [1],
          "specializations": [{"requires": []}]})",
       "k.json:/specializations/0/params: missing required key; expected an array of parameters (here or at the "
       "top level)"},
      {R"({"slotguard_kernel_spec": 2, "family": "kpool_tail", "symbol": "k", "params": [], "block": [1],
          "specializations": [{"requires": [], "grid": [1]}, {"requires": []}]})",
       "k.json:/specializations/1/grid: missing required key; expected an array of 1 to 3 formulas (strings or "
       "integers) (here or at the top level)"},
      {kHead2 + R"("params": [], "specializations": [{"params": [{"value": "kpool"}]}])" + kTail,
       "k.json:/specializations/0/params/0/type: missing required key; expected \"i32\" or \"i64\""},
  };
  for (const auto& [text, error] : cases) EXPECT_EQ(error, SpecError(text)) << text;
}

sg_mapping_call Ring(int32_t ring, int32_t num_reqs = 3) {
  sg_mapping_call c{};
  c.family = "qsa_ring";
  c.num_reqs = num_reqs;
  c.num_tokens = 40;
  c.num_actual_tokens = 40;
  c.qsa_ring.ring = ring;
  return c;
}

const std::string kRings = R"j({"slotguard_kernel_spec": 2, "family": "qsa_ring", "symbol": "qsa_ring_ring4",
    "params": [{"buffer": "slot_mapping"}], "grid": ["cdiv(num_tokens, 128)"], "block": [128],
    "precondition": ["num_reqs >= 1"],
    "specializations": [{"requires": ["ring == 4"]},
                        {"requires": ["ring == 16"], "cubin": "r16.cubin", "symbol": "qsa_ring_ring16"}]})j";

TEST(SpecLaunchTest, SpecializationsPickAKernelOrSkip) {
  const KernelSpec spec = Spec(kRings, "S.json");
  SpecChoice c = ChooseSpecKernel(spec, {Ring(4)});
  EXPECT_EQ("", c.skip);
  EXPECT_EQ("", c.error);
  EXPECT_EQ(0, c.specialization);
  ASSERT_TRUE(c.kernel);
  EXPECT_EQ("qsa_ring_ring4", c.kernel->symbol);
  c = ChooseSpecKernel(spec, {Ring(16)});
  EXPECT_EQ(1, c.specialization);
  ASSERT_TRUE(c.kernel);
  EXPECT_EQ("qsa_ring_ring16", c.kernel->symbol);
  EXPECT_EQ("r16.cubin", c.kernel->cubin);
  c = ChooseSpecKernel(spec, {Ring(8)});
  EXPECT_FALSE(c.kernel);
  EXPECT_EQ("", c.error);
  EXPECT_EQ("kernel qsa_ring_ring4 (spec S.json): no specialization fits ring 8 (specializations: ring == 4, ring == 16)",
            c.skip);
  // The first that fits wins; a specialization without conditions fits everything.
  const KernelSpec fallback = Spec(R"({"slotguard_kernel_spec": 2, "family": "qsa_ring", "symbol": "k", "params": [],
      "grid": [1], "block": [1], "specializations": [{"requires": ["ring >= 8", "ring % 8 == 0"], "symbol": "wide"},
                                                     {"symbol": "any"}]})");
  EXPECT_EQ("wide", ChooseSpecKernel(fallback, {Ring(16)}).kernel->symbol);
  EXPECT_EQ("any", ChooseSpecKernel(fallback, {Ring(12)}).kernel->symbol);
  EXPECT_EQ("any", ChooseSpecKernel(fallback, {Ring(4)}).kernel->symbol);
  // No specializations: the spec's own kernel.
  const KernelSpec plain = Spec(kHead2 + R"("params": [])" + kTail);
  c = ChooseSpecKernel(plain, {Call()});
  EXPECT_EQ(&plain, c.kernel);
  EXPECT_EQ(-1, c.specialization);
}

TEST(SpecLaunchTest, APreconditionSaysTheEngineWouldLaunchSomethingElse) {
  const KernelSpec spec = Spec(kRings, "S.json");
  const SpecChoice c = ChooseSpecKernel(spec, {Ring(4, 0)});
  EXPECT_FALSE(c.kernel);
  EXPECT_EQ("kernel qsa_ring_ring4 (spec S.json): precondition 'num_reqs >= 1' does not hold (num_reqs 0): the "
            "engine's launcher would route this batch elsewhere",
            c.skip);
  // A precondition is checked before the specializations.
  EXPECT_EQ(0u, ChooseSpecKernel(spec, {Ring(8, 0)}).skip.find("kernel qsa_ring_ring4 (spec S.json): precondition"));
  // One that cannot be evaluated is the spec's fault, not a skip.
  const KernelSpec bad = Spec(kHead2 + R"("precondition": ["num_tokens / (num_reqs - 5) > 0"], "params": [])" + kTail);
  const SpecChoice e = ChooseSpecKernel(bad, {Call()});
  EXPECT_EQ("", e.skip);
  EXPECT_EQ("k.json:/precondition/0: division by zero", e.error);
  EXPECT_FALSE(e.kernel);
}

TEST(SpecLaunchTest, AWholeScenarioLaunchTakesGroupsThatAgree) {
  const KernelSpec spec = Spec(R"({"slotguard_kernel_spec": 2, "family": "qsa_ring", "launch": "scenario",
      "symbol": "k", "params": [{"param": "ring", "type": "i32"}, {"group_array": "block_table", "type": "u64"}],
      "grid": ["num_groups"], "block": [32],
      "specializations": [{"requires": ["ring <= 8"]}, {"requires": ["ring >= 8"], "symbol": "k2"}]})",
                               "W.json");
  // Every group fits the first: one kernel for all, and they agree on ring.
  SpecChoice c = ChooseSpecKernel(spec, {Ring(4), Ring(4)}, {"a", "b"});
  ASSERT_TRUE(c.kernel) << c.skip << c.error;
  EXPECT_EQ(0, c.specialization);
  // Each fits some specialization but no one fits both.
  c = ChooseSpecKernel(spec, {Ring(4), Ring(16)}, {"a", "b"});
  EXPECT_FALSE(c.kernel);
  EXPECT_EQ("kernel k (spec W.json): no one specialization fits every group (group 'a': ring 4; group 'b': ring 16) "
            "(specializations: ring <= 8, ring >= 8)",
            c.skip);
  // One that fits both but disagrees on the one value the launch takes.
  c = ChooseSpecKernel(spec, {Ring(8), Ring(4)}, {"a", "b"});
  EXPECT_FALSE(c.kernel);
  EXPECT_EQ("kernel k (spec W.json): one launch over every group takes one 'ring' (/params/0), and the groups differ "
            "(8 in group 'a', 4 in group 'b'); expected the same value in every group, or a group_array",
            c.skip);
  // Unnamed groups are numbered.
  c = ChooseSpecKernel(spec, {Ring(8), Ring(8), Ring(9)});
  EXPECT_EQ(0u, c.skip.find("kernel k (spec W.json): one launch over every group takes one 'ring' (/params/0), and "
                            "the groups differ (8 in group 0, 9 in group 2)"))
      << c.skip;
  // No specialization fits one group at all.
  const KernelSpec fours = Spec(R"({"slotguard_kernel_spec": 2, "family": "qsa_ring", "launch": "scenario",
      "symbol": "k4", "params": [], "grid": [1], "block": [1], "specializations": [{"requires": ["ring == 4"]}]})",
                                "W.json");
  EXPECT_EQ("kernel k4 (spec W.json): no specialization fits ring 16 of group 'b' (specializations: ring == 4)",
            ChooseSpecKernel(fours, {Ring(4), Ring(16)}, {"a", "b"}).skip);
}

TEST(SpecLaunchTest, PlanHoldsCellsScratchSizesAndGrid) {
  const KernelSpec spec = Spec(kHead2 + R"j("params": [
      {"value": "kpool * 2 + 1", "type": "i32"}, {"value": "num_tokens - num_actual_tokens", "type": "i64"},
      {"scratch": "token_to_req", "elements": "num_tokens + 1", "element_bytes": 4},
      {"buffer": "request_of_token"}, {"constant": -3, "type": "i32"}, {"scalar": "num_real_tokens", "type": "i64"},
      {"scratch": "none", "elements": "0", "element_bytes": 8}],
      "grid": ["max(num_reqs, 1) + cdiv(num_tokens - num_actual_tokens, 256)", "num_groups"], "block": [128]})j");
  sg_mapping_call call = Call();
  int32_t owners[4];
  call.request_of_token = owners;
  LaunchPlan plan;
  std::string err;
  ASSERT_TRUE(PlanLaunch(spec, spec, {call}, &plan, &err)) << err;
  ASSERT_EQ(7u, plan.args.size());
  int32_t v32;
  std::memcpy(&v32, &plan.args[0].cell, 4);
  EXPECT_EQ(129, v32);
  EXPECT_EQ(0u, plan.args[0].cell >> 32);  // an i32 fills the low 4 bytes
  EXPECT_EQ(324u, plan.args[1].cell);
  EXPECT_EQ(PlannedArg::Kind::kScratch, plan.args[2].kind);
  EXPECT_EQ((1024 + 1) * 4, plan.args[2].bytes);
  const void* p;
  std::memcpy(&p, &plan.args[3].cell, sizeof(p));
  EXPECT_EQ(static_cast<const void*>(owners), p);
  std::memcpy(&v32, &plan.args[4].cell, 4);
  EXPECT_EQ(-3, v32);
  EXPECT_EQ(690u, plan.args[5].cell);
  EXPECT_EQ(PlannedArg::Kind::kScratch, plan.args[6].kind);
  EXPECT_EQ(0, plan.args[6].bytes);  // a null pointer
  EXPECT_EQ(7, plan.grid[0]);
  EXPECT_EQ(1, plan.grid[1]);
  EXPECT_EQ(1, plan.grid[2]);
}

TEST(SpecLaunchTest, PlanErrorsNameFileAndPointer) {
  LaunchPlan plan;
  std::string err;
  KernelSpec spec = Spec(kHead2 + R"("params": [{"value": "kpool * 100000000", "type": "i32"}])" + kTail);
  EXPECT_FALSE(PlanLaunch(spec, spec, {Call()}, &plan, &err));
  EXPECT_EQ("k.json:/params/0/value: 'kpool * 100000000' is 6400000000 here; expected an i32 (or \"type\": \"i64\")",
            err);
  spec = Spec(kHead2 + R"("params": [{"scratch": "s", "elements": "num_reqs - 6", "element_bytes": 4}])" + kTail);
  EXPECT_FALSE(PlanLaunch(spec, spec, {Call()}, &plan, &err));
  EXPECT_EQ("k.json:/params/0/elements: 'num_reqs - 6' is -1 here; expected 0 to 274877906944 elements (at most 2^40 "
            "bytes)",
            err);
  spec = Spec(kHead2 + R"j("params": [{"value": "num_tokens % (num_reqs - 5)", "type": "i64"}])j" + kTail);
  EXPECT_FALSE(PlanLaunch(spec, spec, {Call()}, &plan, &err));
  EXPECT_EQ("k.json:/params/0/value: division by zero", err);
  spec = Spec(kHead2 + R"("params": [], "grid": ["num_reqs - 6"], "block": [1]})");
  EXPECT_FALSE(PlanLaunch(spec, spec, {Call()}, &plan, &err));
  EXPECT_EQ("k.json:/grid/0: 'num_reqs - 6' is -1 here; expected 0 <= grid x <= 2147483647 (CUDA's limit)", err);
}

// The grid in int64 with overflow checks and CUDA's limits per dimension:
// 2^30 x 2^30 x 16 passed the old check (each dimension <= 2^31-1) and its
// product wrapped to 0, so the kernel was skipped without a word.
TEST(SpecLaunchTest, AGridPastCudasLimitsIsASpecError) {
  LaunchPlan plan;
  std::string err;
  KernelSpec spec = Spec(kHead2 + R"("params": [], "grid": [1073741824, 1073741824, 16], "block": [1]})");
  EXPECT_FALSE(PlanLaunch(spec, spec, {Call()}, &plan, &err));
  EXPECT_EQ("k.json:/grid/1: '1073741824' is 1073741824 here; expected 0 <= grid y <= 65535 (CUDA's limit)", err);
  EXPECT_FALSE(CheckConstantGrids(spec, &err));  // before anything runs
  EXPECT_EQ("k.json:/grid/1: '1073741824' is 1073741824; expected 0 <= grid y <= 65535 (CUDA's limit)", err);
  spec = Spec(kHead2 + R"("params": [], "grid": [1, 1, "num_tokens * 70"], "block": [1]})");
  EXPECT_TRUE(CheckConstantGrids(spec, &err)) << err;  // known only at a launch
  EXPECT_FALSE(PlanLaunch(spec, spec, {Call()}, &plan, &err));
  EXPECT_EQ("k.json:/grid/2: 'num_tokens * 70' is 71680 here; expected 0 <= grid z <= 65535 (CUDA's limit)", err);
  // The largest grid CUDA takes: its product fits.
  spec = Spec(kHead2 + R"("params": [], "grid": [2147483647, 65535, 65535], "block": [1]})");
  EXPECT_TRUE(CheckConstantGrids(spec, &err)) << err;
  ASSERT_TRUE(PlanLaunch(spec, spec, {Call()}, &plan, &err)) << err;
  EXPECT_EQ(65535, plan.grid[2]);
  // A specialization's own grid too.
  spec = Spec(kHead2 + R"("params": [], "specializations": [{"requires": ["kpool == 4"], "grid": [1, 65536]}])" +
              kTail);
  EXPECT_FALSE(CheckConstantGrids(spec, &err));
  EXPECT_EQ("k.json:/specializations/0/grid/1: '65536' is 65536; expected 0 <= grid y <= 65535 (CUDA's limit)", err);
  // The block's threads too (each dimension alone is at most 1024).
  spec = Spec(kHead2 + R"("params": [], "grid": [1], "block": [1024, 2]})");
  EXPECT_FALSE(CheckConstantGrids(spec, &err));
  EXPECT_EQ("k.json:/block: 1024 x 2 x 1 threads per block; expected at most 1024 in all and 64 in z (CUDA's limits)",
            err);
  spec = Spec(kHead2 + R"("params": [], "grid": [1], "block": [4, 2, 128]})");
  EXPECT_FALSE(CheckConstantGrids(spec, &err));
}

// A skip line stays one bounded line whatever the spec holds: 10,000
// specializations that never match gave a ~150 KB line.
TEST(SpecLaunchTest, ASkipLineOfManySpecializationsIsBounded) {
  std::string list;
  for (int i = 0; i < 10000; ++i) list += std::string(i ? ", " : "") + "{\"requires\": [\"ring == " + std::to_string(1000 + i) + "\"]}";
  const KernelSpec spec = Spec(R"({"slotguard_kernel_spec": 2, "family": "qsa_ring", "symbol": "k", "params": [],
      "grid": [1], "block": [1], "specializations": [)" + list + "]}");
  const SpecChoice c = ChooseSpecKernel(spec, {Ring(8)});
  EXPECT_FALSE(c.kernel);
  EXPECT_LE(CountChars(c.skip), 1000u + 20) << c.skip.size();
  EXPECT_EQ(0u, c.skip.find("kernel k (spec k.json): no specialization fits ring 8 (specializations: ring == 1000, "
                            "ring == 1001, ring == 1002, ring == 1003, ring == 1004, ring == 1005, ring == 1006, "
                            "ring == 1007, and 9992 more)"))
      << c.skip.substr(0, 300);
}

TEST(SpecLaunchTest, GroupArraysHoldOneElementPerGroup) {
  const KernelSpec spec = Spec(R"({"slotguard_kernel_spec": 2, "family": "paged", "launch": "scenario",
      "symbol": "k", "params": [{"group_array": "block_table", "type": "u64"},
                                {"group_array": "block_table_row_stride", "type": "i64"},
                                {"group_array": "block_size", "type": "i32"},
                                {"group_array": "slot_mapping", "type": "u64"},
                                {"scalar": "num_reqs", "type": "i32"}, {"buffer": "positions"}],
      "grid": ["num_groups", "num_reqs + 1"], "block": [128]})");
  int32_t tables[3][4];
  int64_t outs[3][4];
  int64_t positions[4];
  std::vector<sg_mapping_call> calls(3);
  for (int g = 0; g < 3; ++g) {
    sg_mapping_call& c = calls[g];
    c.family = "paged";
    c.num_reqs = 2;
    c.num_tokens = 4;
    c.positions = positions;
    c.block_table = tables[g];
    c.block_table_row_stride = 10 + g;
    c.paged.block_size = 16 << g;
    c.slot_mapping = outs[g];
  }
  ASSERT_EQ("", ChooseSpecKernel(spec, calls).skip);
  LaunchPlan plan;
  std::string err;
  ASSERT_TRUE(PlanLaunch(spec, spec, calls, &plan, &err)) << err;
  ASSERT_EQ(6u, plan.args.size());
  const auto words = [&](size_t arg) {
    std::vector<uint64_t> w(plan.args[arg].data.size() / 8);
    std::memcpy(w.data(), plan.args[arg].data.data(), plan.args[arg].data.size());
    return w;
  };
  EXPECT_EQ(PlannedArg::Kind::kGroupArray, plan.args[0].kind);
  EXPECT_EQ(24, plan.args[0].bytes);
  EXPECT_EQ((std::vector<uint64_t>{reinterpret_cast<uintptr_t>(tables[0]), reinterpret_cast<uintptr_t>(tables[1]),
                                   reinterpret_cast<uintptr_t>(tables[2])}),
            words(0));
  EXPECT_EQ((std::vector<uint64_t>{10, 11, 12}), words(1));
  ASSERT_EQ(12, plan.args[2].bytes);
  int32_t sizes[3];
  std::memcpy(sizes, plan.args[2].data.data(), sizeof(sizes));
  EXPECT_EQ(16, sizes[0]);
  EXPECT_EQ(32, sizes[1]);
  EXPECT_EQ(64, sizes[2]);
  EXPECT_EQ((std::vector<uint64_t>{reinterpret_cast<uintptr_t>(outs[0]), reinterpret_cast<uintptr_t>(outs[1]),
                                   reinterpret_cast<uintptr_t>(outs[2])}),
            words(3));
  EXPECT_EQ(2u, plan.args[4].cell);  // the batch's, from the first call
  const void* p;
  std::memcpy(&p, &plan.args[5].cell, sizeof(p));
  EXPECT_EQ(static_cast<const void*>(positions), p);
  EXPECT_EQ(3, plan.grid[0]);
  EXPECT_EQ(3, plan.grid[1]);
  // A group array value past i32.
  calls[1].block_table_row_stride = int64_t{1} << 40;
  const KernelSpec narrow = Spec(R"({"slotguard_kernel_spec": 2, "family": "paged", "launch": "scenario",
      "symbol": "k", "params": [{"group_array": "block_table_row_stride", "type": "i32"}], "grid": [1], "block": [1]})");
  EXPECT_FALSE(PlanLaunch(narrow, narrow, calls, &plan, &err));
  EXPECT_EQ("k.json:/params/0: 'block_table_row_stride' is 1099511627776 in group 1; expected an i32 (or \"type\": "
            "\"i64\")",
            err);
}

TEST(KernelSpecTest, TheFixtureSpecsLoad) {
  for (const char* name : {"formula_arg_kpool", "scratch_kernels", "scratch_probe", "request_of_token_compressor",
                           "v2_paged_groups", "kpool_needs_requests", "qsa_ring_baked"}) {
    KernelSpec spec;
    std::string err;
    EXPECT_TRUE(LoadKernelSpec(std::string(SLOTGUARD_SOURCE_DIR "/tests/plugin/fixtures/") + name + ".spec.json",
                               &spec, &err))
        << err;
  }
}

}  // namespace
}  // namespace slotguard
