#include "family/expr.h"

#include <algorithm>
#include <cctype>

#include "util/did_you_mean.h"

namespace slotguard {
namespace {

/// How deep a formula's operations may nest, parentheses and unary
/// operators included: the parser recurses that deep ("------x" once
/// overflowed the stack), and the evaluator's stack is that high.
constexpr int kMaxFormulaDepth = 64;
/// A formula's text is quoted in messages, which are one short line each.
constexpr size_t kMaxFormulaChars = 1024;

struct Function {
  const char* name;
  uint8_t op;
};
constexpr Function kFunctions[] = {
    {"cdiv", Expr::kCdiv}, {"min", Expr::kMin}, {"max", Expr::kMax}, {"mod", Expr::kMod}};

class Parser {
 public:
  Parser(const std::string& text, const std::vector<std::string>& names, std::vector<Expr::Node>* nodes)
      : s_(text), names_(names), nodes_(nodes) {}

  int32_t ParseAll(std::string* err) {
    int32_t n = Or();
    Skip();
    if (n >= 0 && at_ != s_.size()) n = Unexpected();
    if (!error_.empty()) {
      *err = error_;
      return -1;
    }
    return n;
  }

 private:
  void Skip() {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
  }
  bool Eat(char c) {
    Skip();
    if (at_ < s_.size() && s_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  /// A two-character operator ("<=", "&&").
  bool Eat(const char* op) {
    Skip();
    if (s_.compare(at_, 2, op) != 0) return false;
    at_ += 2;
    return true;
  }
  /// A one-character operator that is not the start of a two-character one.
  bool EatAlone(char c, char not_next) {
    Skip();
    if (at_ < s_.size() && s_[at_] == c && (at_ + 1 >= s_.size() || s_[at_ + 1] != not_next)) {
      ++at_;
      return true;
    }
    return false;
  }
  int32_t Fail(const std::string& why) {
    if (error_.empty()) error_ = why;
    return -1;
  }
  int32_t Unexpected() {
    const std::string column = " at column " + std::to_string(at_ + 1);
    const char c = s_[at_];
    if (c == '=') return Fail("'=' is no operator" + column + "; expected '==' to compare");
    if (c == '&') return Fail("'&' is no operator" + column + "; expected '&&'");
    if (c == '|') return Fail("'|' is no operator" + column + "; expected '||'");
    return Fail("unexpected '" + s_.substr(at_, 1) + "'" + column);
  }
  int32_t TooDeep() {
    return Fail("the formula nests deeper than " + std::to_string(kMaxFormulaDepth) + " operations at column " +
                std::to_string(at_ + 1) + "; expected a shallower formula");
  }
  int32_t Depth(int32_t n) const { return n < 0 ? 0 : depth_[n]; }
  int32_t Add(Expr::Node node, int depth) {
    nodes_->push_back(node);
    depth_.push_back(depth);
    return static_cast<int32_t>(nodes_->size()) - 1;
  }
  int32_t Node(uint8_t op, int32_t a, int32_t b = -1) {
    if (a < 0 || (b < 0 && op != Expr::kNeg && op != Expr::kNot)) return -1;
    const int depth = std::max(Depth(a), Depth(b)) + 1;
    if (depth > kMaxFormulaDepth) return TooDeep();
    Expr::Node n;
    n.op = op;
    n.args[0] = a;
    n.args[1] = b;
    return Add(n, depth);
  }
  /// The parser's own recursion (unary operators, parentheses, arguments)
  /// before any node is built: counted on the way down.
  bool Deeper() {
    if (++nesting_ <= kMaxFormulaDepth) return true;
    TooDeep();
    return false;
  }
  int32_t Or() {
    int32_t n = And();
    while (n >= 0 && Eat("||")) n = Node(Expr::kOr, n, And());
    return n;
  }
  int32_t And() {
    int32_t n = Equality();
    while (n >= 0 && Eat("&&")) n = Node(Expr::kAnd, n, Equality());
    return n;
  }
  int32_t Equality() {
    int32_t n = Relation();
    for (;;) {
      if (n < 0) return n;
      if (Eat("==")) n = Node(Expr::kEq, n, Relation());
      else if (Eat("!=")) n = Node(Expr::kNe, n, Relation());
      else return n;
    }
  }
  int32_t Relation() {
    int32_t n = Sum();
    for (;;) {
      if (n < 0) return n;
      if (Eat("<=")) n = Node(Expr::kLe, n, Sum());
      else if (Eat(">=")) n = Node(Expr::kGe, n, Sum());
      else if (Eat('<')) n = Node(Expr::kLt, n, Sum());
      else if (Eat('>')) n = Node(Expr::kGt, n, Sum());
      else return n;
    }
  }
  int32_t Sum() {
    int32_t n = Term();
    for (;;) {
      if (n < 0) return n;
      if (Eat('+')) n = Node(Expr::kAdd, n, Term());
      else if (Eat('-')) n = Node(Expr::kSub, n, Term());
      else return n;
    }
  }
  int32_t Term() {
    int32_t n = Unary();
    for (;;) {
      if (n < 0) return n;
      if (Eat('*')) n = Node(Expr::kMul, n, Unary());
      else if (Eat('/')) n = Node(Expr::kDiv, n, Unary());
      else if (Eat('%')) n = Node(Expr::kRem, n, Unary());
      else return n;
    }
  }
  int32_t Unary() {
    uint8_t op = 0;
    bool unary = false;
    if (Eat('-')) op = Expr::kNeg, unary = true;
    else if (EatAlone('!', '=')) op = Expr::kNot, unary = true;
    if (!unary) return Primary();
    if (!Deeper()) return -1;
    const int32_t n = Node(op, Unary());
    --nesting_;
    return n;
  }
  int32_t Primary() {
    Skip();
    if (at_ >= s_.size()) return Fail("the formula ends early");
    if (Eat('(')) {
      if (!Deeper()) return -1;
      const int32_t n = Or();
      --nesting_;
      if (n < 0) return -1;
      if (!Eat(')')) return Fail("expected ')' at column " + std::to_string(at_ + 1));
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(s_[at_]))) {
      Expr::Node n;
      n.op = Expr::kNumber;
      while (at_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[at_]))) {
        const int digit = s_[at_] - '0';
        if (n.value > (INT64_MAX - digit) / 10) return Fail("number too large");
        n.value = n.value * 10 + digit;
        ++at_;
      }
      return Add(n, 1);
    }
    if (!std::isalpha(static_cast<unsigned char>(s_[at_])) && s_[at_] != '_') return Unexpected();
    std::string name;
    while (at_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[at_])) || s_[at_] == '_')) name += s_[at_++];
    if (Eat('(')) return Call(name);
    const auto it = std::find(names_.begin(), names_.end(), name);
    if (it == names_.end())
      return Fail("unknown variable '" + name + "'" + DidYouMean(name, names_) + "; expected one of " +
                  JoinNames(names_));
    Expr::Node n;
    n.op = Expr::kVariable;
    n.var = static_cast<int32_t>(it - names_.begin());
    return Add(n, 1);
  }
  int32_t Call(const std::string& name) {
    const Function* function = nullptr;
    std::vector<std::string> known;
    for (const Function& f : kFunctions) {
      if (name == f.name) function = &f;
      known.push_back(f.name);
    }
    if (!function)
      return Fail("unknown function '" + name + "'" + DidYouMean(name, known) + "; expected cdiv, min, max or mod");
    if (!Deeper()) return -1;
    std::vector<int32_t> args;
    int depth = 1;
    do {
      const int32_t arg = Or();
      if (arg < 0) return -1;
      depth = std::max(depth, Depth(arg) + 1);
      args.push_back(arg);
    } while (Eat(','));
    --nesting_;
    if (depth > kMaxFormulaDepth) return TooDeep();
    if (!Eat(')')) return Fail("expected ')' after the arguments of " + name);
    if (args.size() != 2) return Fail(name + " takes 2 arguments, got " + std::to_string(args.size()));
    Expr::Node n;
    n.op = function->op;
    n.args[0] = args[0];
    n.args[1] = args[1];
    return Add(n, depth);
  }

  const std::string& s_;
  const std::vector<std::string>& names_;
  std::vector<Expr::Node>* nodes_;
  std::vector<int> depth_;  // of the tree under each node
  size_t at_ = 0;
  int nesting_ = 0;
  std::string error_;
};

/// Applies a binary operation; false with *error.
inline bool Apply(uint8_t op, int64_t a, int64_t b, int64_t* v, ExprError* error) {
  switch (op) {
    case Expr::kAdd:
      if (__builtin_add_overflow(a, b, v)) return *error = ExprError::kOverflow, false;
      return true;
    case Expr::kSub:
      if (__builtin_sub_overflow(a, b, v)) return *error = ExprError::kOverflow, false;
      return true;
    case Expr::kMul:
      if (__builtin_mul_overflow(a, b, v)) return *error = ExprError::kOverflow, false;
      return true;
    case Expr::kEq: *v = a == b; return true;
    case Expr::kNe: *v = a != b; return true;
    case Expr::kLt: *v = a < b; return true;
    case Expr::kLe: *v = a <= b; return true;
    case Expr::kGt: *v = a > b; return true;
    case Expr::kGe: *v = a >= b; return true;
    case Expr::kMin: *v = a < b ? a : b; return true;
    case Expr::kMax: *v = a > b ? a : b; return true;
    case Expr::kDiv:
    case Expr::kRem:
    case Expr::kMod:
      if (b == 0) return *error = ExprError::kDivisionByZero, false;
      if (a == INT64_MIN && b == -1) {
        if (op == Expr::kDiv) return *error = ExprError::kOverflow, false;
        *v = 0;
        return true;
      }
      if (op == Expr::kDiv) {
        *v = a / b;
      } else {
        *v = a % b;
        if (op == Expr::kMod && *v != 0 && ((*v < 0) != (b < 0))) *v += b;  // floor modulo
      }
      return true;
    case Expr::kCdiv: {
      if (b == 0) return *error = ExprError::kDivisionByZero, false;
      int64_t sum, below;  // a + (b - 1), each step checked (b - 1 overflows for b = INT64_MIN)
      if (__builtin_sub_overflow(b, 1, &below) || __builtin_add_overflow(a, below, &sum))
        return *error = ExprError::kOverflow, false;
      if (sum == INT64_MIN && b == -1) return *error = ExprError::kOverflow, false;
      *v = sum / b;
      return true;
    }
  }
  return true;
}

/// Whether evaluating the subtree at `i` can never fail: it reads
/// variables and constants through operations without a failure of their own.
bool CannotFail(const std::vector<Expr::Node>& nodes, int32_t i) {
  const Expr::Node& n = nodes[i];
  switch (n.op) {
    case Expr::kNumber:
    case Expr::kVariable:
      return true;
    case Expr::kNot:
      return CannotFail(nodes, n.args[0]);
    case Expr::kEq: case Expr::kNe: case Expr::kLt: case Expr::kLe: case Expr::kGt: case Expr::kGe:
    case Expr::kAnd: case Expr::kOr: case Expr::kMin: case Expr::kMax:
      return CannotFail(nodes, n.args[0]) && CannotFail(nodes, n.args[1]);
    default:
      return false;
  }
}

/// What a binary operation reduces to when one operand is an identity
/// constant (x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1, cdiv(x, 1)): its left
/// operand (0), its right one (1), the constant 0 (2), or nothing (-1). A
/// result that drops an operand (x * 0, x % 1) is left to the evaluation
/// unless that operand cannot fail: the error is the formula's to give.
int Identity(const Expr::Node& n, const std::vector<Expr::Node>& nodes) {
  if (n.args[0] < 0 || n.args[1] < 0) return -1;
  const Expr::Node& a = nodes[n.args[0]];
  const Expr::Node& b = nodes[n.args[1]];
  const bool a0 = a.op == Expr::kNumber && a.value == 0, a1 = a.op == Expr::kNumber && a.value == 1;
  const bool b0 = b.op == Expr::kNumber && b.value == 0, b1 = b.op == Expr::kNumber && b.value == 1;
  switch (n.op) {
    case Expr::kAdd:
      return b0 ? 0 : a0 ? 1 : -1;
    case Expr::kSub:
      return b0 ? 0 : -1;
    case Expr::kMul:
      if (b1) return 0;
      if (a1) return 1;
      if ((b0 && CannotFail(nodes, n.args[0])) || (a0 && CannotFail(nodes, n.args[1]))) return 2;
      return -1;
    case Expr::kDiv:
    case Expr::kCdiv:
      return b1 ? 0 : -1;
    case Expr::kRem:
    case Expr::kMod:
      return b1 && CannotFail(nodes, n.args[0]) ? 2 : -1;
    default:
      return -1;
  }
}

}  // namespace

const char* ExprErrorText(ExprError error) {
  switch (error) {
    case ExprError::kOverflow:
      return "the value overflows int64";
    case ExprError::kDivisionByZero:
      return "division by zero";
    case ExprError::kNone:
      break;
  }
  return "no error";
}

const std::string& Expr::text() const {
  static const std::string none;
  return src_ ? src_->text : none;
}

const std::vector<std::string>& Expr::names() const {
  static const std::vector<std::string> none;
  return src_ && src_->names ? *src_->names : none;
}

bool Expr::Parse(const std::string& text, const std::vector<std::string>& names, std::string* err) {
  return Parse(text, std::make_shared<const std::vector<std::string>>(names), err);
}

bool Expr::Parse(const std::string& text, std::shared_ptr<const std::vector<std::string>> names, std::string* err) {
  nodes_.clear();
  code_.clear();
  root_ = -1;
  shape_ = kProgram;
  src_ = std::make_shared<Source>(Source{"", names});
  if (text.size() > kMaxFormulaChars) {
    *err = "a formula of " + std::to_string(text.size()) + " characters; expected at most " +
           std::to_string(kMaxFormulaChars);
    return false;
  }
  for (size_t i = 0; i < text.size(); ++i)
    if (static_cast<unsigned char>(text[i]) < 0x20) {
      *err = "a control character at column " + std::to_string(i + 1) + "; expected a formula on one line";
      return false;
    }
  root_ = Parser(text, *names, &nodes_).ParseAll(err);
  if (root_ < 0) {
    nodes_.clear();
    return false;
  }
  src_ = std::make_shared<Source>(Source{text, std::move(names)});
  Compile();
  return true;
}

void Expr::Emit(int32_t node) {
  const Node& n = nodes_[node];
  Instr in;
  in.op = n.op;
  switch (n.op) {
    case kNumber:
      in.value = n.value;
      code_.push_back(in);
      return;
    case kVariable:
      in.arg = n.var;
      code_.push_back(in);
      return;
    case kNeg:
    case kNot:
      Emit(n.args[0]);
      code_.push_back(in);
      return;
    case kAnd:
    case kOr: {
      Emit(n.args[0]);
      const size_t jump = code_.size();
      in.op = n.op == kAnd ? kAndJump : kOrJump;
      code_.push_back(in);
      Emit(n.args[1]);
      Instr to_bool;
      to_bool.op = kBool;
      code_.push_back(to_bool);
      code_[jump].arg = static_cast<int32_t>(code_.size());
      return;
    }
    default: {
      // A leaf operand is read in place (one constant at most: two are
      // folded, or stay apart when folding them fails).
      const Node& a = nodes_[n.args[0]];
      const Node& b = nodes_[n.args[1]];
      bool has_const = false;
      if (b.op == kVariable) {
        in.right = kVar;
        in.arg = b.var;
      } else if (b.op == kNumber) {
        in.right = kConst;
        in.value = b.value;
        has_const = true;
      }
      if (a.op == kVariable) {
        in.left = kVar;
        in.left_arg = a.var;
      } else if (a.op == kNumber && !has_const) {
        in.left = kConst;
        in.value = a.value;
      }
      if (in.left == kStack) Emit(n.args[0]);
      if (in.right == kStack) Emit(n.args[1]);
      code_.push_back(in);
      return;
    }
  }
}

void Expr::Compile() {
  code_.clear();
  shape_ = kProgram;
  if (root_ < 0) return;
  code_.reserve(nodes_.size());
  Emit(root_);
  if (code_.size() == 1 && code_[0].op == kVariable) shape_ = kJustVar;
  if (code_.size() == 1 && code_[0].op == kNumber) shape_ = kJustConst;
  if (code_.size() == 1 && code_[0].op >= kAdd && code_[0].op <= kMod && code_[0].op != kAnd && code_[0].op != kOr)
    shape_ = kOneOp;  // both operands leaves: `pos % 16`
  // The stack never holds more than the tree is deep, plus one.
  int depth = 0, high = 0;
  for (const Instr& in : code_) {
    switch (in.op) {
      case kNumber:
      case kVariable:
        ++depth;
        break;
      case kAndJump:
      case kOrJump:
        --depth;  // on the falling-through path
        break;
      case kNeg:
      case kNot:
      case kBool:
        break;
      default:
        depth += 1 - (in.left == kStack) - (in.right == kStack);
    }
    high = std::max(high, depth + 1);
  }
  max_stack_ = high;
}

bool Expr::RunOne(const int64_t* vars, int64_t* value, ExprError* error) const {
  const Instr& in = code_[0];
  const int64_t a = in.left == kVar ? vars[in.left_arg] : in.value;
  const int64_t b = in.right == kVar ? vars[in.arg] : in.value;
  return Apply(in.op, a, b, value, error);
}

bool Expr::Run(const int64_t* vars, int64_t* value, ExprError* error) const {
  int64_t stack[kMaxFormulaDepth + 2];
  int top = -1;
  const Instr* code = code_.data();
  const int32_t size = static_cast<int32_t>(code_.size());
  for (int32_t pc = 0; pc < size; ++pc) {
    const Instr& in = code[pc];
    switch (in.op) {
      case kNumber:
        stack[++top] = in.value;
        break;
      case kVariable:
        stack[++top] = vars[in.arg];
        break;
      case kNeg:
        if (stack[top] == INT64_MIN) return *error = ExprError::kOverflow, false;
        stack[top] = -stack[top];
        break;
      case kNot:
        stack[top] = stack[top] == 0;
        break;
      case kBool:
        stack[top] = stack[top] != 0;
        break;
      case kAndJump:
        if (stack[top] == 0) {
          pc = in.arg - 1;
        } else {
          --top;
        }
        break;
      case kOrJump:
        if (stack[top] != 0) {
          stack[top] = 1;
          pc = in.arg - 1;
        } else {
          --top;
        }
        break;
      default: {
        // Operands in postfix order: the right one is on top.
        const int64_t b = in.right == kStack ? stack[top--] : in.right == kVar ? vars[in.arg] : in.value;
        const int64_t a = in.left == kStack ? stack[top--] : in.left == kVar ? vars[in.left_arg] : in.value;
        if (!Apply(in.op, a, b, &stack[++top], error)) return false;
      }
    }
  }
  if (top != 0) return *error = ExprError::kOverflow, false;  // an empty formula
  *value = stack[0];
  return true;
}

bool Expr::Evaluate(const int64_t* vars, int64_t* value, std::string* err) const {
  if (code_.empty()) {
    *err = "empty formula";
    return false;
  }
  ExprError error = ExprError::kNone;
  if (Evaluate(vars, value, &error)) return true;
  *err = ExprErrorText(error);
  return false;
}

int32_t Expr::BindNode(int32_t i, const std::vector<std::optional<int64_t>>& constants,
                       std::vector<Node>* out) const {
  // Post-order into *out: a subtree is the contiguous range [start, its root].
  const int32_t start = static_cast<int32_t>(out->size());
  Node n = nodes_[i];
  auto constant_node = [&](int64_t v) {
    out->resize(start);
    Node c;
    c.op = kNumber;
    c.value = v;
    out->push_back(c);
    return start;
  };
  if (n.op == kVariable && n.var < static_cast<int32_t>(constants.size()) && constants[n.var])
    return constant_node(*constants[n.var]);
  if (n.op == kNumber || n.op == kVariable) {
    out->push_back(n);
    return start;
  }
  n.args[0] = BindNode(n.args[0], constants, out);
  const int32_t mid = static_cast<int32_t>(out->size());
  if (n.args[1] >= 0) n.args[1] = BindNode(n.args[1], constants, out);
  auto constant = [&](int32_t k, int64_t* v) {
    if ((*out)[k].op != kNumber) return false;
    *v = (*out)[k].value;
    return true;
  };
  int64_t a = 0, b = 0, v = 0;
  if (n.op == kNeg && constant(n.args[0], &a) && a != INT64_MIN) return constant_node(-a);
  if (n.op == kNot && constant(n.args[0], &a)) return constant_node(a == 0);
  if ((n.op == kAnd || n.op == kOr) && constant(n.args[0], &a)) {
    // The left side decides alone, or the result is the right side as 0/1.
    if (n.op == kAnd ? a == 0 : a != 0) return constant_node(n.op == kOr);
    if (constant(n.args[1], &b)) return constant_node(b != 0);
  }
  if (n.op != kNeg && n.op != kNot && n.op != kAnd && n.op != kOr && constant(n.args[0], &a) &&
      constant(n.args[1], &b)) {
    ExprError error = ExprError::kNone;
    if (Apply(n.op, a, b, &v, &error)) return constant_node(v);  // one that fails stays, to fail when evaluated
  }
  switch (Identity(n, *out)) {
    case 0:  // the left subtree: drop the right one
      out->resize(mid);
      return n.args[0];
    case 1: {  // the right subtree: move it down over the left one
      const int32_t shift = mid - start;
      for (size_t k = mid; k < out->size(); ++k) {
        Node moved = (*out)[k];
        for (int32_t& arg : moved.args)
          if (arg >= 0) arg -= shift;
        (*out)[k - shift] = moved;
      }
      out->resize(out->size() - shift);
      return n.args[1] - shift;
    }
    case 2:
      return constant_node(0);
    default:
      break;
  }
  out->push_back(n);
  return static_cast<int32_t>(out->size()) - 1;
}

Expr Expr::Bind(const std::vector<std::optional<int64_t>>& constants) const {
  Expr out;
  out.src_ = src_;
  if (root_ < 0) return out;
  out.nodes_.reserve(nodes_.size());
  out.root_ = BindNode(root_, constants, &out.nodes_);
  out.Compile();
  return out;
}

bool Expr::EvaluateNode(int32_t node, const int64_t* vars, int64_t* value) const {
  const Node& n = nodes_[node];
  if (n.op == kNumber) return *value = n.value, true;
  if (n.op == kVariable) return *value = vars[n.var], true;
  int64_t a = 0, b = 0;
  if (!EvaluateNode(n.args[0], vars, &a)) return false;
  if (n.op == kNeg) return a != INT64_MIN && (*value = -a, true);
  if (n.op == kNot) return *value = a == 0, true;
  if (n.op == kAnd && a == 0) return *value = 0, true;
  if (n.op == kOr && a != 0) return *value = 1, true;
  if (!EvaluateNode(n.args[1], vars, &b)) return false;
  if (n.op == kAnd || n.op == kOr) return *value = b != 0, true;
  ExprError error = ExprError::kNone;
  return Apply(n.op, a, b, value, &error);
}

bool Expr::IsConstant(int64_t* value) const {
  if (root_ < 0 || nodes_[root_].op != kNumber) return false;
  *value = nodes_[root_].value;
  return true;
}

std::vector<std::string> Expr::Variables() const {
  std::vector<std::string> out;
  // In the order they first appear in the text: the tree's left-to-right walk.
  std::vector<int32_t> todo;
  if (root_ >= 0) todo.push_back(root_);
  while (!todo.empty()) {
    const int32_t i = todo.back();
    todo.pop_back();
    const Node& n = nodes_[i];
    if (n.op == kVariable && std::find(out.begin(), out.end(), names()[n.var]) == out.end())
      out.push_back(names()[n.var]);
    for (int k = 1; k >= 0; --k)
      if (n.args[k] >= 0) todo.push_back(n.args[k]);
  }
  return out;
}

std::vector<int32_t> Expr::VariableIndices() const {
  std::vector<int32_t> out;
  for (const Node& n : nodes_)
    if (n.op == kVariable) out.push_back(n.var);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace slotguard
