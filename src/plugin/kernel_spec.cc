#include "plugin/kernel_spec.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "registry/families.h"
#include "scenario/family_params.h"
#include "util/did_you_mean.h"
#include "util/json_reader.h"

namespace slotguard {

// --- formulas ---------------------------------------------------------------

struct GridFormula::Node {
  // 'n' number, 'v' variable, 'f' function, '~' negate, '!' not, + - * / %,
  // and the comparisons and logic: '=' ==, '#' !=, '<', 'l' <=, '>', 'g' >=, '&' &&, '|' ||.
  char op = 0;
  int64_t number = 0;
  std::string name;
  std::vector<std::shared_ptr<const Node>> args;
  int depth = 1;  // of the tree under it, at most kMaxFormulaDepth
};

namespace {

/// How deep a formula's operations may nest, parentheses and unary
/// operators included: the parser, the evaluator and the tree's destructor
/// recurse that deep ("------x" once overflowed the stack).
constexpr int kMaxFormulaDepth = 64;

using NodePtr = std::shared_ptr<const GridFormula::Node>;

class FormulaParser {
 public:
  explicit FormulaParser(const std::string& text) : s_(text) {}

  NodePtr ParseAll(std::string* err) {
    NodePtr n = Or();
    Skip();
    if (n && at_ != s_.size()) Unexpected();
    if (!error_.empty()) {
      *err = error_;
      return nullptr;
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
  NodePtr Fail(const std::string& why) {
    if (error_.empty()) error_ = why;
    return nullptr;
  }
  NodePtr Unexpected() {
    const std::string column = " at column " + std::to_string(at_ + 1);
    const char c = s_[at_];
    if (c == '=') return Fail("'=' is no operator" + column + "; expected '==' to compare");
    if (c == '&') return Fail("'&' is no operator" + column + "; expected '&&'");
    if (c == '|') return Fail("'|' is no operator" + column + "; expected '||'");
    return Fail("unexpected '" + s_.substr(at_, 1) + "'" + column);
  }
  NodePtr TooDeep() {
    return Fail("the formula nests deeper than " + std::to_string(kMaxFormulaDepth) +
                " operations at column " + std::to_string(at_ + 1) + "; expected a shallower formula");
  }
  NodePtr Node(char op, std::vector<NodePtr> args) {
    auto n = std::make_shared<GridFormula::Node>();
    for (const NodePtr& a : args) {
      if (!a) return nullptr;
      n->depth = std::max(n->depth, a->depth + 1);
    }
    if (n->depth > kMaxFormulaDepth) return TooDeep();
    n->op = op;
    n->args = std::move(args);
    return n;
  }
  /// The parser's own recursion (unary operators, parentheses, arguments)
  /// before any node is built: counted on the way down.
  bool Deeper() {
    if (++nesting_ <= kMaxFormulaDepth) return true;
    TooDeep();
    return false;
  }
  NodePtr Or() {
    NodePtr n = And();
    while (n && Eat("||")) n = Node('|', {n, And()});
    return n;
  }
  NodePtr And() {
    NodePtr n = Equality();
    while (n && Eat("&&")) n = Node('&', {n, Equality()});
    return n;
  }
  NodePtr Equality() {
    NodePtr n = Relation();
    for (;;) {
      if (!n) return n;
      if (Eat("==")) n = Node('=', {n, Relation()});
      else if (Eat("!=")) n = Node('#', {n, Relation()});
      else return n;
    }
  }
  NodePtr Relation() {
    NodePtr n = Expr();
    for (;;) {
      if (!n) return n;
      if (Eat("<=")) n = Node('l', {n, Expr()});
      else if (Eat(">=")) n = Node('g', {n, Expr()});
      else if (Eat('<')) n = Node('<', {n, Expr()});
      else if (Eat('>')) n = Node('>', {n, Expr()});
      else return n;
    }
  }
  NodePtr Expr() {
    NodePtr n = Term();
    for (;;) {
      if (!n) return n;
      if (Eat('+')) n = Node('+', {n, Term()});
      else if (Eat('-')) n = Node('-', {n, Term()});
      else return n;
    }
  }
  NodePtr Term() {
    NodePtr n = Unary();
    for (;;) {
      if (!n) return n;
      if (Eat('*')) n = Node('*', {n, Unary()});
      else if (Eat('/')) n = Node('/', {n, Unary()});
      else if (Eat('%')) n = Node('%', {n, Unary()});
      else return n;
    }
  }
  NodePtr Unary() {
    char op = 0;
    if (Eat('-')) op = '~';
    else if (EatAlone('!', '=')) op = '!';
    if (!op) return Primary();
    if (!Deeper()) return nullptr;
    NodePtr n = Node(op, {Unary()});
    --nesting_;
    return n;
  }
  NodePtr Primary() {
    Skip();
    if (at_ >= s_.size()) return Fail("the formula ends early");
    if (Eat('(')) {
      if (!Deeper()) return nullptr;
      NodePtr n = Or();
      --nesting_;
      if (!n) return nullptr;
      if (!Eat(')')) return Fail("expected ')' at column " + std::to_string(at_ + 1));
      return n;
    }
    auto n = std::make_shared<GridFormula::Node>();
    if (std::isdigit(static_cast<unsigned char>(s_[at_]))) {
      n->op = 'n';
      while (at_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[at_]))) {
        if (n->number > (INT64_MAX - 9) / 10) return Fail("number too large");
        n->number = n->number * 10 + (s_[at_++] - '0');
      }
      return n;
    }
    if (!std::isalpha(static_cast<unsigned char>(s_[at_])) && s_[at_] != '_') return Unexpected();
    while (at_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[at_])) || s_[at_] == '_')) n->name += s_[at_++];
    if (Eat('(')) {
      if (n->name != "cdiv" && n->name != "min" && n->name != "max")
        return Fail("unknown function '" + n->name + "'" + DidYouMean(n->name, {"cdiv", "min", "max"}) +
                    "; expected cdiv, min or max");
      n->op = 'f';
      if (!Deeper()) return nullptr;
      do {
        NodePtr arg = Or();
        if (!arg) return nullptr;
        n->depth = std::max(n->depth, arg->depth + 1);
        n->args.push_back(arg);
      } while (Eat(','));
      --nesting_;
      if (n->depth > kMaxFormulaDepth) return TooDeep();
      if (!Eat(')')) return Fail("expected ')' after the arguments of " + n->name);
      if (n->args.size() != 2) return Fail(n->name + " takes 2 arguments, got " + std::to_string(n->args.size()));
      return n;
    }
    std::vector<std::string> names = SpecScalarNames();
    const std::vector<std::string>& params = SpecParamNames();
    names.insert(names.end(), params.begin(), params.end());
    bool known = false;
    for (const std::string& v : names) known |= v == n->name;
    if (!known)
      return Fail("unknown variable '" + n->name + "'" + DidYouMean(n->name, names) + "; expected one of " +
                  JoinNames(names));
    n->op = 'v';
    return n;
  }

  const std::string& s_;
  size_t at_ = 0;
  int nesting_ = 0;
  std::string error_;
};

bool Overflow(std::string* err) {
  *err = "the value overflows int64";
  return false;
}

bool EvalNode(const GridFormula::Node& n, const sg_mapping_call& call, int64_t groups, int64_t* v, std::string* err) {
  if (n.op == 'n') {
    *v = n.number;
    return true;
  }
  if (n.op == 'v') {
    if (CallVariable(n.name, call, groups, v)) return true;
    *err = "'" + n.name + "' is not a parameter of family " + call.family;
    return false;
  }
  int64_t a = 0, b = 0;
  if (!EvalNode(*n.args[0], call, groups, &a, err)) return false;
  switch (n.op) {
    case '~':
      if (a == INT64_MIN) return Overflow(err);
      *v = -a;
      return true;
    case '!':
      *v = a == 0;
      return true;
    case '&':  // the right side only when it decides
      if (a == 0) {
        *v = 0;
        return true;
      }
      if (!EvalNode(*n.args[1], call, groups, &b, err)) return false;
      *v = b != 0;
      return true;
    case '|':
      if (a != 0) {
        *v = 1;
        return true;
      }
      if (!EvalNode(*n.args[1], call, groups, &b, err)) return false;
      *v = b != 0;
      return true;
  }
  if (!EvalNode(*n.args[1], call, groups, &b, err)) return false;
  switch (n.op) {
    case '+': return !__builtin_add_overflow(a, b, v) || Overflow(err);
    case '-': return !__builtin_sub_overflow(a, b, v) || Overflow(err);
    case '*': return !__builtin_mul_overflow(a, b, v) || Overflow(err);
    case '=': *v = a == b; return true;
    case '#': *v = a != b; return true;
    case '<': *v = a < b; return true;
    case 'l': *v = a <= b; return true;
    case '>': *v = a > b; return true;
    case 'g': *v = a >= b; return true;
    case '/':
    case '%':
      if (b == 0) {
        *err = "division by zero";
        return false;
      }
      if (a == INT64_MIN && b == -1) return Overflow(err);
      *v = n.op == '/' ? a / b : a % b;
      return true;
    case 'f':
      if (n.name == "min") *v = std::min(a, b);
      else if (n.name == "max") *v = std::max(a, b);
      else if (b == 0) {
        *err = "cdiv by zero";
        return false;
      } else {
        int64_t sum;
        if (__builtin_add_overflow(a, b - 1, &sum)) return Overflow(err);
        *v = sum / b;
      }
      return true;
  }
  *err = "bad formula";
  return false;
}

void CollectVariables(const GridFormula::Node& n, std::vector<std::string>* out) {
  if (n.op == 'v' && std::find(out->begin(), out->end(), n.name) == out->end()) out->push_back(n.name);
  for (const NodePtr& a : n.args) CollectVariables(*a, out);
}

}  // namespace

bool GridFormula::Parse(const std::string& text, std::string* err) {
  // Its text is quoted in messages, which are one short line each.
  constexpr size_t kMaxFormulaChars = 1024;
  text_.clear();
  root_ = nullptr;
  if (text.size() > kMaxFormulaChars) {
    *err = "a formula of " + std::to_string(text.size()) + " characters; expected at most " +
           std::to_string(kMaxFormulaChars);
    return false;
  }
  for (size_t i = 0; i < text.size(); ++i)
    if (static_cast<unsigned char>(text[i]) < 0x20 && text[i] != ' ') {
      *err = "a control character at column " + std::to_string(i + 1) + "; expected a formula on one line";
      return false;
    }
  text_ = text;
  root_ = FormulaParser(text).ParseAll(err);
  return root_ != nullptr;
}

bool GridFormula::Evaluate(const sg_mapping_call& call, int64_t num_groups, int64_t* value, std::string* err) const {
  if (!root_) {
    *err = "empty formula";
    return false;
  }
  return EvalNode(*root_, call, num_groups, value, err);
}

std::vector<std::string> GridFormula::Variables() const {
  std::vector<std::string> names;
  if (root_) CollectVariables(*root_, &names);
  return names;
}

// --- names ------------------------------------------------------------------

const std::vector<std::string>& SpecBufferNames() {
  static const std::vector<std::string> names = {
      "query_start_loc", "positions",     "seq_lens",          "seq_lens_i32",       "idx_mapping",
      "slot_mapping_in", "block_table",   "slot_mapping",      "tail_slot_mapping",  "common_slot_mapping",
      "request_of_token"};
  return names;
}

const std::vector<std::string>& SpecScalarNames() {
  static const std::vector<std::string> names = {"num_reqs",         "num_actual_tokens",   "num_real_tokens",
                                                 "num_tokens",
                                                 "block_table_width", "block_table_row_stride", "block_table_rows",
                                                 "block_table_rows_by_idx_mapping", "num_groups"};
  return names;
}

bool PerGroupName(const std::string& name) {
  static const std::vector<std::string> names = {"block_table",       "slot_mapping",           "tail_slot_mapping",
                                                 "common_slot_mapping", "block_table_width", "block_table_row_stride",
                                                 "block_table_rows"};
  const std::vector<std::string>& params = SpecParamNames();
  return std::find(names.begin(), names.end(), name) != names.end() ||
         std::find(params.begin(), params.end(), name) != params.end();
}

namespace {

/// A family parameter as the call carries it (family_params.def's plugin field).
struct CallParam {
  Family family;
  const char* plugin_field;
  int64_t (*get)(const sg_mapping_call& call);
};

const std::vector<CallParam>& CallParams() {
  static const std::vector<CallParam> params = {
#define SG_INT_PARAM(id, member, key, min, max, default_value, divides, times, plugin, example, shrinks, meaning) \
  {Family::k##id, #plugin, [](const sg_mapping_call& c) -> int64_t { return c.plugin; }},
#define SG_BOOL_PARAM(id, member, key, default_value, plugin, meaning) \
  {Family::k##id, #plugin, [](const sg_mapping_call& c) -> int64_t { return c.plugin; }},
#include "registry/family_params.def"
#undef SG_INT_PARAM
#undef SG_BOOL_PARAM
  };
  return params;
}

}  // namespace

const std::vector<std::string>& SpecParamNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const CallParam& p : CallParams())
      if (std::find(out.begin(), out.end(), SpecNameOf(p.plugin_field)) == out.end()) out.push_back(SpecNameOf(p.plugin_field));
    return out;
  }();
  return names;
}

bool CallVariable(const std::string& name, const sg_mapping_call& call, int64_t num_groups, int64_t* value) {
  const std::string family = call.family ? call.family : "";
  if (name == "num_reqs") *value = call.num_reqs;
  else if (name == "num_actual_tokens") *value = call.num_actual_tokens;
  else if (name == "num_real_tokens") *value = call.num_real_tokens;
  else if (name == "num_tokens") *value = call.num_tokens;
  else if (name == "block_table_width") *value = call.block_table_width;
  else if (name == "block_table_row_stride") *value = call.block_table_row_stride;
  else if (name == "block_table_rows") *value = call.block_table_rows;
  else if (name == "block_table_rows_by_idx_mapping") *value = call.block_table_rows_by_idx_mapping;
  else if (name == "num_groups") *value = num_groups;
  else {
    for (const CallParam& p : CallParams())
      if (family == GetFamily(p.family).name && name == SpecNameOf(p.plugin_field)) {
        *value = p.get(call);
        return true;
      }
    return false;
  }
  return true;
}

const void* CallBuffer(const std::string& name, const sg_mapping_call& call) {
  if (name == "query_start_loc") return call.query_start_loc;
  if (name == "positions") return call.positions;
  if (name == "seq_lens") return call.seq_lens;
  if (name == "seq_lens_i32") return call.seq_lens_i32;
  if (name == "idx_mapping") return call.idx_mapping;
  if (name == "slot_mapping_in") return call.slot_mapping_in;
  if (name == "block_table") return call.block_table;
  if (name == "slot_mapping") return call.slot_mapping;
  if (name == "tail_slot_mapping") return call.tail_slot_mapping;
  if (name == "common_slot_mapping") return call.qsa_compressed.common_slot_mapping;
  if (name == "request_of_token") return call.request_of_token;
  return nullptr;
}

// --- the spec file ----------------------------------------------------------

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::vector<std::string> kSpec1Keys = {"slotguard_kernel_spec", "family", "symbol", "params",
                                             "grid", "block", "shared_bytes"};
const std::vector<std::string> kSpec2Keys = {"launch", "precondition", "specializations"};
const std::vector<std::string> kSpec1ParamKeys = {"buffer", "scalar", "param", "constant", "type"};
const std::vector<std::string> kSpec2ParamKeys = {"value", "scratch", "elements", "element_bytes", "group_array"};
const std::vector<std::string> kSpecializationKeys = {"requires", "cubin", "symbol", "params",
                                                      "grid", "block", "shared_bytes"};
/// Names spec 1 did not have (its seq_lens were int32: such a kernel gets them so).
const std::vector<std::string> kSpec2Names = {"seq_lens_i32", "block_table_rows_by_idx_mapping", "num_real_tokens",
                                              "request_of_token", "num_groups"};

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

class SpecReader : public JsonReader {
 public:
  SpecReader(const std::string& file, std::string* err) : JsonReader(file, err) {
    folder_ = fs::path(file).parent_path().string();
  }

  /// A required string member.
  bool String(const json& j, const std::string& key, const std::string& pointer, std::string* out) {
    const json* v;
    return Require(j, pointer, key, "a string", &v) && JsonReader::String(*v, JsonChild(pointer, key), "a string", out);
  }

  /// Keys a spec-1 file may not use.
  bool Spec2Keys(const json& obj, const std::string& pointer, const std::vector<std::string>& keys,
                 const std::vector<std::string>& spec1_keys) {
    if (version_ != 1) return true;
    for (const std::string& k : keys)
      if (obj.contains(k))
        return Fail(JsonChild(pointer, k), "key '" + k + "' needs \"slotguard_kernel_spec\": 2",
                    "\"slotguard_kernel_spec\": 2, or only the spec-1 keys " + JoinNames(spec1_keys));
    return true;
  }

  bool Spec2Name(const std::string& name, const std::string& pointer) {
    if (version_ == 1 && Contains(kSpec2Names, name))
      return Fail(pointer, "'" + name + "' is a spec-2 name", "\"slotguard_kernel_spec\": 2 to use it");
    return true;
  }

  /// A formula: a string or an integer. Spec 2 also checks that the
  /// parameters it names are the family's; spec 1 keeps its old meaning
  /// (another family's parameter is an error at each launch).
  bool Formula(const json& v, const std::string& pointer, GridFormula* f) {
    std::string text;
    if (v.is_number_integer()) {
      int64_t x;
      if (!Int(v, pointer, kInt64Min, kInt64Max, "integer", &x)) return false;
      text = std::to_string(x);
    } else if (v.is_string()) {
      text = v.get<std::string>();
    } else {
      return Fail(pointer, "wrong type", "a formula (string) or an integer", DescribeJson(v));
    }
    std::string problem;
    if (!f->Parse(text, &problem)) return FailWith(pointer, problem);
    const std::vector<std::string> own = FamilySpecNames(family_);
    for (const std::string& name : f->Variables()) {
      // num_groups is new; the sizes spec 1 formulas could already name stay valid there.
      if (name == "num_groups" && !Spec2Name(name, pointer)) return false;
      if (version_ >= 2 && Contains(SpecParamNames(), name) && !Contains(own, name))
        return Fail(pointer, "'" + name + "' is not a parameter of family " + GetFamily(family_).name,
                    "the call's sizes or the family's parameters (" + JoinNames(own) + ")");
    }
    return true;
  }

  /// An array of conditions (formulas), at obj[key].
  bool Conditions(const json& obj, const std::string& pointer, const std::string& key, std::vector<GridFormula>* out) {
    const json* v = Find(obj, key);
    if (!v) return true;
    const std::string at = JsonChild(pointer, key);
    if (!Array(*v, at, "an array of conditions (formula strings such as \"ring == 4\")")) return false;
    for (size_t i = 0; i < v->size(); ++i) {
      out->emplace_back();
      if (!Formula((*v)[i], JsonChild(at, i), &out->back())) return false;
    }
    return true;
  }

  bool Type(const json& arg, const std::string& pointer, const std::string& expected, SpecType* type) {
    if (!arg.contains("type")) return Fail(JsonChild(pointer, "type"), "missing required key", expected);
    std::string t;
    const std::vector<std::string> types =
        version_ == 1 ? std::vector<std::string>{"i32", "i64", "ptr"} : std::vector<std::string>{"i32", "i64", "ptr", "u64"};
    if (!String(arg, "type", pointer, &t) || !OneOf(t, types, pointer + "/type", "type")) return false;
    *type = t == "i32" ? SpecType::kI32 : t == "i64" ? SpecType::kI64 : t == "u64" ? SpecType::kU64 : SpecType::kPtr;
    return true;
  }

  bool Integer(SpecType type, const std::string& pointer) {
    if (type == SpecType::kPtr)
      return Fail(pointer + "/type", "a number cannot be a pointer", "\"i32\" or \"i64\"", "\"ptr\"");
    if (type == SpecType::kU64)
      return Fail(pointer + "/type", "\"u64\" is only for a group_array of buffers", "\"i32\" or \"i64\"", "\"u64\"");
    return true;
  }

  bool Param(const json& arg, const std::string& pointer, std::vector<std::string>* scratch_names, SpecArg* out) {
    const std::vector<std::string> kinds =
        version_ == 1 ? std::vector<std::string>{"buffer", "scalar", "param", "constant"}
                      : std::vector<std::string>{"buffer", "scalar", "param", "constant", "value", "scratch", "group_array"};
    if (!Object(arg, pointer, "a parameter object") || !Spec2Keys(arg, pointer, kSpec2ParamKeys, kSpec1ParamKeys) ||
        !CheckKeys(arg, pointer, version_ == 1 ? kSpec1ParamKeys : Concat(kSpec1ParamKeys, kSpec2ParamKeys)))
      return false;
    int count = 0;
    for (const std::string& k : kinds) count += arg.contains(k);
    if (count != 1) {
      std::string quoted;
      for (size_t i = 0; i < kinds.size(); ++i) quoted += (i ? ", \"" : "\"") + kinds[i] + "\"";
      return Fail(pointer, "not one kind of parameter", "exactly one of " + quoted, std::to_string(count));
    }
    for (const char* key : {"elements", "element_bytes"})
      if (arg.contains(key) && !arg.contains("scratch"))
        return Fail(JsonChild(pointer, key), std::string("key '") + key + "' belongs to a scratch parameter",
                    "it beside \"scratch\" only");
    if (arg.contains("buffer")) {
      out->kind = SpecArgKind::kBuffer;
      out->type = SpecType::kPtr;
      if (!String(arg, "buffer", pointer, &out->name) ||
          !OneOf(out->name, SpecBufferNames(), pointer + "/buffer", "buffer") ||
          (arg.contains("type") && !Fail(pointer + "/type", "a buffer is a pointer", "no \"type\"")))
        return false;
      if (whole_scenario_ && PerGroupName(out->name))
        return Fail(pointer + "/buffer",
                    "'" + out->name + "' differs per group, and a \"launch\": \"scenario\" kernel takes every group at once",
                    "{\"group_array\": \"" + out->name + "\", \"type\": \"u64\"}");
      return true;
    }
    const std::string number_type = "\"i32\" or \"i64\"";
    const std::string old_type = "\"i32\", \"i64\" or \"ptr\"";
    if (arg.contains("scalar")) {
      out->kind = SpecArgKind::kScalar;
      return String(arg, "scalar", pointer, &out->name) &&
             OneOf(out->name, SpecScalarNames(), pointer + "/scalar", "scalar") &&
             Type(arg, pointer, old_type, &out->type) && Integer(out->type, pointer);
    }
    if (arg.contains("param")) {
      out->kind = SpecArgKind::kParam;
      return String(arg, "param", pointer, &out->name) &&
             OneOf(out->name, FamilySpecNames(family_), pointer + "/param",
                   std::string("parameter of family ") + GetFamily(family_).name) &&
             Type(arg, pointer, old_type, &out->type) && Integer(out->type, pointer);
    }
    if (arg.contains("value")) {
      out->kind = SpecArgKind::kValue;
      return Formula(arg["value"], pointer + "/value", &out->formula) && Type(arg, pointer, number_type, &out->type) &&
             Integer(out->type, pointer);
    }
    if (arg.contains("scratch")) {
      out->kind = SpecArgKind::kScratch;
      out->type = SpecType::kPtr;
      if (!String(arg, "scratch", pointer, &out->name)) return false;
      if (out->name.empty()) return Fail(pointer + "/scratch", "empty name", "a name for the buffer (\"token_to_req\")");
      if (Contains(*scratch_names, out->name))
        return Fail(pointer + "/scratch", "scratch '" + out->name + "' is named twice",
                    "each scratch buffer named once");
      scratch_names->push_back(out->name);
      const json* v;
      return !(arg.contains("type") && !Fail(pointer + "/type", "a scratch buffer is a pointer", "no \"type\"")) &&
             Require(arg, pointer, "elements", "its element count, a formula (\"num_tokens + 1\")", &v) &&
             Formula(*v, pointer + "/elements", &out->formula) &&
             Require(arg, pointer, "element_bytes", "the bytes of one element, 1 to 1024", &v) &&
             Int(*v, pointer + "/element_bytes", 1, 1024, "element_bytes", &out->element_bytes);
    }
    if (arg.contains("group_array")) {
      out->kind = SpecArgKind::kGroupArray;
      if (!whole_scenario_)
        return Fail(pointer + "/group_array", "key 'group_array' needs \"launch\": \"scenario\"",
                    "\"launch\": \"scenario\" (one launch over every group), or a parameter of one group's call");
      std::vector<std::string> names = Concat(SpecBufferNames(), FamilySpecNames(family_));
      for (const std::string& s : SpecScalarNames())
        if (s != "num_groups") names.push_back(s);
      if (!String(arg, "group_array", pointer, &out->name) ||
          !OneOf(out->name, names, pointer + "/group_array", "group_array name"))
        return false;
      const bool buffer = Contains(SpecBufferNames(), out->name);
      if (!Type(arg, pointer, buffer ? "\"u64\" (the buffers' addresses)" : number_type, &out->type)) return false;
      if (buffer && out->type != SpecType::kU64)
        return Fail(pointer + "/type", "a group array of buffers holds their addresses", "\"u64\"",
                    out->type == SpecType::kI32 ? "\"i32\"" : out->type == SpecType::kI64 ? "\"i64\"" : "\"ptr\"");
      return buffer || Integer(out->type, pointer);
    }
    out->kind = SpecArgKind::kConstant;
    return Int(arg["constant"], pointer + "/constant", kInt64Min, kInt64Max, "constant", &out->constant) &&
           Type(arg, pointer, old_type, &out->type) && (out->type != SpecType::kU64 || Integer(out->type, pointer));
  }

  /// The spec names of one family's parameters (the table's plugin fields).
  static std::vector<std::string> FamilySpecNames(Family family) {
    std::vector<std::string> names;
    for (const ParamInfo* p : ParamsOf(family))
      if (p->kind == ParamKind::kInt || p->kind == ParamKind::kBool) names.push_back(p->spec_name());
    return names;
  }

  /// A launch shape: an array of 1 to 3 of `what`.
  bool Dims(const json& j, const std::string& pointer, const std::string& key, const std::string& what,
            const std::string& where, const json** out) const {
    const std::string expected = "an array of 1 to 3 " + what;
    const std::string at = JsonChild(pointer, key);
    if (!Require(j, pointer, key, expected + where, out) || !Array(**out, at, expected)) return false;
    if ((*out)->empty() || (*out)->size() > 3)
      return Fail(at, "wrong number of dimensions", expected, std::to_string((*out)->size()));
    return true;
  }

  /// How a kernel's keys are read: all required (a spec without
  /// specializations), all optional (the defaults of its specializations),
  /// or a specialization's (each required unless the top level gave it).
  enum class KeyMode { kRequired, kOptional, kSpecialization };

  bool Reads(const json& j, const std::string& key, KeyMode mode, bool top_level_has) const {
    return j.contains(key) || mode == KeyMode::kRequired || (mode == KeyMode::kSpecialization && !top_level_has);
  }

  /// A kernel's symbol, params, grid, block and shared_bytes at `pointer`;
  /// a key not read keeps *k's value (a specialization starts as the spec's).
  bool Kernel(const json& j, const std::string& pointer, KeyMode mode, SpecKernel* k) {
    const std::string where = mode == KeyMode::kSpecialization ? " (here or at the top level)" : "";
    const json* v;
    if (Reads(j, "symbol", mode, has_symbol_)) {
      if (!j.contains("symbol"))
        return Fail(JsonChild(pointer, "symbol"), "missing required key",
                    mode == KeyMode::kRequired ? "a string" : "the kernel's symbol name" + where);
      if (!String(j, "symbol", pointer, &k->symbol)) return false;
      if (k->symbol.empty()) return Fail(JsonChild(pointer, "symbol"), "empty symbol", "the kernel's symbol name");
    }
    if (Reads(j, "params", mode, has_params_)) {
      const std::string at = JsonChild(pointer, "params");
      if (!Require(j, pointer, "params", "an array of parameters" + where, &v) ||
          !Array(*v, at, "an array of parameters"))
        return false;
      k->params.clear();
      k->params_pointer = at;
      std::vector<std::string> scratch_names;
      for (size_t i = 0; i < v->size(); ++i) {
        SpecArg arg;
        const std::string p = JsonChild(at, i);
        if (!Param((*v)[i], p, &scratch_names, &arg) || !Spec2Name(arg.name, p)) return false;
        if (version_ == 1 && arg.kind == SpecArgKind::kBuffer && arg.name == "seq_lens") arg.name = "seq_lens_i32";
        k->params.push_back(arg);
      }
    }
    if (Reads(j, "grid", mode, has_grid_)) {
      const json* grid;
      if (!Dims(j, pointer, "grid", "formulas (strings or integers)", where, &grid)) return false;
      k->grid_pointer = JsonChild(pointer, "grid");
      for (int d = 0; d < 3; ++d) {
        std::string unused;
        if (d >= static_cast<int>(grid->size())) k->grid[d].Parse("1", &unused);
        else if (!Formula((*grid)[d], JsonChild(k->grid_pointer, static_cast<size_t>(d)), &k->grid[d])) return false;
      }
    }
    if (Reads(j, "block", mode, has_block_)) {
      const json* block;
      if (!Dims(j, pointer, "block", "integers", where, &block)) return false;
      for (int d = 0; d < 3; ++d) k->block[d] = 1;
      for (size_t d = 0; d < block->size(); ++d) {
        int64_t x;
        if (!Int((*block)[d], JsonChild(JsonChild(pointer, "block"), d), 1, 1024, "block size", &x)) return false;
        k->block[d] = static_cast<int32_t>(x);
      }
    }
    if (j.contains("shared_bytes")) {
      int64_t x;
      if (!Int(j["shared_bytes"], JsonChild(pointer, "shared_bytes"), 0, 227 * 1024, "shared_bytes", &x)) return false;
      k->shared_bytes = static_cast<int32_t>(x);
    }
    return true;
  }

  bool Read(const json& j, KernelSpec* spec) {
    if (!Object(j, "", "a kernel spec object")) return false;
    const json* v;
    int64_t version;
    if (!Require(j, "", "slotguard_kernel_spec", "the spec version 1 or 2", &v) ||
        !Int(*v, "/slotguard_kernel_spec", 1, 2, "version", &version))
      return false;
    version_ = spec->version = static_cast<int>(version);
    if (!Spec2Keys(j, "", kSpec2Keys, kSpec1Keys) ||
        !CheckKeys(j, "", version_ == 1 ? kSpec1Keys : Concat(kSpec1Keys, kSpec2Keys)))
      return false;
    std::string family;
    if (!String(j, "family", "", &family)) return false;
    NameError unknown;
    if (!FindFamily(family, &spec->family, &unknown)) return Fail("/family", unknown);
    family_ = spec->family;
    if (j.contains("launch")) {
      std::string launch;
      if (!String(j, "launch", "", &launch) || !OneOf(launch, {"group", "scenario"}, "/launch", "launch")) return false;
      whole_scenario_ = spec->whole_scenario = launch == "scenario";
    }
    // With specializations the top-level kernel keys are their defaults: optional.
    const json* specializations = Find(j, "specializations");
    has_symbol_ = j.contains("symbol");
    has_params_ = j.contains("params");
    has_grid_ = j.contains("grid");
    has_block_ = j.contains("block");
    if (!Kernel(j, "", specializations ? KeyMode::kOptional : KeyMode::kRequired, spec)) return false;
    if (!Conditions(j, "", "precondition", &spec->precondition)) return false;
    if (!specializations) return true;
    if (!Array(*specializations, "/specializations", "an array of specializations") ) return false;
    if (specializations->empty())
      return Fail("/specializations", "no specialization", "at least one {\"requires\": [...], \"cubin\": ...}");
    for (size_t i = 0; i < specializations->size(); ++i) {
      const json& s = (*specializations)[i];
      const std::string at = JsonChild("/specializations", i);
      SpecSpecialization out;
      out.kernel = *spec;  // the spec's own keys are the defaults
      out.kernel.cubin.clear();
      if (!Object(s, at, "a specialization object") || !CheckKeys(s, at, kSpecializationKeys) ||
          !Conditions(s, at, "requires", &out.conditions) || !Kernel(s, at, KeyMode::kSpecialization, &out.kernel))
        return false;
      if (s.contains("cubin")) {
        if (!String(s, "cubin", at, &out.kernel.cubin)) return false;
        if (out.kernel.cubin.empty())
          return Fail(at + "/cubin", "empty path", "a cubin, fatbin or PTX file (relative to the spec's folder)");
        if (fs::path(out.kernel.cubin).is_relative() && !folder_.empty())
          out.kernel.cubin = (fs::path(folder_) / out.kernel.cubin).string();
      }
      spec->specializations.push_back(std::move(out));
    }
    return true;
  }

 private:
  Family family_ = Family::kPaged;  // the spec's, once read
  int version_ = 2;
  bool whole_scenario_ = false;
  bool has_symbol_ = false, has_params_ = false, has_grid_ = false, has_block_ = false;
  std::string folder_;  // the spec's folder: specializations' cubins are relative to it
};

}  // namespace

bool ParseKernelSpec(const std::string& text, const std::string& file, KernelSpec* spec, std::string* err) {
  json j;
  if (!ParseJsonText(text, file, "a kernel spec object", &j, err)) return false;
  *spec = KernelSpec();
  spec->file = file;
  return SpecReader(file, err).Read(j, spec);
}

bool LoadKernelSpec(const std::string& path, KernelSpec* spec, std::string* err) {
  std::string text;
  return ReadTextFile(path, "a readable kernel spec (--kernel-spec)", &text, err) &&
         ParseKernelSpec(text, path, spec, err);
}

}  // namespace slotguard
