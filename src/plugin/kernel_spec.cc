#include "plugin/kernel_spec.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "registry/families.h"
#include "plugin/mapping_call.h"
#include "family/group_model.h"
#include "util/did_you_mean.h"
#include "util/json_reader.h"

namespace slotguard {

// --- formulas ---------------------------------------------------------------

namespace {

/// Every name a formula may use: the call's sizes, then every family's
/// parameters (which of them a call has depends on its family).
std::vector<std::string> FormulaNames() {
  std::vector<std::string> out = SpecScalarNames();
  for (const std::string& p : SpecParamNames())
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  return out;
}

}  // namespace

bool GridFormula::Parse(const std::string& text, std::string* err) { return expr_.Parse(text, FormulaNames(), err); }

bool GridFormula::Evaluate(const sg_mapping_call& call, int64_t num_groups, int64_t* value, std::string* err) const {
  if (expr_.empty()) {
    *err = "empty formula";
    return false;
  }
  const std::vector<std::string>& names = expr_.names();
  std::vector<int64_t> values(names.size(), 0);
  for (int32_t var : expr_.VariableIndices())
    if (!CallVariable(names[var], call, num_groups, &values[var])) {
      *err = "'" + names[var] + "' is not a parameter of family " + (call.family ? call.family : "");
      return false;
    }
  return expr_.Evaluate(values.data(), value, err);
}

// --- names ------------------------------------------------------------------

const std::vector<std::string>& SpecBufferNames() {
  static const std::vector<std::string> names = {
      "query_start_loc", "positions",     "seq_lens",          "seq_lens_i32",       "idx_mapping",
      "slot_mapping_in", "block_table",   "slot_mapping",      "tail_slot_mapping",  "common_slot_mapping",
      "gate_slot_mapping",
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
                                                 "common_slot_mapping", "gate_slot_mapping", "block_table_width",
                                                 "block_table_row_stride",
                                                 "block_table_rows"};
  const std::vector<std::string>& params = SpecParamNames();
  return std::find(names.begin(), names.end(), name) != names.end() ||
         std::find(params.begin(), params.end(), name) != params.end();
}

const std::vector<std::string>& SpecParamNames() {
  // Every registered family's integer and bool parameters (families
  // register before any spec is read).
  static std::vector<std::string> names;
  static size_t families = 0;
  if (families != AllFamilies().size()) {
    names.clear();
    for (const FamilyInfo& f : AllFamilies())
      for (const ParamDesc& p : FamilyModel(f.family).params())
        if (p.type != ParamType::kGroup && std::find(names.begin(), names.end(), p.name) == names.end())
          names.push_back(p.name);
    families = AllFamilies().size();
  }
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
  else if (call.param_names) {
    // ABI 3: the parameters by name.
    for (int32_t p = 0; p < call.num_params; ++p)
      if (name == call.param_names[p]) {
        *value = call.param_values[p];
        return true;
      }
    return false;
  } else {
    // A call that carries only ABI 2's per-family members.
    for (const Abi2Field& f : Abi2Fields())
      if (family == GetFamily(f.family).name && name == f.param) {
        *value = f.get(call);
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
  if (name == "common_slot_mapping" || name == "gate_slot_mapping")
    return call.gate_slot_mapping ? call.gate_slot_mapping : call.qsa_compressed.common_slot_mapping;
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
    for (const ParamDesc& p : FamilyModel(family).params())
      if (p.type != ParamType::kGroup) names.push_back(p.name);
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
