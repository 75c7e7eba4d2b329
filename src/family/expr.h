// The integer formula language: one parser and one evaluator for every
// formula slotguard reads, the family descriptions' knobs
// (docs/family-format.md) and the compiled-kernel specs' grids, values and
// conditions (docs/bring-your-own-kernel.md).
//
//   numbers, variables, + - * / % and unary -, parentheses,
//   cdiv(a, b), min(a, b), max(a, b), mod(a, b) (floor modulo: the sign of b),
//   == != < <= > >=, && || and unary ! (each 0 or 1).
//
// `/` and `%` truncate toward zero, as in C. && and || evaluate their right
// side only when it decides. Every operation is checked: an int64 overflow or
// a division by zero is an error of the evaluation, never a wrapped value.
//
// A formula is parsed against the names it may use; each name is an index
// into the values the evaluation reads, so evaluating costs no lookup.
// Bind() turns some variables into constants and folds what becomes
// constant (a family's parameters, once per group).
#ifndef SLOTGUARD_FAMILY_EXPR_H_
#define SLOTGUARD_FAMILY_EXPR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace slotguard {

/// Why an evaluation failed.
enum class ExprError : uint8_t { kNone, kOverflow, kDivisionByZero };
/// "the value overflows int64", "division by zero".
const char* ExprErrorText(ExprError error);

class Expr {
 public:
  /// Where a binary operation of the compiled program takes an operand
  /// from: the stack, a variable or the instruction's constant. A leaf
  /// operand is read in place, so `pos % 16` is one instruction, not three.
  enum Src : uint8_t { kStack, kVar, kConst };
  /// One operation of the compiled program (postfix, with jumps for && ||).
  struct Instr {
    uint8_t op = 0;
    uint8_t left = kStack;   // a binary operation's operands
    uint8_t right = kStack;
    int32_t arg = 0;         // a variable's index, the right operand's, or a jump's target
    int32_t left_arg = 0;    // the left operand's variable
    int64_t value = 0;       // a constant (either operand's; never both)
  };

  /// Parses `text` against the variable names `names` (a name's index is
  /// its position). False with *err naming the problem ("unknown variable
  /// 'x', did you mean 'y'?; expected one of ...").
  bool Parse(const std::string& text, const std::vector<std::string>& names, std::string* err);
  /// The same against names shared with other formulas: a description's
  /// formulas all read its one list of variables, held once (not a copy
  /// per formula: thousands of lets would take memory quadratic in them).
  bool Parse(const std::string& text, std::shared_ptr<const std::vector<std::string>> names, std::string* err);

  /// Its value for the variable values `vars` (indexed as the names given to
  /// Parse). False with *error on overflow or division by zero.
  bool Evaluate(const int64_t* vars, int64_t* value, ExprError* error) const {
    // A variable or a constant alone (most bound formulas) costs no loop.
    if (shape_ == kJustVar) return *value = vars[code_[0].arg], true;
    if (shape_ == kJustConst) return *value = code_[0].value, true;
    if (shape_ == kOneOp) return RunOne(vars, value, error);
    return Run(vars, value, error);
  }
  /// The same, with the error in words.
  bool Evaluate(const int64_t* vars, int64_t* value, std::string* err) const;

  /// A copy with variable i replaced by constants[i] where it has one, and
  /// every operation over constants folded (an operation that would fail
  /// stays, so that its error comes from Evaluate).
  Expr Bind(const std::vector<std::optional<int64_t>>& constants) const;

  /// True with *value when the formula is a constant (after Bind).
  bool IsConstant(int64_t* value) const;
  bool empty() const { return code_.empty(); }
  /// Alive exactly as long as this formula's text (shared by its copies and
  /// bound copies): a cache of what was derived from a formula checks it, so
  /// a formula freed and another parsed at the same address never meet.
  std::weak_ptr<const void> Lifetime() const { return src_; }
  const std::string& text() const;
  /// The names it was parsed against (a variable's index is its place here).
  const std::vector<std::string>& names() const;
  /// The names it uses, each once, in the order they first appear.
  std::vector<std::string> Variables() const;
  /// The indices of the variables it uses, each once, ascending.
  std::vector<int32_t> VariableIndices() const;

  /// The parsed tree, for Bind and for readers that walk a formula (the
  /// generator's boundary values: every divisor and modulus).
  struct Node {
    uint8_t op = 0;
    int64_t value = 0;   // a number
    int32_t var = -1;    // a variable
    int32_t args[2] = {-1, -1};
  };
  const std::vector<Node>& nodes() const { return nodes_; }
  /// The value of the subtree at `node` (a plain recursive reading).
  bool EvaluateNode(int32_t node, const int64_t* vars, int64_t* value) const;
  int32_t root() const { return root_; }

  // Node and instruction operations.
  enum Op : uint8_t {
    kNumber, kVariable, kNeg, kNot, kAdd, kSub, kMul, kDiv, kRem, kEq, kNe, kLt, kLe, kGt, kGe,
    kAnd, kOr, kCdiv, kMin, kMax, kMod,
    kAndJump,  // instructions only: top == 0 -> keep 0, jump to arg; else pop
    kOrJump,   // instructions only: top != 0 -> 1, jump to arg; else pop
    kBool,     // instructions only: top = top != 0
  };

 private:
  void Compile();
  void Emit(int32_t node);
  bool Run(const int64_t* vars, int64_t* value, ExprError* error) const;
  bool RunOne(const int64_t* vars, int64_t* value, ExprError* error) const;
  int32_t BindNode(int32_t node, const std::vector<std::optional<int64_t>>& constants, std::vector<Node>* out) const;

  /// The text and the names, shared by a formula's bound copies.
  struct Source {
    std::string text;
    std::shared_ptr<const std::vector<std::string>> names;
  };
  std::shared_ptr<const Source> src_;
  enum Shape : uint8_t { kProgram, kJustVar, kJustConst, kOneOp };
  Shape shape_ = kProgram;
  std::vector<Node> nodes_;
  int32_t root_ = -1;
  std::vector<Instr> code_;
  int32_t max_stack_ = 0;
};

}  // namespace slotguard

#endif  // SLOTGUARD_FAMILY_EXPR_H_
