#include "plugin/kernel_spec.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include <nlohmann/json.hpp>

#include "registry/families.h"
#include "scenario/family_params.h"
#include "util/did_you_mean.h"
#include "util/json_reader.h"

namespace slotguard {

// --- formulas ---------------------------------------------------------------

struct GridFormula::Node {
  char op = 0;  // 'n' number, 'v' variable, 'f' function, '~' negate, or + - * / %
  int64_t number = 0;
  std::string name;
  std::vector<std::shared_ptr<const Node>> args;
};

namespace {

using NodePtr = std::shared_ptr<const GridFormula::Node>;

class FormulaParser {
 public:
  explicit FormulaParser(const std::string& text) : s_(text) {}

  NodePtr ParseAll(std::string* err) {
    NodePtr n = Expr();
    Skip();
    if (n && at_ != s_.size()) Fail("unexpected '" + s_.substr(at_, 1) + "' at column " + std::to_string(at_ + 1));
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
  NodePtr Fail(const std::string& why) {
    if (error_.empty()) error_ = why;
    return nullptr;
  }
  NodePtr Binary(char op, NodePtr a, NodePtr b) {
    if (!a || !b) return nullptr;
    auto n = std::make_shared<GridFormula::Node>();
    n->op = op;
    n->args = {a, b};
    return n;
  }
  NodePtr Expr() {
    NodePtr n = Term();
    for (;;) {
      if (Eat('+')) n = Binary('+', n, Term());
      else if (Eat('-')) n = Binary('-', n, Term());
      else return n;
    }
  }
  NodePtr Term() {
    NodePtr n = Unary();
    for (;;) {
      if (Eat('*')) n = Binary('*', n, Unary());
      else if (Eat('/')) n = Binary('/', n, Unary());
      else if (Eat('%')) n = Binary('%', n, Unary());
      else return n;
    }
  }
  NodePtr Unary() {
    if (Eat('-')) {
      NodePtr inner = Unary();
      if (!inner) return nullptr;
      auto n = std::make_shared<GridFormula::Node>();
      n->op = '~';
      n->args = {inner};
      return n;
    }
    return Primary();
  }
  NodePtr Primary() {
    Skip();
    if (at_ >= s_.size()) return Fail("the formula ends early");
    if (Eat('(')) {
      NodePtr n = Expr();
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
    if (!std::isalpha(static_cast<unsigned char>(s_[at_])) && s_[at_] != '_')
      return Fail("unexpected '" + s_.substr(at_, 1) + "' at column " + std::to_string(at_ + 1));
    while (at_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[at_])) || s_[at_] == '_')) n->name += s_[at_++];
    if (Eat('(')) {
      if (n->name != "cdiv" && n->name != "min" && n->name != "max")
        return Fail("unknown function '" + n->name + "'" + DidYouMean(n->name, {"cdiv", "min", "max"}) +
                    "; expected cdiv, min or max");
      n->op = 'f';
      do {
        NodePtr arg = Expr();
        if (!arg) return nullptr;
        n->args.push_back(arg);
      } while (Eat(','));
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
  std::string error_;
};

bool EvalNode(const GridFormula::Node& n, const sg_mapping_call& call, int64_t* v, std::string* err) {
  if (n.op == 'n') {
    *v = n.number;
    return true;
  }
  if (n.op == 'v') {
    if (CallVariable(n.name, call, v)) return true;
    *err = "'" + n.name + "' is not a parameter of family " + call.family;
    return false;
  }
  int64_t a = 0, b = 0;
  if (!EvalNode(*n.args[0], call, &a, err)) return false;
  if (n.op == '~') {
    *v = -a;
    return true;
  }
  if (!EvalNode(*n.args[1], call, &b, err)) return false;
  switch (n.op) {
    case '+': *v = a + b; return true;
    case '-': *v = a - b; return true;
    case '*': *v = a * b; return true;
    case '/':
    case '%':
      if (b == 0) {
        *err = "division by zero";
        return false;
      }
      *v = n.op == '/' ? a / b : a % b;
      return true;
    case 'f':
      if (n.name == "min") *v = std::min(a, b);
      else if (n.name == "max") *v = std::max(a, b);
      else if (b == 0) {
        *err = "cdiv by zero";
        return false;
      } else {
        *v = (a + b - 1) / b;
      }
      return true;
  }
  *err = "bad formula";
  return false;
}

}  // namespace

bool GridFormula::Parse(const std::string& text, std::string* err) {
  text_ = text;
  root_ = FormulaParser(text).ParseAll(err);
  return root_ != nullptr;
}

bool GridFormula::Evaluate(const sg_mapping_call& call, int64_t* value, std::string* err) const {
  if (!root_) {
    *err = "empty formula";
    return false;
  }
  return EvalNode(*root_, call, value, err);
}

// --- names ------------------------------------------------------------------

const std::vector<std::string>& SpecBufferNames() {
  static const std::vector<std::string> names = {
      "query_start_loc", "positions",     "seq_lens",          "seq_lens_i32",       "idx_mapping",
      "slot_mapping_in", "block_table",   "slot_mapping",      "tail_slot_mapping",  "common_slot_mapping"};
  return names;
}

const std::vector<std::string>& SpecScalarNames() {
  static const std::vector<std::string> names = {"num_reqs",         "num_actual_tokens",   "num_real_tokens",
                                                 "num_tokens",
                                                 "block_table_width", "block_table_row_stride", "block_table_rows",
                                                 "block_table_rows_by_idx_mapping"};
  return names;
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

bool CallVariable(const std::string& name, const sg_mapping_call& call, int64_t* value) {
  const std::string family = call.family ? call.family : "";
  if (name == "num_reqs") *value = call.num_reqs;
  else if (name == "num_actual_tokens") *value = call.num_actual_tokens;
  else if (name == "num_real_tokens") *value = call.num_real_tokens;
  else if (name == "num_tokens") *value = call.num_tokens;
  else if (name == "block_table_width") *value = call.block_table_width;
  else if (name == "block_table_row_stride") *value = call.block_table_row_stride;
  else if (name == "block_table_rows") *value = call.block_table_rows;
  else if (name == "block_table_rows_by_idx_mapping") *value = call.block_table_rows_by_idx_mapping;
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
  return nullptr;
}

// --- the spec file ----------------------------------------------------------

namespace {

using nlohmann::json;

class SpecReader : public JsonReader {
 public:
  using JsonReader::JsonReader;

  /// A required string member.
  bool String(const json& j, const std::string& key, const std::string& pointer, std::string* out) {
    const json* v;
    return Require(j, pointer, key, "a string", &v) && JsonReader::String(*v, JsonChild(pointer, key), "a string", out);
  }

  bool Type(const json& arg, const std::string& pointer, SpecType fallback, bool required, SpecType* type) {
    if (!arg.contains("type")) {
      if (required) return Fail(JsonChild(pointer, "type"), "missing required key", "\"i32\", \"i64\" or \"ptr\"");
      *type = fallback;
      return true;
    }
    std::string t;
    if (!String(arg, "type", pointer, &t) || !OneOf(t, {"i32", "i64", "ptr"}, pointer + "/type", "type")) return false;
    *type = t == "i32" ? SpecType::kI32 : t == "i64" ? SpecType::kI64 : SpecType::kPtr;
    return true;
  }

  bool Param(const json& arg, const std::string& pointer, SpecArg* out) {
    if (!Object(arg, pointer, "a parameter object") ||
        !CheckKeys(arg, pointer, {"buffer", "scalar", "param", "constant", "type"}))
      return false;
    const int kinds = arg.contains("buffer") + arg.contains("scalar") + arg.contains("param") + arg.contains("constant");
    if (kinds != 1)
      return Fail(pointer, "not one kind of parameter", "exactly one of \"buffer\", \"scalar\", \"param\", \"constant\"",
                  std::to_string(kinds));
    if (arg.contains("buffer")) {
      out->kind = SpecArgKind::kBuffer;
      out->type = SpecType::kPtr;
      return String(arg, "buffer", pointer, &out->name) &&
             OneOf(out->name, SpecBufferNames(), pointer + "/buffer", "buffer") &&
             (!arg.contains("type") || Fail(pointer + "/type", "a buffer is a pointer", "no \"type\""));
    }
    if (arg.contains("scalar")) {
      out->kind = SpecArgKind::kScalar;
      return String(arg, "scalar", pointer, &out->name) &&
             OneOf(out->name, SpecScalarNames(), pointer + "/scalar", "scalar") &&
             Type(arg, pointer, SpecType::kI32, true, &out->type) && Integer(out->type, pointer);
    }
    if (arg.contains("param")) {
      out->kind = SpecArgKind::kParam;
      return String(arg, "param", pointer, &out->name) &&
             OneOf(out->name, FamilySpecNames(family_), pointer + "/param",
                   std::string("parameter of family ") + GetFamily(family_).name) &&
             Type(arg, pointer, SpecType::kI32, true, &out->type) && Integer(out->type, pointer);
    }
    out->kind = SpecArgKind::kConstant;
    return Int(arg["constant"], pointer + "/constant", kInt64Min, kInt64Max, "constant", &out->constant) &&
           Type(arg, pointer, SpecType::kI32, true, &out->type);
  }

  /// The spec names of one family's parameters (the table's plugin fields).
  static std::vector<std::string> FamilySpecNames(Family family) {
    std::vector<std::string> names;
    for (const ParamInfo* p : ParamsOf(family))
      if (p->kind == ParamKind::kInt || p->kind == ParamKind::kBool) names.push_back(p->spec_name());
    return names;
  }

  Family family_ = Family::kPaged;  // the spec's, once read

  /// A launch shape: an array of 1 to 3 of `what`.
  bool Dims(const json& j, const std::string& key, const std::string& what, const json** out) {
    const std::string expected = "an array of 1 to 3 " + what;
    if (!Require(j, "", key, expected, out) || !Array(**out, "/" + key, expected)) return false;
    if ((*out)->empty() || (*out)->size() > 3)
      return Fail("/" + key, "wrong number of dimensions", expected, std::to_string((*out)->size()));
    return true;
  }

  bool Integer(SpecType type, const std::string& pointer) {
    return type != SpecType::kPtr || Fail(pointer + "/type", "a number cannot be a pointer", "\"i32\" or \"i64\"", "\"ptr\"");
  }

  bool Read(const json& j, KernelSpec* spec) {
    if (!Object(j, "", "a kernel spec object") ||
        !CheckKeys(j, "", {"slotguard_kernel_spec", "family", "symbol", "params", "grid", "block", "shared_bytes"}))
      return false;
    const json* v;
    int64_t version;
    if (!Require(j, "", "slotguard_kernel_spec", "the spec version 1 or 2", &v) ||
        !Int(*v, "/slotguard_kernel_spec", 1, 2, "version", &version))
      return false;
    spec->version = static_cast<int>(version);
    std::string family;
    if (!String(j, "family", "", &family)) return false;
    NameError unknown;
    if (!FindFamily(family, &spec->family, &unknown)) return Fail("/family", unknown);
    family_ = spec->family;
    std::string problem;
    if (!String(j, "symbol", "", &spec->symbol)) return false;
    if (spec->symbol.empty()) return Fail("/symbol", "empty symbol", "the kernel's symbol name");
    if (!Require(j, "", "params", "an array of parameters", &v) || !Array(*v, "/params", "an array of parameters"))
      return false;
    for (size_t i = 0; i < j["params"].size(); ++i) {
      SpecArg arg;
      if (!Param(j["params"][i], "/params/" + std::to_string(i), &arg)) return false;
      // Spec 1's seq_lens were int32: such a kernel gets them so; spec 2's names are not spec 1's.
      if (version == 1 && (arg.name == "seq_lens_i32" || arg.name == "block_table_rows_by_idx_mapping" ||
                           arg.name == "num_real_tokens"))
        return Fail("/params/" + std::to_string(i), "'" + arg.name + "' is a spec-2 name",
                    "\"slotguard_kernel_spec\": 2 to use it");
      if (version == 1 && arg.kind == SpecArgKind::kBuffer && arg.name == "seq_lens") arg.name = "seq_lens_i32";
      spec->params.push_back(arg);
    }
    const json* grid;
    if (!Dims(j, "grid", "formulas (strings or integers)", &grid)) return false;
    for (int d = 0; d < 3; ++d) {
      const std::string pointer = "/grid/" + std::to_string(d);
      std::string text = "1";
      if (d < static_cast<int>(grid->size())) {
        const json& g = (*grid)[d];
        if (g.is_number_integer()) {
          int64_t x;
          if (!Int(g, pointer, kInt64Min, kInt64Max, "grid size", &x)) return false;
          text = std::to_string(x);
        } else if (g.is_string()) text = g.get<std::string>();
        else return Fail(pointer, "wrong type", "a formula (string) or an integer", DescribeJson(g));
      }
      if (!spec->grid[d].Parse(text, &problem)) return FailWith(pointer, problem);
    }
    const json* block;
    if (!Dims(j, "block", "integers", &block)) return false;
    for (size_t d = 0; d < block->size(); ++d) {
      int64_t x;
      if (!Int((*block)[d], "/block/" + std::to_string(d), 1, 1024, "block size", &x)) return false;
      spec->block[d] = static_cast<int32_t>(x);
    }
    if (j.contains("shared_bytes")) {
      int64_t x;
      if (!Int(j["shared_bytes"], "/shared_bytes", 0, 227 * 1024, "shared_bytes", &x)) return false;
      spec->shared_bytes = static_cast<int32_t>(x);
    }
    return true;
  }

};

}  // namespace

bool ParseKernelSpec(const std::string& text, const std::string& file, KernelSpec* spec, std::string* err) {
  json j;
  if (!ParseJsonText(text, file, "a kernel spec object", &j, err)) return false;
  *spec = KernelSpec();
  return SpecReader(file, err).Read(j, spec);
}

bool LoadKernelSpec(const std::string& path, KernelSpec* spec, std::string* err) {
  std::string text;
  return ReadTextFile(path, "a readable kernel spec (--kernel-spec)", &text, err) &&
         ParseKernelSpec(text, path, spec, err);
}

}  // namespace slotguard
