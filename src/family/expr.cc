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
        if (n.value > (INT64_MAX - 9) / 10) return Fail("number too large");
        n.value = n.value * 10 + (s_[at_++] - '0');
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
      int64_t sum;
      if (__builtin_add_overflow(a, b - 1, &sum)) return *error = ExprError::kOverflow, false;
      if (sum == INT64_MIN && b == -1) return *error = ExprError::kOverflow, false;
      *v = sum / b;
      return true;
    }
  }
  return true;
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

bool Expr::Parse(const std::string& text, const std::vector<std::string>& names, std::string* err) {
  text_.clear();
  nodes_.clear();
  code_.clear();
  root_ = -1;
  names_ = names;
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
  root_ = Parser(text, names_, &nodes_).ParseAll(err);
  if (root_ < 0) {
    nodes_.clear();
    return false;
  }
  text_ = text;
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
    default:
      Emit(n.args[0]);
      Emit(n.args[1]);
      code_.push_back(in);
      return;
  }
}

void Expr::Compile() {
  code_.clear();
  if (root_ < 0) return;
  Emit(root_);
  // The stack never holds more than the tree is deep, plus one.
  int depth = 0, high = 0;
  for (const Instr& in : code_) {
    if (in.op == kNumber || in.op == kVariable) ++depth;
    else if (in.op == kAndJump || in.op == kOrJump) --depth;  // on the falling-through path
    else if (in.op != kNeg && in.op != kNot && in.op != kBool) --depth;
    high = std::max(high, depth + 1);
  }
  max_stack_ = high;
}

bool Expr::Evaluate(const int64_t* vars, int64_t* value, ExprError* error) const {
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
        const int64_t b = stack[top--];
        if (!Apply(in.op, stack[top], b, &stack[top], error)) return false;
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

Expr Expr::Bind(const std::vector<std::optional<int64_t>>& constants) const {
  Expr out;
  out.text_ = text_;
  out.names_ = names_;
  if (root_ < 0) return out;
  // Rebuild bottom-up: children come before their parent in nodes_.
  std::vector<int32_t> map(nodes_.size(), -1);
  auto constant = [&](int32_t i, int64_t* v) {
    const Node& n = out.nodes_[i];
    if (n.op != kNumber) return false;
    *v = n.value;
    return true;
  };
  for (size_t i = 0; i < nodes_.size(); ++i) {
    Node n = nodes_[i];
    for (int32_t& a : n.args)
      if (a >= 0) a = map[a];
    if (n.op == kVariable && n.var < static_cast<int32_t>(constants.size()) && constants[n.var]) {
      n.op = kNumber;
      n.value = *constants[n.var];
      n.var = -1;
    }
    int64_t a = 0, b = 0, v = 0;
    bool folded = false;
    if (n.op == kNeg && constant(n.args[0], &a) && a != INT64_MIN) {
      v = -a;
      folded = true;
    } else if (n.op == kNot && constant(n.args[0], &a)) {
      v = a == 0;
      folded = true;
    } else if ((n.op == kAnd || n.op == kOr) && constant(n.args[0], &a)) {
      // The left side decides alone, or the result is the right side as 0/1.
      if (n.op == kAnd ? a == 0 : a != 0) {
        v = n.op == kOr;
        folded = true;
      } else if (constant(n.args[1], &b)) {
        v = b != 0;
        folded = true;
      }
    } else if (n.op != kNumber && n.op != kVariable && n.op != kNeg && n.op != kNot && n.op != kAnd &&
               n.op != kOr && constant(n.args[0], &a) && constant(n.args[1], &b)) {
      ExprError error = ExprError::kNone;
      folded = Apply(n.op, a, b, &v, &error);
    }
    if (folded) {
      n = Node();
      n.op = kNumber;
      n.value = v;
    }
    out.nodes_.push_back(n);
    map[i] = static_cast<int32_t>(out.nodes_.size()) - 1;
  }
  out.root_ = map[root_];
  // Drop what the root no longer reaches: keep the tree small to walk.
  std::vector<Node> kept;
  std::vector<int32_t> renumber(out.nodes_.size(), -1);
  std::vector<int32_t> todo = {out.root_};
  std::vector<bool> reach(out.nodes_.size(), false);
  while (!todo.empty()) {
    const int32_t i = todo.back();
    todo.pop_back();
    if (i < 0 || reach[i]) continue;
    reach[i] = true;
    for (int32_t a : out.nodes_[i].args) todo.push_back(a);
  }
  for (size_t i = 0; i < out.nodes_.size(); ++i) {
    if (!reach[i]) continue;
    Node n = out.nodes_[i];
    for (int32_t& a : n.args)
      if (a >= 0) a = renumber[a];
    renumber[i] = static_cast<int32_t>(kept.size());
    kept.push_back(n);
  }
  out.root_ = renumber[out.root_];
  out.nodes_ = std::move(kept);
  out.Compile();
  return out;
}

bool Expr::EvaluateNode(int32_t node, const int64_t* vars, int64_t* value) const {
  const Node& n = nodes_[node];
  if (n.op == kNumber) return *value = n.value, true;
  if (n.op == kVariable) return *value = vars[n.var], true;
  int64_t a, b = 0;
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
    if (n.op == kVariable && std::find(out.begin(), out.end(), names_[n.var]) == out.end())
      out.push_back(names_[n.var]);
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
