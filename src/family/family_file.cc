// The family description loader (docs/family-format.md).
#include "family/family_file.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <set>

#include "family/kind_model.h"
#include "family/knob_reader.h"
#include "family/request_plan.h"
#include "util/error_line.h"
#include "util/json_reader.h"

namespace slotguard {

const std::vector<std::string>& FixedVariableNames() {
  static const std::vector<std::string> names = {
      "t",          "r",        "q",         "qsl_begin",         "qsl_end",         "i",     "pos",   "lp",
      "seq_len",    "width",    "rows",      "num_reqs",          "num_tokens",      "num_actual_tokens",
      "num_real_tokens", "entry", "linked", "index", "op"};
  return names;
}

int32_t FamilyDesc::FindParam(const std::string& name) const {
  for (size_t p = 0; p < params.size(); ++p)
    if (params[p].name == name) return static_cast<int32_t>(p);
  return -1;
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || s.size() > 64 || !std::islower(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::islower(static_cast<unsigned char>(c)) && !std::isdigit(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

namespace {

using nlohmann::json;

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

const std::vector<std::string> kTopKeys = {"slotguard_family", "name",        "meaning",
                                           "engine",           "kind",        "one_token_per_request",
                                           "params",           "inputs",      "constraints", "variants"};
const std::vector<std::string> kInputKeys = {"name", "per", "meaning", "min", "max", "default"};
const std::vector<std::string> kInputPers = {"request", "token"};
const std::vector<std::string> kParamKeys = {"name", "key", "type", "meaning", "min", "max", "default",
                                             "divides", "example", "shrinks", "family", "equals"};
// "bind" ("PATH:NAME"): what python -m slotguard.engines compiles from the
// engine's tree and calls (docs/conformance.md); the binary checks it is a
// string and has no other use for it. "cite" stays last (LoadEngine).
const std::vector<std::string> kEngineKeys = {"repo", "path", "function", "commit", "note", "bind", "cite"};
const std::vector<std::string> kRequestDummyNames = {"pad", "row"};
const std::vector<std::string> kRequestRangeNames = {"pad", "clamp"};

const std::vector<std::string> kParamTypes = {"i32", "i64", "bool", "group"};
const std::vector<std::string> kRowsNames = {"table", "csr"};
const std::vector<std::string> kOwnerNames = {"request", "last_request"};
const std::vector<std::string> kDummyNames = {"pad", "row"};
const std::vector<std::string> kRangeNames = {"pad", "clamp", "none"};
const std::vector<std::string> kTailFromNames = {"num_real_tokens", "num_actual_tokens",
                                                 "min(num_actual_tokens, num_real_tokens)", "num_tokens"};
const std::vector<std::string> kTailValueNames = {"pad", "slot_mapping_in", "null_slot"};
const std::vector<std::string> kNullPageNames = {"pristine", "sink", "none", "request", "no_cache"};
const std::vector<std::string> kNullPageReadNames = {"any", "zero"};
const std::vector<std::string> kWriterKinds = {"paged", "ring"};
const std::vector<std::string> kWriterSkips = {"slot < 0", "slot == -1", "none"};
const std::vector<std::string> kWriterNegatives = {"index", "pointer", "clamp0"};
const std::vector<std::string> kWriterDummies = {"write", "skip"};
const std::vector<std::string> kWriterKeys = {"kind", "skip", "negative", "dummies", "gate", "skip_token_if"};
const std::vector<std::string> kAbsentNames = {"pad_dummies", "pass"};

bool Identifier(const std::string& s) { return IsIdentifier(s); }

template <class E>
E IndexOf(const std::vector<std::string>& names, const std::string& value) {
  return static_cast<E>(std::find(names.begin(), names.end(), value) - names.begin());
}

using Scope = KnobScope;

void RequestMappingShape(FamilyDesc* d);

/// The variables only a token has: what a per-request formula cannot read.
bool TokenOnly(int32_t var) {
  return var == FamilyDesc::kT || var == FamilyDesc::kI || var == FamilyDesc::kPos || var == FamilyDesc::kLp ||
         var == FamilyDesc::kEntry || var == FamilyDesc::kLinked;
}

class FamilyReader : public KnobReader {
 public:
  FamilyReader(const std::string& file, std::string* err) : KnobReader(file, err) {}

  bool Load(const json& root, FamilyDesc* d);

  // KnobReader: what the kinds' models read their knobs with.
  const FamilyDesc& desc() const override { return *desc_; }
  bool Formula(const json& v, const std::string& ptr, Scope scope, Expr* out) override {
    return ParseFormula(v, ptr, scope, out);
  }
  bool Formulas(const json& v, const std::string& ptr, Scope scope, std::vector<Expr>* out) override;
  bool Name(const json& v, const std::string& ptr, const std::string& what, std::vector<std::string> names,
            std::string* out) override;
  bool MappingKnobs(const json& obj, const std::string& ptr, bool variant, MappingDesc* m) override {
    return LoadKnobs(obj, ptr, variant, m) && CheckMapping(ptr, *m);
  }
  bool RequestKnobs(const json& obj, const std::string& ptr, bool variant, Scope scope, RequestDesc* r) override;

 private:
  bool LoadEngine(const json& v, EngineRef* engine);
  bool LoadParams(const json& v, FamilyDesc* d);
  bool LoadParam(const json& v, const std::string& ptr, size_t index, FamilyDesc* d);
  bool LoadConstraints(const json& v, FamilyDesc* d);
  bool LoadInputs(const json& v, FamilyDesc* d);
  /// Parameter `index`'s max and default have a value, and its range is not
  /// empty, for the example values of the parameters before it.
  bool CheckRange(const std::string& ptr, size_t index, const FamilyDesc& d);
  bool LoadLets(const json& v, const std::string& ptr, Scope scope, std::vector<LetDesc>* lets);
  /// The knobs of `obj` (the description, or a variant's "set") into *m.
  bool LoadKnobs(const json& obj, const std::string& ptr, bool variant, MappingDesc* m);
  /// "owner": {"input": NAME}: a per-token input whose default is "r".
  bool LoadOwnerInput(const json& v, const std::string& ptr, MappingDesc* m);
  bool LoadWriter(const json& v, const std::string& ptr, bool variant, WriterDesc* w);
  bool LoadLink(const json& v, const std::string& ptr, const char* test_key, const char* default_test,
                bool gate, LinkDesc* link);
  bool CheckMapping(const std::string& ptr, const MappingDesc& m);
  /// "null_page_read" of `obj` into *out: "any" or "zero" (a null block's).
  bool NullPageReadKnob(const json& obj, const std::string& ptr, NullPage null_page, NullPageRead* out);

  /// A formula at ptr, parsed against every variable and limited to `scope`
  /// (`below`: for kParams, only parameters before this index).
  bool ParseFormula(const json& v, const std::string& ptr, Scope scope, Expr* out, int32_t below = -1);

  const FamilyDesc* desc_ = nullptr;
  std::set<std::string> lets_;  // the names "let" defines (while they are read)
  std::shared_ptr<const std::vector<std::string>> names_;  // desc_->variables, shared by its formulas
  std::vector<int64_t> examples_;  // each parameter's value in the example group (CheckRange)
};

bool FamilyReader::ParseFormula(const json& v, const std::string& ptr, Scope scope, Expr* out, int32_t below) {
  std::string text;
  if (v.is_number_integer()) {
    text = v.dump();
  } else if (!String(v, ptr, "a formula (a string) or an integer", &text)) {
    return false;
  }
  std::string err;
  // One list of names for every formula (variables only grow while read).
  if (!names_ || names_->size() != desc_->variables.size())
    names_ = std::make_shared<const std::vector<std::string>>(desc_->variables);
  if (!out->Parse(text, names_, &err)) return FailWith(ptr, err);
  const int32_t params_end = FamilyDesc::kFixedVars + static_cast<int32_t>(desc_->params.size());
  const int32_t inputs_end = params_end + static_cast<int32_t>(desc_->inputs.size());
  for (int32_t var : out->VariableIndices()) {
    const std::string& name = desc_->variables[var];
    const int32_t input = desc_->InputOf(var);
    const bool token_input = input >= 0 && desc_->inputs[input].per_token();
    bool ok = false;
    std::string allowed;
    switch (scope) {
      case Scope::kParams:
        ok = var >= FamilyDesc::kFixedVars && var < params_end && (below < 0 || var < FamilyDesc::kFixedVars + below);
        allowed = below < 0 ? "the family's parameters" : "the parameters listed before this one";
        break;
      case Scope::kToken:
        ok = var != FamilyDesc::kEntry && var != FamilyDesc::kLinked && var != FamilyDesc::kIndex &&
             var != FamilyDesc::kOp;
        allowed = "a token's variables, the parameters and the lets (entry and linked come later)";
        break;
      case Scope::kDerived:
        ok = var != FamilyDesc::kEntry && var != FamilyDesc::kIndex && var != FamilyDesc::kOp;
        allowed = "linked, a token's variables, the parameters and the lets";
        break;
      case Scope::kEntry:
        ok = var != FamilyDesc::kLinked && var != FamilyDesc::kIndex && var != FamilyDesc::kOp;
        allowed = "entry, a token's variables, the parameters and the lets";
        break;
      case Scope::kRequest:
      case Scope::kOperation:
        ok = !TokenOnly(var) && !token_input && var != FamilyDesc::kIndex &&
             (var != FamilyDesc::kOp || scope == Scope::kOperation);
        allowed = std::string("a request's variables") + (desc_->inputs.empty() ? "" : " and inputs") +
                  (scope == Scope::kOperation ? ", op" : "") + ", the parameters and the lets (no token's)";
        break;
      case Scope::kIndex:
        ok = var == FamilyDesc::kIndex || (var >= FamilyDesc::kFixedVars && var < params_end);
        allowed = "index and the parameters";
        break;
      case Scope::kParamsWidth:
        ok = var == FamilyDesc::kWidth || (var >= FamilyDesc::kFixedVars && var < params_end);
        allowed = "width and the parameters";
        break;
      case Scope::kLinked:
        ok = var == FamilyDesc::kLinked || (var >= FamilyDesc::kFixedVars && var < params_end);
        allowed = "linked and the parameters";
        break;
      case Scope::kWriterToken:
        ok = var < inputs_end && var != FamilyDesc::kEntry && var != FamilyDesc::kLinked &&
             var != FamilyDesc::kIndex && var != FamilyDesc::kOp && var != FamilyDesc::kWidth &&
             var != FamilyDesc::kRows;
        allowed = std::string("a token's and its request's variables") + (desc_->inputs.empty() ? "" : " and inputs") +
                  " and the parameters (no lets, no entry)";
        break;
      case Scope::kInputRequest:
      case Scope::kInputToken:
        ok = (var >= FamilyDesc::kFixedVars && var < params_end) || var == FamilyDesc::kR ||
             var == FamilyDesc::kQ || var == FamilyDesc::kQslBegin || var == FamilyDesc::kQslEnd ||
             var == FamilyDesc::kSeqLen || var == FamilyDesc::kNumReqs || var == FamilyDesc::kNumTokens ||
             var == FamilyDesc::kNumActualTokens || var == FamilyDesc::kNumRealTokens ||
             (scope == Scope::kInputToken && (var == FamilyDesc::kT || var == FamilyDesc::kI ||
                                              var == FamilyDesc::kPos || var == FamilyDesc::kLp));
        allowed = scope == Scope::kInputToken
                      ? "the parameters, the batch's sizes and a token's and its request's fixed variables"
                      : "the parameters, the batch's sizes and a request's fixed variables (r, q, qsl_begin, "
                        "qsl_end, seq_len)";
        break;
    }
    if (!ok)
      return Fail(ptr, "'" + name + "' cannot be read here (formula '" + text + "')", "a formula over " + allowed);
  }
  return true;
}

bool FamilyReader::Formulas(const json& v, const std::string& ptr, Scope scope, std::vector<Expr>* out) {
  if (!Array(v, ptr, "an array of formulas")) return false;
  out->assign(v.size(), Expr());
  for (size_t i = 0; i < v.size(); ++i)
    if (!Formula(v[i], JsonChild(ptr, i), scope, &(*out)[i])) return false;
  return true;
}

bool FamilyReader::Name(const json& v, const std::string& ptr, const std::string& what,
                        std::vector<std::string> names, std::string* out) {
  return String(v, ptr, what, out) && OneOf(*out, names, ptr, what);
}

bool FamilyReader::Load(const json& root, FamilyDesc* d) {
  desc_ = d;
  if (!Object(root, "", "a family description object")) return false;
  const json* v;
  int64_t x;
  // The kind (its model's name) decides which knobs the description has.
  if ((v = Find(root, "kind"))) {
    std::vector<std::string> kinds;
    for (const KindModel* model : AllKindModels()) kinds.push_back(model->name());
    std::string kind;
    if (!Name(*v, "/kind", "family kind", kinds, &kind)) return false;
    d->kind = IndexOf<FamilyKind>(kinds, kind);
  }
  const KindModel& model = KindModelOf(d->kind);
  const std::vector<std::string>& knobs = model.knobs();
  std::vector<std::string> allowed = kTopKeys;
  // The table producer's interpreter (kind_table_producer.cc) sets no inputs: it has no "inputs" key.
  if (d->kind == FamilyKind::kTableProducer) allowed.erase(std::find(allowed.begin(), allowed.end(), "inputs"));
  allowed.insert(allowed.end(), knobs.begin(), knobs.end());
  if (!CheckKeys(root, "", allowed)) return false;
  if (!Require(root, "", "slotguard_family", "the format version 1", &v)) return false;
  if (!v->is_number_integer() || v->get<int64_t>() != kFamilyFormatVersion)
    return Fail("/slotguard_family", "unsupported format version", "1", DescribeJson(*v));
  if (!Require(root, "", "name", "a family name", &v) || !String(*v, "/name", "a family name", &d->name))
    return false;
  if (!Identifier(d->name))
    return Fail("/name", "bad family name " + QuoteName(d->name),
                "lower-case letters, digits and '_', starting with a letter, at most 64 characters");
  if (!Require(root, "", "meaning", "a one-line meaning", &v) ||
      !String(*v, "/meaning", "a one-line meaning", &d->meaning))
    return false;
  if (d->meaning.empty() || d->meaning.find('\n') != std::string::npos || d->meaning.size() > 400)
    return Fail("/meaning", "not one line", "a non-empty line of at most 400 characters");
  if ((v = Find(root, "engine")) && !LoadEngine(*v, &d->engine)) return false;
  (void)x;
  if ((v = Find(root, "one_token_per_request"))) {
    if (!v->is_boolean())
      return Fail("/one_token_per_request", "wrong type", "true or false", DescribeJson(*v));
    d->one_token_per_request = v->get<bool>();
    if (d->one_token_per_request && model.per_request())
      return Fail("/one_token_per_request", "a per-request kind with one token per request",
                  "no one_token_per_request beside \"kind\": \"" + std::string(model.name()) + "\"");
  }
  d->variables = FixedVariableNames();
  if (!Require(root, "", "params", "an array of parameters", &v) || !LoadParams(*v, d)) return false;
  if ((v = Find(root, "inputs")) && !LoadInputs(*v, d)) return false;
  // The lets' names are variables too: known before any formula is read.
  if (const json* let = Find(root, "let")) {
    if (!Object(*let, "/let", "an object of name: formula")) return false;
    for (auto it = let->begin(); it != let->end(); ++it) {
      const std::string at = JsonChild("/let", it.key());
      if (!Identifier(it.key()))
        return Fail(at, "bad name " + QuoteName(it.key()), "lower-case letters, digits and '_', starting with a letter");
      if (std::find(d->variables.begin(), d->variables.end(), it.key()) != d->variables.end())
        return Fail(at, QuoteName(it.key()) + " is already a variable", "a name no variable or parameter has");
      d->variables.push_back(it.key());
    }
  }
  if ((v = Find(root, "constraints")) && !LoadConstraints(*v, d)) return false;
  // The kind reads its own knobs (its model's file).
  if (!model.ReadKnobs(*this, root, "", false, &d->mapping, &d->request)) return false;
  if (model.per_request()) {
    for (const ParamDesc& p : d->params)
      if (p.type == ParamType::kGroup)
        return Fail(p.pointer, "a group parameter in a per-request kind", "parameters of type i32, i64 or bool");
    RequestMappingShape(d);
  }
  if ((v = Find(root, "variants"))) {
    if (!Array(*v, "/variants", "an array of variants")) return false;
    std::set<std::string> names = {"fixed"};
    for (size_t i = 0; i < v->size(); ++i) {
      const std::string ptr = JsonChild("/variants", i);
      const json& item = (*v)[i];
      VariantDesc variant;
      variant.pointer = ptr;
      const json* f;
      if (!Object(item, ptr, "a variant object") || !CheckKeys(item, ptr, {"name", "meaning", "fix", "set"}) ||
          !Require(item, ptr, "name", "a variant name", &f) ||
          !String(*f, JsonChild(ptr, "name"), "a variant name", &variant.name) ||
          !Require(item, ptr, "meaning", "what the variant restores", &f) ||
          !String(*f, JsonChild(ptr, "meaning"), "what the variant restores", &variant.meaning))
        return false;
      if ((f = Find(item, "fix")) && !String(*f, JsonChild(ptr, "fix"), "the upstream fix (a commit or PR)", &variant.fix))
        return false;
      if (!Identifier(variant.name))
        return Fail(JsonChild(ptr, "name"), "bad variant name " + QuoteName(variant.name),
                    "lower-case letters, digits and '_', starting with a letter");
      if (!names.insert(variant.name).second)
        return Fail(JsonChild(ptr, "name"), "variant " + QuoteName(variant.name) + " given twice",
                    variant.name == "fixed" ? "another name: 'fixed' is the description itself" : "one entry per name");
      if (!Require(item, ptr, "set", "an object of knobs to replace", &f)) return false;
      const std::string set_ptr = JsonChild(ptr, "set");
      if (!Object(*f, set_ptr, "an object of knobs to replace")) return false;
      // What a variant cannot change: the buffers and the addressing the
      // reference and the invariants share with it.
      for (const char* fixed : {"let", "outputs", "page", "manager_page", "min_width", "reads", "op", "ops", "entry"})
        if (f->contains(fixed))
          return Fail(JsonChild(set_ptr, fixed), std::string("a variant cannot change '") + fixed + "'",
                      "other knobs (the outputs, the pages, the row width, the reads, the operations, the lets "
                      "and a derived entry are the family's)");
      if (!CheckKeys(*f, set_ptr, knobs)) return false;
      if (f->empty()) return Fail(set_ptr, "a variant that changes nothing", "at least one knob to replace");
      variant.mapping = d->mapping;
      variant.request = d->request;
      if (!model.ReadKnobs(*this, *f, set_ptr, true, &variant.mapping, &variant.request)) return false;
      d->variants.push_back(std::move(variant));
    }
  }
  return true;
}

bool FamilyReader::LoadEngine(const json& v, EngineRef* engine) {
  if (!Object(v, "/engine", "an object {repo, path, function, commit, note}") || !CheckKeys(v, "/engine", kEngineKeys))
    return false;
  std::string bind;  // read by the Python package, not by the binary
  std::string* fields[] = {&engine->repo, &engine->path, &engine->function, &engine->commit, &engine->note, &bind};
  if (const json* c = Find(v, "cite")) {
    if (!Object(*c, "/engine/cite", "an object {knob: \"path:line what the code does\"}")) return false;
    for (auto it = c->begin(); it != c->end(); ++it) {
      std::string text;
      if (!String(it.value(), JsonChild("/engine/cite", it.key()), "a citation \"path:line what the code does\"", &text))
        return false;
      if (text.find(':') == std::string::npos)
        return Fail(JsonChild("/engine/cite", it.key()), "a citation without a line",
                    "\"path:line what the code does\"");
      engine->cite.emplace_back(it.key(), text);
    }
  }
  for (size_t k = 0; k + 1 < kEngineKeys.size(); ++k)
    if (const json* f = Find(v, kEngineKeys[k]);
        f && !String(*f, JsonChild("/engine", kEngineKeys[k]), "a string", fields[k]))
      return false;
  return true;
}

bool FamilyReader::LoadParams(const json& v, FamilyDesc* d) {
  if (!Array(v, "/params", "an array of parameters")) return false;
  if (v.size() > 64) return Fail("/params", "too many parameters", "at most 64", std::to_string(v.size()));
  // Names first: every formula may read any parameter (a parameter's own
  // max and default only the earlier ones).
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string ptr = JsonChild("/params", i);
    const json* f;
    std::string name;
    if (!Object(v[i], ptr, "a parameter object") || !CheckKeys(v[i], ptr, kParamKeys) ||
        !Require(v[i], ptr, "name", "a parameter name", &f) || !String(*f, JsonChild(ptr, "name"), "a parameter name", &name))
      return false;
    if (!Identifier(name))
      return Fail(JsonChild(ptr, "name"), "bad parameter name " + QuoteName(name),
                  "lower-case letters, digits and '_', starting with a letter");
    if (std::find(d->variables.begin(), d->variables.end(), name) != d->variables.end())
      return Fail(JsonChild(ptr, "name"), QuoteName(name) + " is already a variable",
                  "a name that is not " + JoinNames(d->variables));
    d->variables.push_back(name);
    ParamDesc p;
    p.name = name;
    p.pointer = ptr;
    d->params.push_back(p);
  }
  for (size_t i = 0; i < v.size(); ++i)
    if (!LoadParam(v[i], JsonChild("/params", i), i, d)) return false;
  return true;
}

bool FamilyReader::LoadParam(const json& v, const std::string& ptr, size_t index, FamilyDesc* d) {
  ParamDesc& p = d->params[index];
  const json* f;
  std::string text;
  p.key = p.name;
  if ((f = Find(v, "key"))) {
    if (!String(*f, JsonChild(ptr, "key"), "a JSON key, or OBJECT/KEY", &p.key)) return false;
    const size_t slash = p.key.find('/');
    const bool good = !p.key.empty() && p.key.find('/', slash == std::string::npos ? 0 : slash + 1) == std::string::npos &&
                      Identifier(p.top_key()) && Identifier(p.leaf_key());
    if (!good)
      return Fail(JsonChild(ptr, "key"), "bad key " + QuoteName(p.key),
                  "a name, or OBJECT/KEY (one level of nesting), in lower-case letters, digits and '_'");
    for (size_t j = 0; j < index; ++j) {
      const ParamDesc& other = d->params[j];
      if (other.key == p.key || (other.nested() != p.nested() && other.top_key() == p.top_key()))
        return Fail(JsonChild(ptr, "key"), "key " + QuoteName(p.key) + " collides with " + other.pointer,
                    "a key no other parameter uses");
    }
  } else {
    for (size_t j = 0; j < index; ++j)
      if (d->params[j].top_key() == p.key)
        return Fail(JsonChild(ptr, "name"), "key " + QuoteName(p.key) + " collides with " + d->params[j].pointer,
                    "a key no other parameter uses");
  }
  if ((f = Find(v, "type"))) {
    if (!Name(*f, JsonChild(ptr, "type"), "parameter type", kParamTypes, &text)) return false;
    p.type = IndexOf<ParamType>(kParamTypes, text);
  }
  if (!Require(v, ptr, "meaning", "what it means, in one line", &f) ||
      !String(*f, JsonChild(ptr, "meaning"), "what it means, in one line", &p.meaning))
    return false;
  const bool number = p.is_int();
  for (const char* key : {"min", "max", "divides", "example", "shrinks", "equals"})
    if (!number && Find(v, key))
      return Fail(JsonChild(ptr, key), std::string("'") + key + "' applies to integer parameters only",
                  "no '" + std::string(key) + "' on a " + (p.type == ParamType::kBool ? "bool" : "group") + " parameter");
  if (p.type != ParamType::kGroup && Find(v, "family"))
    return Fail(JsonChild(ptr, "family"), "'family' applies to group parameters only", "no 'family' here");
  if (p.type == ParamType::kGroup) {
    if (!Require(v, ptr, "family", "the family of the group it names", &f) ||
        !String(*f, JsonChild(ptr, "family"), "a family name", &p.family))
      return false;
    // A group that reads another group is read by none (no chains): a
    // family that links to itself names groups that could never be read.
    if (p.family == d->name)
      return Fail(JsonChild(ptr, "family"), "a group parameter names the family itself (" + QuoteName(p.family) + ")",
                  "another family: a group that reads another group's output is never read by one (no chain, no cycle)");
    if (Find(v, "default"))
      return Fail(JsonChild(ptr, "default"), "a group parameter has no default",
                  "no 'default' (a scenario may leave it out)");
    return CheckRange(ptr, index, *d);
  }
  const int64_t type_max = p.type == ParamType::kI32 ? kInt32Max : kInt64Max;
  const int64_t type_min = p.type == ParamType::kI32 ? -kInt32Max - 1 : kInt64Min;
  if (p.type == ParamType::kBool) {
    p.min = 0;
    if ((f = Find(v, "default"))) {
      if (!f->is_boolean()) return Fail(JsonChild(ptr, "default"), "wrong type", "true or false", DescribeJson(*f));
      std::string err;
      p.default_value.Parse(f->get<bool>() ? "1" : "0", d->variables, &err);
    }
    p.max.Parse("1", d->variables, &text);
    return CheckRange(ptr, index, *d);
  }
  int64_t x;
  if ((f = Find(v, "min"))) {
    if (!Int(*f, JsonChild(ptr, "min"), type_min, type_max, "min", &x)) return false;
    p.min = x;
  }
  if ((f = Find(v, "max"))) {
    if (!ParseFormula(*f, JsonChild(ptr, "max"), Scope::kParams, &p.max, static_cast<int32_t>(index))) return false;
  } else {
    p.max.Parse(std::to_string(type_max), d->variables, &text);
  }
  if ((f = Find(v, "default")) &&
      !ParseFormula(*f, JsonChild(ptr, "default"), Scope::kParams, &p.default_value, static_cast<int32_t>(index)))
    return false;
  if ((f = Find(v, "divides"))) {
    if (!String(*f, JsonChild(ptr, "divides"), "the name of an earlier integer parameter", &p.divides)) return false;
    const int32_t target = d->FindParam(p.divides);
    if (target < 0 || target >= static_cast<int32_t>(index) || !d->params[target].is_int()) {
      std::vector<std::string> earlier;
      for (size_t j = 0; j < index; ++j)
        if (d->params[j].is_int()) earlier.push_back(d->params[j].name);
      return Fail(JsonChild(ptr, "divides"), "no earlier integer parameter " + QuoteName(p.divides) + DidYouMean(p.divides, earlier),
                  earlier.empty() ? "an earlier integer parameter (there is none)" : "one of " + JoinNames(earlier));
    }
    if (p.min < 1) return Fail(JsonChild(ptr, "min"), "a divisor may be 0", "min >= 1 beside 'divides'");
  }
  if ((f = Find(v, "equals"))) {
    // "P.NAME": parameter NAME of the group that the earlier group parameter P names.
    std::string text2;
    if (!String(*f, JsonChild(ptr, "equals"), "GROUP_PARAM.NAME", &text2)) return false;
    const size_t dot = text2.find('.');
    std::vector<std::string> links;
    for (size_t j = 0; j < index; ++j)
      if (d->params[j].type == ParamType::kGroup) links.push_back(d->params[j].name);
    const std::string link = text2.substr(0, dot);
    const int32_t target = d->FindParam(link);
    if (dot == std::string::npos || !Identifier(text2.substr(dot + 1)))
      return Fail(JsonChild(ptr, "equals"), "bad reference " + QuoteName(text2),
                  "GROUP_PARAM.NAME: a parameter of the group an earlier group parameter names");
    if (target < 0 || target >= static_cast<int32_t>(index) || d->params[target].type != ParamType::kGroup)
      return Fail(JsonChild(ptr, "equals"), "no earlier group parameter " + QuoteName(link) + DidYouMean(link, links),
                  links.empty() ? "an earlier group parameter (there is none)" : "one of " + JoinNames(links));
    p.equals_link = target;
    p.equals_param = text2.substr(dot + 1);
  }
  p.example = std::max<int64_t>(p.min, 1);
  if ((f = Find(v, "example"))) {
    if (!Int(*f, JsonChild(ptr, "example"), p.min, type_max, "example", &x)) return false;
    p.example = x;
  }
  if ((f = Find(v, "shrinks"))) {
    if (!f->is_boolean()) return Fail(JsonChild(ptr, "shrinks"), "wrong type", "true or false", DescribeJson(*f));
    p.shrinks = f->get<bool>();
  }
  return CheckRange(ptr, index, *d);
}

bool FamilyReader::CheckRange(const std::string& ptr, size_t index, const FamilyDesc& d) {
  // The example group's values (its default, else its example) of the
  // parameters before this one: its max and default must have a value
  // there, and its range must hold one (min > max leaves a family no
  // scenario, and a campaign nothing to check).
  const ParamDesc& p = d.params[index];
  std::vector<int64_t> vars(d.variables.size(), 0);
  for (size_t j = 0; j < index; ++j) vars[d.param_var(static_cast<int32_t>(j))] = examples_[j];
  std::string why;
  int64_t max = 0, constant = 0, value = p.is_int() ? p.example : 0;
  if (!p.max.empty() && !p.max.Evaluate(vars.data(), &max, &why))
    return Fail(JsonChild(ptr, "max"), "max '" + p.max.text() + "' has no value (" + why + ") for the example values",
                "a max formula with a value for every parameter in range");
  if (p.is_int() && max < p.min)
    return Fail(JsonChild(ptr, "max"),
                "max " + std::to_string(max) + (p.max.IsConstant(&constant) ? "" : " (for the example values)") +
                    " below min " + std::to_string(p.min) + ": no value is in range",
                "max >= min", p.max.text());
  if (!p.default_value.empty() && !p.default_value.Evaluate(vars.data(), &value, &why))
    return Fail(JsonChild(ptr, "default"),
                "default '" + p.default_value.text() + "' has no value (" + why + ") for the example values",
                "a default formula with a value for every parameter in range");
  if (!p.is_int() && p.default_value.empty()) value = 0;
  examples_.push_back(value);
  return true;
}

bool FamilyReader::LoadInputs(const json& v, FamilyDesc* d) {
  if (!Array(v, "/inputs", "an array of inputs")) return false;
  if (v.size() > 16) return Fail("/inputs", "too many inputs", "at most 16", std::to_string(v.size()));
  // Names first (each is a variable), then each input's formulas.
  for (size_t k = 0; k < v.size(); ++k) {
    const std::string ptr = JsonChild("/inputs", k);
    const json* f;
    InputDesc in;
    in.pointer = ptr;
    if (!Object(v[k], ptr, "an input object") || !CheckKeys(v[k], ptr, kInputKeys) ||
        !Require(v[k], ptr, "name", "an input name", &f) || !String(*f, JsonChild(ptr, "name"), "an input name", &in.name))
      return false;
    if (!Identifier(in.name))
      return Fail(JsonChild(ptr, "name"), "bad input name " + QuoteName(in.name),
                  "lower-case letters, digits and '_', starting with a letter");
    if (std::find(d->variables.begin(), d->variables.end(), in.name) != d->variables.end())
      return Fail(JsonChild(ptr, "name"), QuoteName(in.name) + " is already a variable",
                  "a name that is not " + JoinNames(d->variables));
    std::string per;
    if (!Require(v[k], ptr, "per", "\"request\" or \"token\"", &f) ||
        !Name(*f, JsonChild(ptr, "per"), "input kind", kInputPers, &per))
      return false;
    in.per = IndexOf<InputPer>(kInputPers, per);
    if (!Require(v[k], ptr, "meaning", "what it means, in one line", &f) ||
        !String(*f, JsonChild(ptr, "meaning"), "what it means, in one line", &in.meaning))
      return false;
    d->variables.push_back(in.name);
    d->inputs.push_back(std::move(in));
  }
  std::vector<int64_t> vars(d->variables.size(), 0);
  for (size_t p = 0; p < d->params.size(); ++p) vars[d->param_var(static_cast<int32_t>(p))] = examples_[p];
  for (size_t k = 0; k < v.size(); ++k) {
    const std::string ptr = JsonChild("/inputs", k);
    InputDesc& in = d->inputs[k];
    const json* f;
    std::string text;
    int64_t x;
    if ((f = Find(v[k], "min"))) {
      if (!Int(*f, JsonChild(ptr, "min"), kInt64Min, kInt64Max, "min", &x)) return false;
      in.min = x;
    }
    if ((f = Find(v[k], "max"))) {
      if (!ParseFormula(*f, JsonChild(ptr, "max"), Scope::kParams, &in.max)) return false;
    } else {
      in.max.Parse(std::to_string(kInt64Max), d->variables, &text);
    }
    if (!Require(v[k], ptr, "default", "a formula: the value where a scenario gives none", &f) ||
        !ParseFormula(*f, JsonChild(ptr, "default"), in.per_token() ? Scope::kInputToken : Scope::kInputRequest,
                      &in.default_value))
      return false;
    // Its range must hold a value for the example parameters.
    std::string why;
    int64_t max = 0;
    if (!in.max.Evaluate(vars.data(), &max, &why))
      return Fail(JsonChild(ptr, "max"), "max '" + in.max.text() + "' has no value (" + why + ") for the example values",
                  "a max formula with a value for every parameter in range");
    if (max < in.min)
      return Fail(JsonChild(ptr, "max"), "max " + std::to_string(max) + " below min " + std::to_string(in.min) +
                                             ": no value is in range",
                  "max >= min", in.max.text());
  }
  return true;
}

bool FamilyReader::LoadConstraints(const json& v, FamilyDesc* d) {
  if (!Array(v, "/constraints", "an array of constraints")) return false;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string ptr = JsonChild("/constraints", i);
    ConstraintDesc c;
    c.pointer = ptr;
    const json* f;
    std::string at;
    if (!Object(v[i], ptr, "a constraint {holds, at, expected}") ||
        !CheckKeys(v[i], ptr, {"holds", "at", "expected"}) ||
        !Require(v[i], ptr, "holds", "a condition over the parameters", &f) ||
        !Formula(*f, JsonChild(ptr, "holds"), Scope::kParams, &c.holds) ||
        !Require(v[i], ptr, "at", "the parameter an error points at", &f))
      return false;
    std::vector<std::string> names;
    for (const ParamDesc& p : d->params) names.push_back(p.name);
    if (!Name(*f, JsonChild(ptr, "at"), "parameter", names, &at)) return false;
    c.at = d->FindParam(at);
    if (!Require(v[i], ptr, "expected", "what a scenario must give, in words", &f) ||
        !String(*f, JsonChild(ptr, "expected"), "what a scenario must give, in words", &c.expected))
      return false;
    d->constraints.push_back(std::move(c));
  }
  return true;
}

bool FamilyReader::LoadLets(const json& v, const std::string& ptr, Scope scope, std::vector<LetDesc>* lets) {
  // Parse each, then order them so that each reads only earlier ones: in
  // rounds, each round in name order taking every let whose reads are
  // taken (sorted by round, then name). Computed in time linear in the lets
  // and their reads (a topological order first, then each let's round),
  // not a pass over every let per round.
  std::map<std::string, Expr> parsed;
  for (auto it = v.begin(); it != v.end(); ++it)
    if (!Formula(*it, JsonChild(ptr, it.key()), scope, &parsed[it.key()])) return false;
  std::map<std::string, std::vector<std::string>> reads, readers;
  std::map<std::string, size_t> waiting;  // the unordered lets it reads
  for (const auto& [name, expr] : parsed) {
    size_t& n = waiting[name];
    for (const std::string& used : expr.Variables())
      if (parsed.count(used)) {
        reads[name].push_back(used);
        readers[used].push_back(name);
        ++n;
      }
  }
  std::vector<std::string> order;
  std::vector<std::string> ready;
  for (const auto& [name, n] : waiting)
    if (n == 0) ready.push_back(name);
  while (!ready.empty()) {
    const std::string name = ready.back();
    ready.pop_back();
    order.push_back(name);
    for (const std::string& reader : readers[name])
      if (--waiting[reader] == 0) ready.push_back(reader);
  }
  if (order.size() < parsed.size()) {
    std::vector<std::string> cycle;
    for (const auto& [name, n] : waiting)
      if (n > 0) cycle.push_back(name);
    return Fail(JsonChild(ptr, cycle.front()), "the lets " + JoinNames(cycle) + " read each other in a cycle",
                "lets that each read only parameters, token variables and other lets");
  }
  // A let's round: that of each let it reads, one later when that one's
  // name sorts after its own (a round goes through the names in order).
  std::map<std::string, size_t> round;
  for (const std::string& name : order) {
    size_t r = 0;
    for (const std::string& used : reads[name]) r = std::max(r, round[used] + (used > name ? 1 : 0));
    round[name] = r;
  }
  std::sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) {
    return round[a] != round[b] ? round[a] < round[b] : a < b;
  });
  std::map<std::string, int32_t> index;
  for (size_t i = 0; i < desc_->variables.size(); ++i) index.emplace(desc_->variables[i], static_cast<int32_t>(i));
  for (const std::string& name : order) {
    LetDesc let;
    let.name = name;
    let.value = parsed[name];
    let.var = index.count(name) ? index[name] : static_cast<int32_t>(desc_->variables.size());
    lets->push_back(std::move(let));
  }
  return true;
}

bool FamilyReader::LoadLink(const json& v, const std::string& ptr, const char* test_key, const char* default_test,
                            bool gate, LinkDesc* link) {
  std::vector<std::string> keys = {"group", test_key};
  if (gate) keys.push_back("absent");
  if (!Object(v, ptr, "an object {group, " + std::string(test_key) + "}") || !CheckKeys(v, ptr, keys)) return false;
  const json* f;
  std::string name;
  std::vector<std::string> groups;
  for (const ParamDesc& p : desc_->params)
    if (p.type == ParamType::kGroup) groups.push_back(p.name);
  if (!Require(v, ptr, "group", "the group parameter that names the linked group", &f) ||
      !String(*f, JsonChild(ptr, "group"), "a group parameter's name", &name))
    return false;
  if (std::find(groups.begin(), groups.end(), name) == groups.end())
    return Fail(JsonChild(ptr, "group"), "no group parameter " + QuoteName(name) + DidYouMean(name, groups),
                groups.empty() ? "a parameter of type \"group\" (the family has none)" : "one of " + JoinNames(groups));
  link->param = desc_->FindParam(name);
  if ((f = Find(v, test_key))) {
    if (!Formula(*f, JsonChild(ptr, test_key), Scope::kLinked, &link->test)) return false;
  } else {
    std::string err;
    link->test.Parse(default_test, desc_->variables, &err);
  }
  link->absent = GateAbsent::kPadDummies;
  if (gate && (f = Find(v, "absent"))) {
    std::string text;
    if (!Name(*f, JsonChild(ptr, "absent"), "gate absent rule", kAbsentNames, &text)) return false;
    link->absent = IndexOf<GateAbsent>(kAbsentNames, text);
  }
  return true;
}

bool FamilyReader::LoadKnobs(const json& obj, const std::string& ptr, bool variant, MappingDesc* m) {
  const json* v;
  std::string text;
  auto at = [&](const char* key) { return JsonChild(ptr, key); };
  // Optional formulas a variant may remove with null.
  auto removed = [&](const char* key) { return variant && (v = Find(obj, key)) && v->is_null(); };
  // A derived mapping (`entry` over `linked`) lets its per-token knobs read `linked` too.
  const bool derived = m->derived() || Find(obj, "entry");
  const Scope token = derived ? Scope::kDerived : Scope::kToken;
  if (!variant && (v = Find(obj, "let"))) {
    if (!Object(*v, at("let"), "an object of name: formula") || !LoadLets(*v, at("let"), token, &m->lets))
      return false;
  }
  if ((v = Find(obj, "rows"))) {
    if (!Name(*v, at("rows"), "rows rule", kRowsNames, &text)) return false;
    m->rows = IndexOf<RowsRule>(kRowsNames, text);
  }
  if ((v = Find(obj, "owner"))) {
    if (v->is_object()) {
      if (!LoadOwnerInput(*v, at("owner"), m)) return false;
    } else if (!v->is_string()) {
      return Fail(at("owner"), "wrong type", "\"request\", \"last_request\" or {\"input\": NAME}", DescribeJson(*v));
    } else {
      if (!Name(*v, at("owner"), "owner rule", kOwnerNames, &text)) return false;
      m->owner = IndexOf<OwnerRule>(kOwnerNames, text);
      m->owner_input.clear();
    }
  }
  if ((v = Find(obj, "dummy"))) {
    if (!Name(*v, at("dummy"), "dummy rule", kDummyNames, &text)) return false;
    m->dummy = IndexOf<DummyRule>(kDummyNames, text);
  }
  if ((v = Find(obj, "select")) && !Formulas(*v, at("select"), token, &m->select)) return false;
  if (derived) {
    // No table read: the entry comes from the linked group's slot. The
    // knobs that say how a row is read contradict it.
    if (!variant && !Formula(*Find(obj, "entry"), at("entry"), Scope::kDerived, &m->entry)) return false;
    for (const char* key : {"column", "rows", "range", "min_width", "reads"})
      if (Find(obj, key))
        return Fail(at(key), std::string("\"") + key + "\" beside \"entry\": a derived entry reads no table column",
                    "either \"entry\" (from the linked group's slot) or \"column\" and the row's knobs");
  } else if ((v = Find(obj, "column"))) {
    if (!Formula(*v, at("column"), Scope::kToken, &m->column)) return false;
  } else if (!variant) {
    return Fail(ptr, "missing required key", "\"column\": the table column a token reads", "no key 'column'");
  }
  if ((v = Find(obj, "reads"))) {
    const std::string reads = at("reads");
    const json* f;
    if (!Object(*v, reads, "an object {from, to}: the columns a live token's attention reads") ||
        !CheckKeys(*v, reads, {"from", "to"}) ||
        !Require(*v, reads, "from", "the first column the token reads unmasked", &f) ||
        !Formula(*f, JsonChild(reads, "from"), Scope::kToken, &m->reads_from) ||
        !Require(*v, reads, "to", "the last column the token reads unmasked", &f) ||
        !Formula(*f, JsonChild(reads, "to"), Scope::kToken, &m->reads_to))
      return false;
  }
  if ((v = Find(obj, "range"))) {
    if (!Name(*v, at("range"), "range rule", kRangeNames, &text)) return false;
    m->range = IndexOf<RangeRule>(kRangeNames, text);
  }
  if ((v = Find(obj, "min_width")) && !Formula(*v, at("min_width"), Scope::kParams, &m->min_width)) return false;
  if (m->min_width.empty()) m->min_width.Parse("0", desc_->variables, &text);
  if (removed("entry_map")) {
    m->entry_map = Expr();
  } else if ((v = Find(obj, "entry_map")) && !Formula(*v, at("entry_map"), Scope::kEntry, &m->entry_map)) {
    return false;
  }
  if (removed("pad_entry")) {
    m->pad_entry = Expr();
  } else if ((v = Find(obj, "pad_entry")) && !Formula(*v, at("pad_entry"), Scope::kEntry, &m->pad_entry)) {
    return false;
  }
  if ((v = Find(obj, "offset"))) {
    if (!Formula(*v, at("offset"), token, &m->offset)) return false;
  } else if (!variant) {
    return Fail(ptr, "missing required key", "\"offset\": the slot within the entry's page", "no key 'offset'");
  }
  if ((v = Find(obj, "page"))) {
    if (!Formula(*v, at("page"), Scope::kParams, &m->page)) return false;
  } else if (!variant) {
    return Fail(ptr, "missing required key", "\"page\": the slots one table entry names", "no key 'page'");
  }
  if ((v = Find(obj, "manager_page"))) {
    if (!Formula(*v, at("manager_page"), Scope::kParams, &m->manager_page)) return false;
  } else if (!variant) {
    m->manager_page = m->page;
  }
  if (removed("gate")) {
    m->gate = LinkDesc();
  } else if ((v = Find(obj, "gate")) && !LoadLink(*v, at("gate"), "pad_if", "linked < 0", true, &m->gate)) {
    return false;
  }
  if ((v = Find(obj, "tail"))) {
    const std::string tail = at("tail");
    if (!Object(*v, tail, "an object {from, value}") || !CheckKeys(*v, tail, {"from", "value"})) return false;
    const json* f;
    if ((f = Find(*v, "from"))) {
      if (!Name(*f, JsonChild(tail, "from"), "tail start", kTailFromNames, &text)) return false;
      m->tail_from = IndexOf<TailFrom>(kTailFromNames, text);
    }
    if ((f = Find(*v, "value"))) {
      if (!Name(*f, JsonChild(tail, "value"), "tail value", kTailValueNames, &text)) return false;
      m->tail_value = IndexOf<TailValue>(kTailValueNames, text);
    }
  }
  if ((v = Find(obj, "outputs"))) {
    const std::string outs = at("outputs");
    if (!Array(*v, outs, "an array of outputs")) return false;
    if (v->empty() || v->size() > 2)
      return Fail(outs, "wrong number of outputs", "1 or 2 (the implementations' calls carry two at most)",
                  std::to_string(v->size()));
    m->outputs.clear();
    std::set<std::string> names;
    for (size_t i = 0; i < v->size(); ++i) {
      const std::string o = JsonChild(outs, i);
      OutputDesc out;
      const json* f;
      if (!Object((*v)[i], o, "an output {name, select, dummy, writer}") ||
          !CheckKeys((*v)[i], o, {"name", "select", "dummy", "writer"}))
        return false;
      if ((f = Find((*v)[i], "name")) && !String(*f, JsonChild(o, "name"), "an output name", &out.name)) return false;
      if (i == 0 && !out.name.empty())
        return Fail(JsonChild(o, "name"), "the first output has a name", "\"\": the first output is the group's own");
      if (i > 0 && !Identifier(out.name))
        return Fail(JsonChild(o, "name"), "bad output name " + QuoteName(out.name),
                    "lower-case letters, digits and '_' (the output is named GROUP.NAME)");
      if (!names.insert(out.name).second)
        return Fail(JsonChild(o, "name"), "output " + QuoteName(out.name) + " given twice", "one output per name");
      if ((f = Find((*v)[i], "select")) && !Formulas(*f, JsonChild(o, "select"), Scope::kToken, &out.select))
        return false;
      if ((f = Find((*v)[i], "dummy"))) {
        if (!Name(*f, JsonChild(o, "dummy"), "dummy rule", kDummyNames, &text)) return false;
        out.dummy = IndexOf<DummyRule>(kDummyNames, text);
        out.own_dummy = true;
      }
      if ((f = Find((*v)[i], "writer"))) {
        if (!LoadWriter(*f, JsonChild(o, "writer"), false, &out.writer)) return false;
        out.own_writer = true;
      }
      m->outputs.push_back(std::move(out));
    }
  } else if (!variant) {
    m->outputs.assign(1, OutputDesc());
  }
  if ((v = Find(obj, "null_page"))) {
    if (!Name(*v, at("null_page"), "null page policy", kNullPageNames, &text)) return false;
    m->null_page = IndexOf<NullPage>(kNullPageNames, text);
  }
  if (!NullPageReadKnob(obj, ptr, m->null_page, &m->null_page_read)) return false;
  if ((v = Find(obj, "pad_value"))) {
    if (!v->is_number_integer() || (v->get<int64_t>() != -1 && v->get<int64_t>() != 0))
      return Fail(at("pad_value"), "bad pad value " + DescribeJson(*v),
                  "-1 (PAD, the default) or 0 (a zeroed buffer: unmapped tokens write slot 0 of a sink)");
    m->pad_value = v->get<int64_t>();
  }
  if ((v = Find(obj, "writer")) && !LoadWriter(*v, at("writer"), variant, &m->writer)) return false;
  // An output that sets no rule of its own has the family's (a variant's
  // dummy rule or writer reaches every output that does not set its own).
  for (OutputDesc& out : m->outputs) {
    if (!out.own_dummy) out.dummy = m->dummy;
    if (!out.own_writer) out.writer = m->writer;
  }
  return true;
}

/// "writer": "none" (nothing writes through the output) or an object
/// {kind, skip, negative, dummies, gate}; what it does not give keeps *w's.
bool FamilyReader::LoadWriter(const json& v, const std::string& w, bool variant, WriterDesc* out) {
  std::string text;
  if (v.is_string() && v.get<std::string>() == "none") {
    *out = WriterDesc();
    out->writes = false;
    return true;
  }
  if (!Object(v, w, "\"none\" or an object {kind, skip, negative, dummies, skip_token_if, gate}") ||
      !CheckKeys(v, w, kWriterKeys))
    return false;
  out->writes = true;
  const json* f;
  if ((f = Find(v, "kind"))) {
    if (!Name(*f, JsonChild(w, "kind"), "writer kind", kWriterKinds, &text)) return false;
    out->style = IndexOf<WriterStyle>(kWriterKinds, text);
  }
  if ((f = Find(v, "skip"))) {
    if (!Name(*f, JsonChild(w, "skip"), "writer skip test", kWriterSkips, &text)) return false;
    out->skip = IndexOf<WriterSkip>(kWriterSkips, text);
  }
  if ((f = Find(v, "negative"))) {
    if (!Name(*f, JsonChild(w, "negative"), "negative slot's landing", kWriterNegatives, &text)) return false;
    out->negative = IndexOf<WriterNegative>(kWriterNegatives, text);
  }
  if ((f = Find(v, "dummies"))) {
    if (!Name(*f, JsonChild(w, "dummies"), "writer dummy rule", kWriterDummies, &text)) return false;
    out->dummies = IndexOf<WriterDummies>(kWriterDummies, text);
  }
  if ((f = Find(v, "skip_token_if"))) {
    if (f->is_null() && variant) {
      out->token_skip = Expr();
    } else if (!Formula(*f, JsonChild(w, "skip_token_if"), Scope::kWriterToken, &out->token_skip)) {
      return false;
    }
  }
  if ((f = Find(v, "gate"))) {
    if (f->is_null() && variant) {
      out->gate = LinkDesc();
    } else if (!LoadLink(*f, JsonChild(w, "gate"), "skip_if", "linked < 0", false, &out->gate)) {
      return false;
    }
  }
  return true;
}

/// A per-request kind's mapping as the per-token code reads it: its outputs
/// by name, entries naming one id each (page 1), no unguarded columns, its
/// null page. So the registry, the listing and the wire formats need no
/// second path; what differs (lengths, invariants) asks the kind.
void RequestMappingShape(FamilyDesc* d) {
  std::string unused;
  MappingDesc& m = d->mapping;
  m.outputs.assign(1, OutputDesc());
  for (const std::string& suffix : RequestOutputSuffixes(*d)) {
    OutputDesc out;
    out.name = suffix;
    m.outputs.push_back(out);
  }
  for (Expr* e : {&m.page, &m.manager_page}) e->Parse("1", d->variables, &unused);
  for (Expr* e : {&m.min_width, &m.column, &m.offset}) e->Parse("0", d->variables, &unused);
  m.null_page = d->request.null_page;
  m.null_page_read = d->request.null_page_read;
}

bool FamilyReader::RequestKnobs(const json& obj, const std::string& ptr, bool variant, Scope scope, RequestDesc* r) {
  const json* v;
  std::string text;
  auto at = [&](const char* key) { return JsonChild(ptr, key); };
  if (!variant && (v = Find(obj, "let"))) {
    if (!Object(*v, at("let"), "an object of name: formula") || !LoadLets(*v, at("let"), scope, &r->lets)) return false;
  }
  if ((v = Find(obj, "dummy"))) {
    if (!Name(*v, at("dummy"), "dummy rule", kRequestDummyNames, &text)) return false;
    r->dummy = IndexOf<DummyRule>(kRequestDummyNames, text);
  }
  if ((v = Find(obj, "range"))) {
    if (!Name(*v, at("range"), "range rule", kRequestRangeNames, &text)) return false;
    r->range = IndexOf<RangeRule>(kRequestRangeNames, text);
  }
  if ((v = Find(obj, "null_index"))) {
    if (!Formula(*v, at("null_index"), Scope::kIndex, &r->null_index)) return false;
  } else if (!variant) {
    r->null_index.Parse("index == 0", desc_->variables, &text);
  }
  if ((v = Find(obj, "null_page"))) {
    if (!Name(*v, at("null_page"), "null page policy", kNullPageNames, &text)) return false;
    r->null_page = IndexOf<NullPage>(kNullPageNames, text);
    if (r->null_page == NullPage::kNoCache)
      return Fail(at("null_page"), "a per-request kind has a cache (\"no_cache\" is a slot mapping's)",
                  "pristine, sink, none or request");
  }
  if (!NullPageReadKnob(obj, ptr, r->null_page, &r->null_page_read)) return false;
  if (r->null_page_read == NullPageRead::kZero)
    return Fail(at("null_page_read"), "a per-request kind has no pool in the memory model (null_read judges a slot mapping's)",
                "\"any\"");
  return true;
}

bool FamilyReader::NullPageReadKnob(const json& obj, const std::string& ptr, NullPage null_page,
                                    NullPageRead* out) {
  const json* v = Find(obj, "null_page_read");
  if (!v) return true;  // the family's (a variant's "set" leaves it), or "any"
  const std::string at = JsonChild(ptr, "null_page_read");
  if (!v->is_string() || std::find(kNullPageReadNames.begin(), kNullPageReadNames.end(), v->get<std::string>()) ==
                             kNullPageReadNames.end())
    return Fail(at, "bad null page read requirement", "\"zero\" or \"any\"", DescribeJson(*v));
  *out = IndexOf<NullPageRead>(kNullPageReadNames, v->get<std::string>());
  if (*out == NullPageRead::kZero && !HasNullBlock(null_page))
    return Fail(at, "a reader of a null block the family does not have",
                "\"any\", or \"zero\" beside \"null_page\": \"pristine\" or \"sink\"");
  return true;
}

bool FamilyReader::LoadOwnerInput(const json& v, const std::string& ptr, MappingDesc* m) {
  const json* f;
  std::string name;
  const std::string input_ptr = JsonChild(ptr, "input");
  if (!CheckKeys(v, ptr, {"input"}) ||
      !Require(v, ptr, "input", "the name of the per-token input that holds each token's request", &f) ||
      !String(*f, input_ptr, "an input's name", &name))
    return false;
  std::vector<std::string> names;
  for (const InputDesc& in : desc_->inputs) names.push_back(in.name);
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end())
    return Fail(input_ptr, "no input " + QuoteName(name) + DidYouMean(name, names),
                names.empty() ? "an input of \"inputs\" (the family has none)" : "one of " + JoinNames(names));
  const InputDesc& in = desc_->inputs[static_cast<size_t>(it - names.begin())];
  if (!in.per_token())
    return Fail(input_ptr, "input " + QuoteName(name) + " is per request",
                "a per-token input: one request index per token");
  // Without the array a token keeps query_start_loc's request: the default is that owner.
  if (in.default_value.text() != "r")
    return Fail(JsonChild(in.pointer, "default"),
                "the owner input's default '" + in.default_value.text() + "' is not the token's query_start_loc request",
                "\"r\" (a scenario without the array keeps query_start_loc's owner)");
  m->owner = OwnerRule::kInput;
  m->owner_input = name;
  return true;
}

bool FamilyReader::CheckMapping(const std::string& ptr, const MappingDesc& m) {
  auto at = [&](const char* key) { return JsonChild(ptr, key); };
  // A group without a cache writes nothing, so a slot 0 there is no write.
  const bool zero_ok = m.null_page == NullPage::kSink || m.null_page == NullPage::kNoCache;
  if (m.tail_value == TailValue::kNullSlot && !zero_ok)
    return Fail(at("tail"), "padding tokens write the null block, but the null page is not a sink",
                "\"null_page\": \"sink\" beside a \"null_slot\" tail, or another tail value");
  if (m.pad_value == 0 && !zero_ok)
    return Fail(at("pad_value"), "unmapped tokens write slot 0, but the null page is not a sink",
                "\"null_page\": \"sink\" beside \"pad_value\": 0, or pad_value -1");
  if (m.null_page == NullPage::kNoCache)
    for (size_t o = 0; o < m.outputs.size(); ++o)
      if (m.outputs[o].writer.writes)
        return Fail(m.outputs[o].own_writer ? JsonChild(JsonChild(at("outputs"), o), "writer")
                                            : at("writer"),
                    "a writer writes through a group that has no cache (\"null_page\": \"no_cache\")",
                    "\"writer\": \"none\"");
  if (m.derived() && !m.gate.present() && ptr.empty())  // a variant may drop the gate's test
    return Fail(at("entry"), "a derived entry without a \"gate\": nothing names the group whose slot it reads",
                "\"gate\": {\"group\": P} naming the group parameter of the source group");
  if (m.owner == OwnerRule::kLastRequest && m.tail_from == TailFrom::kRealTokens)
    return Fail(at("owner"), "tokens past qsl[R] belong to the last request, but the tail starts at qsl[R]",
                "\"tail\": {\"from\": \"num_actual_tokens\"} beside \"owner\": \"last_request\"");
  // Every group parameter is read by a link: a scenario naming a group for
  // nothing is a mistake of the description.
  for (size_t p = 0; p < desc_->params.size(); ++p)
    if (desc_->params[p].type == ParamType::kGroup && m.gate.param != static_cast<int32_t>(p) &&
        std::none_of(m.outputs.begin(), m.outputs.end(),
                     [&](const OutputDesc& o) { return o.writer.gate.param == static_cast<int32_t>(p); }) &&
        ptr.empty())
      return Fail(desc_->params[p].pointer, "group parameter " + QuoteName(desc_->params[p].name) + " is read by nothing",
                  "a \"gate\" or \"writer\".\"gate\" that names it");
  return true;
}

}  // namespace

bool ParseFamilyDescription(const std::string& text, const std::string& file, FamilyDesc* desc, std::string* err) {
  json root;
  if (!ParseJsonText(text, file, "a family description object", &root, err)) return false;
  FamilyDesc loaded;
  loaded.file = file;
  try {
    if (!FamilyReader(file, err).Load(root, &loaded)) return false;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    *err = file + ": internal error while loading: " + e.what() + "; expected a family description object";
    return false;
  }
  *desc = std::move(loaded);
  return true;
}

bool LoadFamilyFile(const std::string& path, FamilyDesc* desc, std::string* err) {
  std::string text;
  return ReadTextFile(path, "a family description file", &text, err, kMaxFamilyFileBytes) &&
         ParseFamilyDescription(text, path, desc, err);
}

}  // namespace slotguard
