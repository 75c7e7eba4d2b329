// --kernel-spec: grid formulas and the spec file's one-line errors.
#include <gtest/gtest.h>

#include "plugin/kernel_spec.h"

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
  EXPECT_EQ("unknown function 'ceil'; expected cdiv, min or max", err);
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
            "qsa_compressed, compressor_ring",
            SpecError(R"({"slotguard_kernel_spec": 1, "family": "kpool", "symbol": "k"})"));
  EXPECT_EQ("k.json:/params/1/buffer: unknown buffer 'postions', did you mean 'positions'?; expected one of "
            "query_start_loc, positions, seq_lens, seq_lens_i32, idx_mapping, slot_mapping_in, block_table, slot_mapping, "
            "tail_slot_mapping, common_slot_mapping",
            SpecError(kHead + R"("params": [{"buffer": "slot_mapping"}, {"buffer": "postions"}]})"));
  EXPECT_EQ("k.json:/params/0/type: missing required key; expected \"i32\", \"i64\" or \"ptr\"",
            SpecError(kHead + R"("params": [{"scalar": "num_reqs"}]})"));
  EXPECT_EQ("k.json:/params/0/type: a number cannot be a pointer; expected \"i32\" or \"i64\", got \"ptr\"",
            SpecError(kHead + R"("params": [{"param": "kpool", "type": "ptr"}]})"));
  EXPECT_EQ("k.json:/params/0: not one kind of parameter; expected exactly one of \"buffer\", \"scalar\", "
            "\"param\", \"constant\", got 2",
            SpecError(kHead + R"("params": [{"buffer": "positions", "constant": 0}]})"));
  EXPECT_EQ("k.json:/grid/0: unknown function 'ceil'; expected cdiv, min or max",
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

}  // namespace
}  // namespace slotguard
