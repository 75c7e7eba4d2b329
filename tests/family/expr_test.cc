// The formula language (family/expr.h): values worked out by hand, the
// errors of evaluation, binding constants, and agreement of the compiled
// program with a plain recursive reading of the tree on random formulas.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "family/expr.h"

namespace slotguard {
namespace {

const std::vector<std::string> kNames = {"t", "pos", "page", "zero"};

int64_t Eval(const std::string& text, std::vector<int64_t> vars = {7, 37, 16, 0}) {
  Expr e;
  std::string err;
  EXPECT_TRUE(e.Parse(text, kNames, &err)) << err;
  int64_t v = -12345;
  EXPECT_TRUE(e.Evaluate(vars.data(), &v, &err)) << text << ": " << err;
  return v;
}

std::string EvalError(const std::string& text) {
  Expr e;
  std::string err;
  EXPECT_TRUE(e.Parse(text, kNames, &err)) << err;
  const std::vector<int64_t> vars = {7, 37, 16, 0};
  int64_t v;
  EXPECT_FALSE(e.Evaluate(vars.data(), &v, &err)) << text;
  return err;
}

TEST(ExprTest, ArithmeticAsInC) {
  EXPECT_EQ(2, Eval("pos / page"));       // 37 / 16
  EXPECT_EQ(5, Eval("pos % page"));       // 37 - 32
  EXPECT_EQ(-2, Eval("-pos / page"));     // truncates toward zero
  EXPECT_EQ(-5, Eval("-pos % page"));     // the sign of the dividend
  EXPECT_EQ(11, Eval("mod(-pos, page)"));  // floor modulo: -37 = -3 * 16 + 11
  EXPECT_EQ(5, Eval("mod(pos, page)"));
  EXPECT_EQ(-11, Eval("mod(pos, -page)"));  // the sign of the divisor
  EXPECT_EQ(0, Eval("mod(-32, page)"));
  EXPECT_EQ(3, Eval("cdiv(pos, page)"));
  EXPECT_EQ(2, Eval("cdiv(32, page)"));
  EXPECT_EQ(7, Eval("min(t, pos)"));
  EXPECT_EQ(37, Eval("max(t, pos)"));
  EXPECT_EQ(1, Eval("(pos + 1) % page == 6 && t < 8"));
  EXPECT_EQ(0, Eval("!t || zero"));
  EXPECT_EQ(1, Eval("zero == 0 || 1 / zero"));  // || decides on its left side
  EXPECT_EQ(0, Eval("zero != 0 && 1 / zero"));  // && likewise
  EXPECT_EQ(2, Eval("!!t + 1"));
}

TEST(ExprTest, EvaluationErrorsAreNotWrappedValues) {
  EXPECT_EQ("division by zero", EvalError("pos / zero"));
  EXPECT_EQ("division by zero", EvalError("mod(pos, zero)"));
  EXPECT_EQ("division by zero", EvalError("cdiv(pos, zero)"));
  EXPECT_EQ("the value overflows int64", EvalError("4611686018427387904 * 2"));
  EXPECT_EQ("the value overflows int64", EvalError("4611686018427387904 + 4611686018427387904"));
  EXPECT_EQ("the value overflows int64", EvalError("-4611686018427387904 - 4611686018427387904 - 1"));
  EXPECT_EQ("the value overflows int64", EvalError("cdiv(4611686018427387904 + 4611686018427387903, page)"));
  // cdiv's b - 1 overflows for b = INT64_MIN (undefined behaviour before,
  // which wrapped to a value: cdiv(-1, INT64_MIN) was 0; fuzz_family_file found it).
  EXPECT_EQ("the value overflows int64", EvalError("cdiv(pos, -9223372036854775807 - 1)"));
  EXPECT_EQ("the value overflows int64", EvalError("cdiv(-1, -9223372036854775807 - 1)"));
}

TEST(ExprTest, ParseErrorsNameTheProblem) {
  Expr e;
  std::string err;
  EXPECT_FALSE(e.Parse("poss + 1", kNames, &err));
  EXPECT_EQ("unknown variable 'poss', did you mean 'pos'?; expected one of t, pos, page, zero", err);
  EXPECT_FALSE(e.Parse("floor(pos, 2)", kNames, &err));
  EXPECT_EQ("unknown function 'floor'; expected cdiv, min, max or mod", err);
  EXPECT_FALSE(e.Parse("mod(pos)", kNames, &err));
  EXPECT_EQ("mod takes 2 arguments, got 1", err);
  EXPECT_FALSE(e.Parse("pos = 1", kNames, &err));
  EXPECT_EQ("'=' is no operator at column 5; expected '==' to compare", err);
  EXPECT_FALSE(e.Parse("", kNames, &err));
  EXPECT_EQ("the formula ends early", err);
}

// Every int64 literal reads, up to INT64_MAX itself (issue 35: the last
// eight were "number too large"); one past it does not.
TEST(ExprTest, LiteralsUpToTheLimit) {
  EXPECT_EQ(9223372036854775800, Eval("9223372036854775800"));
  EXPECT_EQ(9223372036854775806, Eval("9223372036854775806"));
  EXPECT_EQ(INT64_MAX, Eval("9223372036854775807"));
  Expr e;
  std::string err;
  EXPECT_FALSE(e.Parse("9223372036854775808", kNames, &err));
  EXPECT_EQ("number too large", err);
  EXPECT_FALSE(e.Parse("92233720368547758070", kNames, &err));
  EXPECT_EQ("number too large", err);
}

TEST(ExprTest, VariablesInTheOrderTheyAppear) {
  Expr e;
  std::string err;
  ASSERT_TRUE(e.Parse("page * (pos + t) - pos", kNames, &err)) << err;
  EXPECT_EQ((std::vector<std::string>{"page", "pos", "t"}), e.Variables());
  EXPECT_EQ((std::vector<int32_t>{0, 1, 2}), e.VariableIndices());
}

TEST(ExprTest, BindFoldsConstants) {
  Expr e;
  std::string err;
  ASSERT_TRUE(e.Parse("pos / (page * 2) + t % page", kNames, &err)) << err;
  // page = 16 bound: the formula still reads pos and t.
  const Expr bound = e.Bind({std::nullopt, std::nullopt, 16, std::nullopt});
  EXPECT_EQ((std::vector<std::string>{"pos", "t"}), bound.Variables());
  const std::vector<int64_t> vars = {7, 37, -999, 0};  // page's value is no longer read
  int64_t v;
  ASSERT_TRUE(bound.Evaluate(vars.data(), &v, &err)) << err;
  EXPECT_EQ(37 / 32 + 7 % 16, v);
  // Everything bound: a constant.
  const Expr constant = e.Bind({7, 37, 16, 0});
  ASSERT_TRUE(constant.IsConstant(&v));
  EXPECT_EQ(8, v);
  // && with a constant false left side is 0 whatever the right side.
  ASSERT_TRUE(e.Parse("zero != 0 && pos / zero", kNames, &err)) << err;
  ASSERT_TRUE(e.Bind({std::nullopt, std::nullopt, std::nullopt, 0}).IsConstant(&v));
  EXPECT_EQ(0, v);
  // An operation that fails stays, so that evaluating it fails.
  ASSERT_TRUE(e.Parse("pos / zero", kNames, &err)) << err;
  const Expr failing = e.Bind({7, 37, 16, 0});
  EXPECT_FALSE(failing.IsConstant(&v));
  EXPECT_FALSE(failing.Evaluate(vars.data(), &v, &err));
  EXPECT_EQ("division by zero", err);
}

/// A plain recursive reading of the tree: the compiled program must agree.
bool TreeValue(const Expr& e, int32_t i, const int64_t* vars, int64_t* v) {
  const Expr::Node& n = e.nodes()[i];
  int64_t a = 0, b = 0;
  switch (n.op) {
    case Expr::kNumber: *v = n.value; return true;
    case Expr::kVariable: *v = vars[n.var]; return true;
    case Expr::kNeg:
      if (!TreeValue(e, n.args[0], vars, &a) || a == INT64_MIN) return false;
      *v = -a;
      return true;
    case Expr::kNot:
      if (!TreeValue(e, n.args[0], vars, &a)) return false;
      *v = !a;
      return true;
    case Expr::kAnd:
      if (!TreeValue(e, n.args[0], vars, &a)) return false;
      if (!a) return *v = 0, true;
      if (!TreeValue(e, n.args[1], vars, &b)) return false;
      *v = b != 0;
      return true;
    case Expr::kOr:
      if (!TreeValue(e, n.args[0], vars, &a)) return false;
      if (a) return *v = 1, true;
      if (!TreeValue(e, n.args[1], vars, &b)) return false;
      *v = b != 0;
      return true;
  }
  if (!TreeValue(e, n.args[0], vars, &a) || !TreeValue(e, n.args[1], vars, &b)) return false;
  // Small operands only (below): no overflow to model.
  switch (n.op) {
    case Expr::kAdd: *v = a + b; return true;
    case Expr::kSub: *v = a - b; return true;
    case Expr::kMul: *v = a * b; return true;
    case Expr::kEq: *v = a == b; return true;
    case Expr::kNe: *v = a != b; return true;
    case Expr::kLt: *v = a < b; return true;
    case Expr::kLe: *v = a <= b; return true;
    case Expr::kGt: *v = a > b; return true;
    case Expr::kGe: *v = a >= b; return true;
    case Expr::kMin: *v = std::min(a, b); return true;
    case Expr::kMax: *v = std::max(a, b); return true;
  }
  if (b == 0) return false;
  switch (n.op) {
    case Expr::kDiv: *v = a / b; return true;
    case Expr::kRem: *v = a % b; return true;
    case Expr::kCdiv: *v = (a + b - 1) / b; return true;
    case Expr::kMod: *v = ((a % b) + b) % b; return true;
  }
  return false;
}

RC_GTEST_PROP(ExprTest, CompiledProgramAgreesWithTheTree, ()) {
  // A random formula of small numbers and the four variables.
  const std::vector<std::string> ops = {" + ", " - ", " * ", " / ", " % ", " == ", " != ", " < ",
                                        " <= ", " > ", " >= ", " && ", " || "};
  const std::vector<std::string> functions = {"cdiv", "min", "max", "mod"};
  std::function<std::string(int)> formula = [&](int depth) -> std::string {
    const int kind = *rc::gen::inRange(0, depth > 0 ? 6 : 2);
    switch (kind) {
      case 0: return std::to_string(*rc::gen::inRange(0, 9));
      case 1: return kNames[*rc::gen::inRange<size_t>(0, kNames.size())];
      case 2: return "-" + kNames[*rc::gen::inRange<size_t>(0, 3)];
      case 3: return "!" + formula(depth - 1);
      case 4: return functions[*rc::gen::inRange<size_t>(0, 4)] + "(" + formula(depth - 1) + ", " + formula(depth - 1) + ")";
      default: return "(" + formula(depth - 1) + ops[*rc::gen::inRange<size_t>(0, ops.size())] + formula(depth - 1) + ")";
    }
  };
  const std::string text = formula(4);
  Expr e;
  std::string err;
  RC_ASSERT(e.Parse(text, kNames, &err));
  const std::vector<int64_t> vars = {*rc::gen::inRange<int64_t>(-9, 10), *rc::gen::inRange<int64_t>(-9, 10),
                                     *rc::gen::inRange<int64_t>(1, 10), 0};
  int64_t tree = 0, compiled = 0;
  const bool tree_ok = TreeValue(e, e.root(), vars.data(), &tree);
  ExprError error = ExprError::kNone;
  const bool compiled_ok = e.Evaluate(vars.data(), &compiled, &error);
  RC_ASSERT(tree_ok == compiled_ok);
  if (tree_ok) RC_ASSERT(tree == compiled);
  // Binding every variable gives the same value, folded or not.
  std::vector<std::optional<int64_t>> constants(vars.begin(), vars.end());
  const Expr bound = e.Bind(constants);
  int64_t folded = 0;
  RC_ASSERT(bound.Evaluate(vars.data(), &folded, &error) == compiled_ok);
  if (compiled_ok) RC_ASSERT(folded == compiled);
  // Binding some of them: the simplified program (x * 1, x + 0, x % 1
  // where x cannot fail, ...) agrees too, error for error.
  std::vector<std::optional<int64_t>> some(vars.size());
  for (size_t i = 0; i < vars.size(); ++i)
    if (*rc::gen::arbitrary<bool>()) some[i] = vars[i];
  const Expr partly = e.Bind(some);
  int64_t partial = 0;
  RC_ASSERT(partly.Evaluate(vars.data(), &partial, &error) == compiled_ok);
  if (compiled_ok) RC_ASSERT(partial == compiled);
  RC_ASSERT(partly.nodes().size() <= e.nodes().size());
}

TEST(ExprTest, BindDropsIdentities) {
  Expr e;
  std::string err;
  // With page = 1 and zero = 0: pos / 1 * 1 + t % 1 + zero is pos alone.
  ASSERT_TRUE(e.Parse("pos / page * page + t % page + zero", kNames, &err)) << err;
  const Expr bound = e.Bind({std::nullopt, std::nullopt, 1, 0});
  EXPECT_EQ((std::vector<std::string>{"pos"}), bound.Variables());
  EXPECT_EQ(1u, bound.nodes().size());
  // x % 1 is not dropped when x can fail: its error is the formula's.
  ASSERT_TRUE(e.Parse("pos / zero % page", kNames, &err)) << err;
  const Expr failing = e.Bind({std::nullopt, std::nullopt, 1, 0});
  const std::vector<int64_t> vars = {7, 37, 1, 0};
  int64_t v;
  EXPECT_FALSE(failing.Evaluate(vars.data(), &v, &err));
  EXPECT_EQ("division by zero", err);
}

}  // namespace
}  // namespace slotguard
