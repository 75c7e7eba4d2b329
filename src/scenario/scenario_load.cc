// Scenario loader: JSON text -> Scenario, with every check of docs/scenario-format.md.
// Each failure is reported once, by Loader::Fail, as
// "FILE:/json/pointer: problem; expected X, got Y".
#include <algorithm>
#include <limits>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "registry/invariants.h"
#include "family/group_model.h"
#include "scenario/scenario_json.h"
#include "scenario/table_extent.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"
#include "util/json_reader.h"

namespace slotguard {
namespace {

using nlohmann::json;

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

std::string Plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// The JSON-to-Scenario translation. Methods return false after Fail().
class Loader : public JsonReader {
 public:
  /// `parse_bytes`: what the text and its document take while the
  /// scenario is built from them (ParseBudget::estimate).
  Loader(const std::string& file, const LoadLimits& limits, int64_t parse_bytes, std::string* err)
      : JsonReader(file, err), limits_(limits) {
    estimate_.AddFixed(parse_bytes);
  }

  bool Load(const json& root, Scenario* s);
  /// found_by alone (PeekFoundBy).
  bool ReadFoundBy(const json& v, FoundBy* f) { return LoadFoundBy(v, f); }

 private:
  template <class T>
  bool IntArray(const json& v, const std::string& ptr, int64_t lo, int64_t hi,
                const std::string& what, size_t max_len, const std::string& len_flag,
                std::vector<T>* out);
  bool Length(const json& v, const std::string& ptr, size_t expected, const std::string& why) {
    if (v.size() != expected)
      return Fail(ptr, "length disagrees with " + why, Plural(expected, "entry", "entries"),
                  std::to_string(v.size()));
    return true;
  }

  bool LoadBatch(const json& v, Batch* b);
  /// batch.inputs: each a family's input, of its length and range.
  bool CheckInputs(const Scenario& s, Batch* b);
  /// Adds count * per_element bytes to the estimate; false after Fail()
  /// once the estimate is past --max-memory-mib.
  bool Budget(int64_t count, int64_t per_element, const std::string& ptr, const std::string& what);
  /// The family's parameters (its description's), in order.
  bool LoadParams(const json& v, const std::string& ptr, Group* g);
  bool LoadIntParam(const json& f, const std::string& ptr, size_t p, Group* g);
  bool CheckConstraints(const std::string& ptr, const Group& g);
  bool CheckGroupParam(const Scenario& s, size_t index, size_t p);
  /// A derived group's source is present and shares its table, and each
  /// parameter that `equals` a linked group's holds that group's value.
  bool CheckLinkedValues(const Scenario& s, size_t index);
  /// Every output name (OutputNames) belongs to one group only.
  bool CheckOutputNames(const Scenario& s);
  bool LoadGroup(const json& v, const std::string& ptr, const Scenario& s, Group* g);
  bool LoadTable(const json& v, const std::string& ptr, const Scenario& s, const Group& g,
                 BlockTable* table);
  bool LoadExpect(const json& v, const Scenario& s, Expect* e);
  bool LoadFoundBy(const json& v, FoundBy* f);
  /// The engine's CUDA graphs: where it zeroes block 0 (graph.zero_null).
  bool LoadGraph(const json& v, GraphOptions* g);

  /// A format-2 key in a version-1 file.
  bool NeedsVersion2(const std::string& ptr) const {
    return version_ >= 2 ||
           Fail(ptr, "a format-2 key in a version-1 file", "\"slotguard\": 2 at the top of the file");
  }

  LoadLimits limits_;
  MemoryCosts costs_ = CostsOf(limits_.footprint);
  MemoryEstimate estimate_;
  int64_t outputs_ = 0;  // every group's outputs, counted before the batch is loaded
  int64_t provided_outputs_ = 0;  // of those, the outputs a --kernel-cmd provider answers
  int64_t version_ = 1;
  std::unordered_map<std::string, size_t> group_index_;   // group name -> index in /groups
  std::unordered_map<std::string, size_t> output_group_;  // output name -> index of its group
  std::vector<std::string> elsewhere_;  // every family's own keys, for "does not apply to"
};

template <class T>
bool Loader::IntArray(const json& v, const std::string& ptr, int64_t lo, int64_t hi,
                      const std::string& what, size_t max_len, const std::string& len_flag,
                      std::vector<T>* out) {
  if (!Array(v, ptr, "an array of integers")) return false;
  if (v.size() > max_len)
    return Fail(ptr, "too many entries", "at most " + std::to_string(max_len) + " (raise with " +
                                             len_flag + ")",
                std::to_string(v.size()));
  out->clear();
  out->reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    int64_t x;
    if (!Int(v[i], JsonChild(ptr, i), lo, hi, what, &x)) return false;
    out->push_back(static_cast<T>(x));
  }
  return true;
}

bool Loader::Budget(int64_t count, int64_t per_element, const std::string& ptr, const std::string& what) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  estimate_.Add(count > 0 && per_element > max / count ? max : count * per_element, ptr, what);
  if (!estimate_.Over(limits_.max_memory_bytes())) return true;
  const bool most = estimate_.largest_bytes() >= estimate_.bytes() - estimate_.bytes() / 10;  // 90%: name it alone
  return Fail(estimate_.largest_pointer(),
              "checking this scenario would take at least " + MiBText(estimate_.bytes()) + ", " +
                  (most ? "most" : MiBText(estimate_.largest_bytes())) + " of it for " + estimate_.largest_what(),
              "at most " + std::to_string(limits_.max_memory_mib) + " MiB (raise with --max-memory-mib)");
}

bool Loader::Load(const json& root, Scenario* s) {
  if (!Object(root, "", "a scenario object")) return false;
  if (!CheckKeys(root, "",
                 {"slotguard", "name", "description", "num_blocks", "table_layout", "batch", "groups",
                  "expect", "found_by", "graph"}))
    return false;
  const json* v;
  int64_t x;
  if (!Require(root, "", "slotguard", "the format version 1 or 2", &v)) return false;
  if (!v->is_number_integer() || v->get<int64_t>() < 1 || v->get<int64_t>() > 2)
    return Fail("/slotguard", "unsupported format version", "1 or 2", DescribeJson(*v));
  version_ = v->get<int64_t>();
  if (!Require(root, "", "name", "a non-empty string", &v) ||
      !String(*v, "/name", "a non-empty string", &s->name))
    return false;
  if (s->name.empty()) return Fail("/name", "empty name", "a non-empty string");
  if ((v = Find(root, "description")) && !String(*v, "/description", "a string", &s->description))
    return false;
  if (!Require(root, "", "num_blocks", "an integer >= 1", &v) ||
      !Int(*v, "/num_blocks", 1, kInt32Max, "num_blocks", &x))
    return false;
  s->num_blocks = static_cast<int32_t>(x);
  if ((v = Find(root, "table_layout"))) {
    std::string text;
    if (!NeedsVersion2("/table_layout") || !String(*v, "/table_layout", "a table layout name", &text) ||
        !OneOf(text, TableLayoutNames(), "/table_layout", "table layout"))
      return false;
    s->table_layout = static_cast<TableLayoutKind>(
        std::find(TableLayoutNames().begin(), TableLayoutNames().end(), text) - TableLayoutNames().begin());
  }
  s->graph = GraphOptions();
  if ((v = Find(root, "graph")) && !LoadGraph(*v, &s->graph)) return false;
  // The outputs every token will have (the estimate's largest term), from
  // the groups' kernel names; the groups are checked below.
  outputs_ = 0;
  provided_outputs_ = 0;
  if ((v = Find(root, "groups")) && v->is_array())
    for (const json& g : *v) {
      Family family;
      const json* kernel = g.is_object() ? Find(g, "kernel") : nullptr;
      std::string ignored;
      const bool known = kernel && kernel->is_string() && FindFamily(kernel->get<std::string>(), &family, &ignored);
      outputs_ += known ? OutputCount(family) : 1;
      if (known && limits_.footprint.Provides(family)) provided_outputs_ += OutputCount(family);  // a provider's
    }
  if (!Require(root, "", "batch", "a batch object", &v) || !LoadBatch(*v, &s->batch)) return false;

  if (!Require(root, "", "groups", "a non-empty array of groups", &v) ||
      !Array(*v, "/groups", "a non-empty array of groups"))
    return false;
  if (v->empty()) return Fail("/groups", "no groups", "at least one group", "an empty array");
  const json& groups = *v;
  s->groups.resize(groups.size());
  for (const FamilyInfo& info : AllFamilies())
    for (const std::string& key : FamilyKeys(info.family))
      if (std::find(elsewhere_.begin(), elsewhere_.end(), key) == elsewhere_.end()) elsewhere_.push_back(key);
  group_index_.clear();
  group_index_.reserve(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string ptr = JsonChild("/groups", i);
    if (!LoadGroup(groups[i], ptr, *s, &s->groups[i])) return false;
    const auto [it, fresh] = group_index_.emplace(s->groups[i].name, i);
    if (!fresh)
      return Fail(JsonChild(ptr, "name"), "duplicate group name " + QuoteName(s->groups[i].name),
                  "a name not used by /groups/" + std::to_string(it->second));
  }
  if (!CheckOutputNames(*s) || !CheckInputs(*s, &s->batch)) return false;
  // A group parameter names a group of its target family, which depends on
  // nothing (so the run order has no cycle).
  for (size_t i = 0; i < s->groups.size(); ++i) {
    const std::vector<ParamDesc>& params = FamilyModel(s->groups[i].family).params();
    for (size_t p = 0; p < params.size(); ++p)
      if (params[p].type == ParamType::kGroup && !CheckGroupParam(*s, i, p)) return false;
    if (!CheckLinkedValues(*s, i)) return false;
  }
  s->expect = Expect();
  if ((v = Find(root, "expect")) && !LoadExpect(*v, *s, &s->expect)) return false;
  s->found_by = FoundBy();
  if ((v = Find(root, "found_by")) && !LoadFoundBy(*v, &s->found_by)) return false;
  return true;
}

bool Loader::LoadGraph(const json& v, GraphOptions* g) {
  const std::string ptr = "/graph";
  if (!NeedsVersion2(ptr) || !Object(v, ptr, "a graph object") || !CheckKeys(v, ptr, {"zero_null"})) return false;
  if (const json* zero = Find(v, "zero_null")) {
    std::string text;
    if (!String(*zero, ptr + "/zero_null", "\"never\", \"before_capture\" or \"after_capture\"", &text) ||
        !OneOf(text, ZeroNullNames(), ptr + "/zero_null", "zero_null value"))
      return false;
    g->zero_null = static_cast<ZeroNull>(std::find(ZeroNullNames().begin(), ZeroNullNames().end(), text) -
                                         ZeroNullNames().begin());
  }
  return true;
}

bool Loader::LoadFoundBy(const json& v, FoundBy* f) {
  const std::string ptr = "/found_by";
  if (!Object(v, ptr, "a found_by object")) return false;
  if (!CheckKeys(v, ptr,
                 {"backend", "kernel_lib", "kernel_cubin", "kernel_spec", "kernel_cmd", "family_files", "writers",
                  "head_bytes"}))
    return false;
  f->present = true;
  const json* x;
  if ((x = Find(v, "backend"))) {
    if (!String(*x, ptr + "/backend", "\"host\" or \"gpu\"", &f->backend) ||
        !OneOf(f->backend, {"host", "gpu"}, ptr + "/backend", "backend"))
      return false;
  }
  const std::pair<const char*, std::string*> paths[] = {{"kernel_lib", &f->kernel_lib},
                                                        {"kernel_cubin", &f->kernel_cubin},
                                                        {"kernel_spec", &f->kernel_spec},
                                                        {"kernel_cmd", &f->kernel_cmd}};
  for (const auto& [key, out] : paths)
    if ((x = Find(v, key))) {
      if (!String(*x, JsonChild(ptr, key), "a non-empty string", out)) return false;
      if (out->empty()) return Fail(JsonChild(ptr, key), "empty " + std::string(key), "a non-empty string");
    }
  if (!f->kernel_cubin.empty() != !f->kernel_spec.empty())
    return Fail(ptr + (f->kernel_cubin.empty() ? "/kernel_spec" : "/kernel_cubin"),
                "kernel_cubin and kernel_spec go together", "both or neither");
  if ((!f->kernel_lib.empty()) + (!f->kernel_cubin.empty()) + (!f->kernel_cmd.empty()) > 1)
    return Fail(ptr, "more than one implementation", "one of kernel_lib, kernel_cubin (with kernel_spec), kernel_cmd");
  if ((x = Find(v, "family_files"))) {
    if (!Array(*x, ptr + "/family_files", "an array of paths")) return false;
    for (size_t i = 0; i < x->size(); ++i) {
      std::string file;
      if (!String((*x)[i], JsonChild(ptr + "/family_files", i), "a path", &file)) return false;
      if (file.empty()) return Fail(JsonChild(ptr + "/family_files", i), "empty path", "a path");
      f->family_files.push_back(file);
    }
  }
  if ((x = Find(v, "writers"))) {
    if (!x->is_boolean()) return Fail(ptr + "/writers", "not a boolean", "true or false", DescribeJson(*x));
    f->writers = x->get<bool>();
  }
  if ((x = Find(v, "head_bytes"))) {
    int64_t n;
    if (!Int(*x, ptr + "/head_bytes", 8, 4096, "head_bytes", &n)) return false;
    f->head_bytes = static_cast<int32_t>(n);
  }
  return true;
}

bool Loader::LoadBatch(const json& v, Batch* b) {
  const std::string ptr = "/batch";
  if (!Object(v, ptr, "a batch object")) return false;
  if (!CheckKeys(v, ptr,
                 {"query_start_loc", "seq_lens", "positions", "num_actual_tokens", "num_tokens",
                  "idx_mapping", "slot_mapping_in", "table_rows", "inputs", "dummy_run"}))
    return false;
  if (const json* dummy_run = Find(v, "dummy_run")) {
    if (!NeedsVersion2(ptr + "/dummy_run")) return false;
    if (!dummy_run->is_boolean())
      return Fail(ptr + "/dummy_run", "not a boolean", "true or false", DescribeJson(*dummy_run));
    b->dummy_run = dummy_run->get<bool>();
  }
  if (const json* rows = Find(v, "table_rows")) {
    std::string text;
    if (!NeedsVersion2(ptr + "/table_rows") || !String(*rows, ptr + "/table_rows", "\"request\" or \"idx_mapping\"", &text) ||
        !OneOf(text, TableRowsNames(), ptr + "/table_rows", "table_rows value"))
      return false;
    b->table_rows = static_cast<TableRows>(
        std::find(TableRowsNames().begin(), TableRowsNames().end(), text) - TableRowsNames().begin());
  }
  const json* qsl;
  if (!Require(v, ptr, "query_start_loc", "an array of num_reqs + 1 integers", &qsl) ||
      !IntArray(*qsl, ptr + "/query_start_loc", 0, kInt32Max, "query_start_loc",
                static_cast<size_t>(limits_.max_requests) + 1, "--max-requests",
                &b->query_start_loc))
    return false;
  if (b->query_start_loc.empty())
    return Fail(ptr + "/query_start_loc", "empty query_start_loc",
                "num_reqs + 1 entries starting at 0", "an empty array");
  if (b->query_start_loc[0] != 0)
    return Fail(ptr + "/query_start_loc/0", "query_start_loc must start at 0", "0",
                std::to_string(b->query_start_loc[0]));
  for (size_t i = 1; i < b->query_start_loc.size(); ++i)
    if (b->query_start_loc[i] < b->query_start_loc[i - 1])
      return Fail(JsonChild(ptr + "/query_start_loc", i), "query_start_loc decreases",
                  ">= " + std::to_string(b->query_start_loc[i - 1]) + " (the previous entry)",
                  std::to_string(b->query_start_loc[i]));
  const int32_t R = b->num_reqs();
  const int64_t real = b->num_real_tokens();
  if (real > limits_.max_tokens)
    return Fail(JsonChild(ptr + "/query_start_loc", static_cast<size_t>(R)), "too many tokens",
                "at most " + std::to_string(limits_.max_tokens) + " (raise with --max-tokens)",
                std::to_string(real));

  const json* seq_lens = Find(v, "seq_lens");
  const json* positions = Find(v, "positions");
  const json* n_act = Find(v, "num_actual_tokens");
  const json* n = Find(v, "num_tokens");
  int64_t x;
  if (seq_lens) {
    if (!IntArray(*seq_lens, ptr + "/seq_lens", 0, kMaxPosition + 1, "seq_len",
                  static_cast<size_t>(limits_.max_requests), "--max-requests", &b->seq_lens))
      return false;
    if (!Length(*seq_lens, ptr + "/seq_lens", R, "the number of requests")) return false;
  }
  b->num_actual_tokens = real;
  if (n_act) {
    if (!Int(*n_act, ptr + "/num_actual_tokens", 0, limits_.max_tokens, "num_actual_tokens", &x))
      return false;
    b->num_actual_tokens = x;
  }
  int64_t num_tokens = -1;
  if (n) {
    if (!Int(*n, ptr + "/num_tokens", 0, limits_.max_tokens, "num_tokens", &x)) return false;
    num_tokens = x;
  }
  if (positions) {
    if (!IntArray(*positions, ptr + "/positions", 0, kMaxPosition, "position",
                  static_cast<size_t>(limits_.max_tokens), "--max-tokens", &b->positions))
      return false;
    if (num_tokens >= 0 && static_cast<int64_t>(b->positions.size()) != num_tokens)
      return Length(*positions, ptr + "/positions", num_tokens, "num_tokens");
    num_tokens = b->positions.size();
  } else if (num_tokens < 0) {
    num_tokens = std::max(real, b->num_actual_tokens);
  }
  b->num_tokens = num_tokens;
  const std::string n_ptr = positions ? ptr + "/positions" : ptr + "/num_tokens";
  if (num_tokens < real)
    return Fail(n_ptr, "fewer tokens than the requests hold",
                "num_tokens >= qsl[R] (" + std::to_string(real) + ")", std::to_string(num_tokens));
  if (b->num_actual_tokens > num_tokens)
    return Fail(ptr + "/num_actual_tokens", "num_actual_tokens exceeds num_tokens",
                "<= " + std::to_string(num_tokens), std::to_string(b->num_actual_tokens));

  // The budget, before anything of the batch's size is allocated.
  const std::string size_ptr = positions || n                  ? n_ptr
                               : b->num_actual_tokens > real ? ptr + "/num_actual_tokens"
                                                             : JsonChild(ptr + "/query_start_loc", static_cast<size_t>(R));
  const int64_t per_token = costs_.per_token + costs_.per_output_token * outputs_ +
                            (provided_outputs_ ? costs_.per_provided_token : 0) +
                            costs_.per_provided_output_token * provided_outputs_;
  estimate_.AddFixed(costs_.fixed);
  if (!Budget(num_tokens, per_token, size_ptr,
              "num_tokens " + std::to_string(num_tokens) + " (" + std::to_string(per_token) + " bytes per token, " +
                  Plural(outputs_, "output", "outputs") + ")") ||
      !Budget(R, costs_.per_request, ptr + "/query_start_loc", Plural(R, "request", "requests")))
    return false;

  // Derive whichever of positions and seq_lens is missing.
  if (!positions) {
    b->positions.assign(num_tokens, 0);
    if (!seq_lens) {
      b->seq_lens.resize(R);  // every request a prefill from position 0
      for (int32_t r = 0; r < R; ++r)
        b->seq_lens[r] = b->query_start_loc[r + 1] - b->query_start_loc[r];
    }
    for (int32_t r = 0; r < R; ++r) {
      const int64_t q = b->query_start_loc[r + 1] - b->query_start_loc[r];
      if (b->seq_lens[r] < q)
        return Fail(JsonChild(ptr + "/seq_lens", r),
                    "seq_len shorter than the request's query length, so positions would be negative",
                    "seq_len >= " + std::to_string(q) + " or explicit positions",
                    std::to_string(b->seq_lens[r]));
      for (int64_t i = 0; i < q; ++i)
        b->positions[b->query_start_loc[r] + i] = b->seq_lens[r] - q + i;
    }
  } else if (!seq_lens) {
    b->seq_lens.assign(R, 0);
    for (int32_t r = 0; r < R; ++r)
      if (b->query_start_loc[r + 1] > b->query_start_loc[r])
        b->seq_lens[r] = b->positions[b->query_start_loc[r + 1] - 1] + 1;
  }

  if (const json* idx = Find(v, "idx_mapping")) {
    if (!IntArray(*idx, ptr + "/idx_mapping", -1, kInt32Max, "idx_mapping entry",
                  static_cast<size_t>(limits_.max_requests), "--max-requests", &b->idx_mapping))
      return false;
    if (!Length(*idx, ptr + "/idx_mapping", R, "the number of requests")) return false;
    if (b->table_rows == TableRows::kIdxMapping && !b->dummy_run) {
      // Each row of a persistent table is one request's: two live requests
      // never share one (a dummy run has none live: its rows are only read).
      std::vector<std::pair<int32_t, int32_t>> reads;  // (row, request), live requests only
      for (int32_t r = 0; r < R; ++r)
        if (b->idx_mapping[r] >= 0) reads.emplace_back(b->idx_mapping[r], r);
      std::sort(reads.begin(), reads.end());
      for (size_t i = 1; i < reads.size(); ++i)
        if (reads[i].first == reads[i - 1].first)
          return Fail(JsonChild(ptr + "/idx_mapping", static_cast<size_t>(reads[i].second)),
                      "two requests read one row of the persistent table",
                      "a row no other request reads (request " + std::to_string(reads[i - 1].second) + " reads row " +
                          std::to_string(reads[i].first) + ")",
                      std::to_string(reads[i].first));
    }
  } else {
    b->idx_mapping.resize(R);
    for (int32_t r = 0; r < R; ++r) b->idx_mapping[r] = r;
  }
  if (const json* in = Find(v, "slot_mapping_in")) {
    if (!IntArray(*in, ptr + "/slot_mapping_in", kInt64Min, kInt64Max, "slot",
                  static_cast<size_t>(limits_.max_tokens), "--max-tokens", &b->slot_mapping_in))
      return false;
    if (!Length(*in, ptr + "/slot_mapping_in", num_tokens, "num_tokens")) return false;
  } else {
    b->slot_mapping_in.assign(num_tokens, kPadSlot);
  }
  b->inputs.clear();
  if (const json* in = Find(v, "inputs")) {
    // Each array's length and values are checked once the groups say its family's input (CheckInputs).
    const std::string in_ptr = ptr + "/inputs";
    if (!NeedsVersion2(in_ptr) || !Object(*in, in_ptr, "an object of input name: array of integers")) return false;
    for (auto it = in->begin(); it != in->end(); ++it) {
      const std::string at = JsonChild(in_ptr, it.key());
      BatchInput& input = b->inputs[it.key()];
      if (!IntArray(it.value(), at, kInt64Min, kInt64Max, "input value", static_cast<size_t>(limits_.max_tokens),
                    "--max-tokens", &input.values) ||
          !Budget(static_cast<int64_t>(input.values.size()), 8, at, "the input " + QuoteName(it.key())))
        return false;
    }
  }
  return true;
}

bool Loader::CheckInputs(const Scenario& s, Batch* b) {
  const std::string ptr = "/batch/inputs";
  std::vector<std::string> declared;  // every input a group's family declares
  for (const Group& g : s.groups)
    for (const InputDesc& in : FamilyModel(g.family).inputs())
      if (std::find(declared.begin(), declared.end(), in.name) == declared.end()) declared.push_back(in.name);
  for (auto& [name, input] : b->inputs) {
    const std::string at = JsonChild(ptr, name);
    if (std::find(declared.begin(), declared.end(), name) == declared.end())
      return Fail(at, "no group's family has the input " + QuoteName(name) + DidYouMean(name, declared),
                  declared.empty() ? "no batch.inputs (no group's family declares an input)"
                                   : "one of " + JoinNames(declared));
    bool first = true;
    for (size_t i = 0; i < s.groups.size(); ++i) {
      const Group& g = s.groups[i];
      const FamilyModel model(g.family);
      for (const InputDesc& in : model.inputs()) {
        if (in.name != name) continue;
        if (!first && in.per_token() != input.per_token)
          return Fail(at, "families disagree on the input " + QuoteName(name) + ": per request and per token",
                      "one input name per kind of array (group " + QuoteName(g.name) + "'s family reads it per " +
                          (in.per_token() ? "token" : "request") + ")");
        first = false;
        input.per_token = in.per_token();
        const size_t n = static_cast<size_t>(in.per_token() ? b->num_tokens : b->num_reqs());
        if (input.values.size() != n)
          return Fail(at, "length disagrees with " + std::string(in.per_token() ? "num_tokens" : "the number of requests"),
                      Plural(n, "entry", "entries") + " (input " + QuoteName(name) + " of " + model.name() +
                          " is per " + (in.per_token() ? "token" : "request") + ")",
                      std::to_string(input.values.size()));
        int64_t max = 0;
        std::string why;
        std::vector<int64_t> vars = model.ParamVars(g.params);
        if (!in.max.Evaluate(vars.data(), &max, &why))
          return Fail(at, "input " + QuoteName(name) + "'s max '" + in.max.text() + "' has no value for group " +
                              QuoteName(g.name) + " (" + why + ")",
                      "parameters for which the max has a value");
        for (size_t e = 0; e < n; ++e)
          if (input.values[e] < in.min || input.values[e] > max)
            return Fail(JsonChild(at, e), "input value out of range",
                        std::to_string(in.min) + " <= value <= " + std::to_string(max) + " (" + model.name() +
                            "'s input " + QuoteName(name) + ": " + in.meaning + ")",
                        std::to_string(input.values[e]));
      }
    }
  }
  return true;
}

bool Loader::LoadGroup(const json& v, const std::string& ptr, const Scenario& s, Group* g) {
  if (!Object(v, ptr, "a group object")) return false;
  const json* f;
  std::string text;
  if (!Require(v, ptr, "kernel", "a kernel family name", &f) ||
      !String(*f, JsonChild(ptr, "kernel"), "a kernel family name", &text))
    return false;
  NameError problem;
  if (!FindFamily(text, &g->family, &problem)) return Fail(JsonChild(ptr, "kernel"), problem);
  const std::vector<std::string> common = {"name", "kernel", "variant", "block_table"};
  const std::vector<std::string> own = FamilyKeys(g->family);
  std::vector<std::string> allowed = common;
  allowed.insert(allowed.end(), own.begin(), own.end());
  if (!CheckKeys(v, ptr, allowed, elsewhere_, "kernel " + text)) return false;

  if (!Require(v, ptr, "name", "a non-empty group name", &f) ||
      !String(*f, JsonChild(ptr, "name"), "a non-empty group name", &g->name))
    return false;
  if (g->name.empty()) return Fail(JsonChild(ptr, "name"), "empty group name", "a non-empty string");
  g->variant = FixedVariant(g->family);
  if ((f = Find(v, "variant"))) {
    if (!String(*f, JsonChild(ptr, "variant"), "a variant name", &text)) return false;
    if (!FindVariant(g->family, text, &g->variant, &problem)) return Fail(JsonChild(ptr, "variant"), problem);
  }

  if (!LoadParams(v, ptr, g)) return false;
  if (!Require(v, ptr, "block_table", "an array of num_reqs rows", &f)) return false;
  return LoadTable(*f, JsonChild(ptr, "block_table"), s, *g, &g->table);
}

bool Loader::LoadParams(const json& v, const std::string& ptr, Group* g) {
  const std::vector<ParamDesc>& params = FamilyModel(g->family).params();
  std::vector<bool> given(params.size(), false);
  g->params.assign(params.size(), 0);
  g->links.assign(params.size(), std::string());
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamDesc& p = params[i];
    const std::string top = p.top_key(), at = ParamPointer(ptr, p);
    const json* f = Find(v, top);
    if (f && p.nested()) {
      const std::vector<std::string> keys = NestedKeys(g->family, top);
      const std::string object_at = JsonChild(ptr, top);
      if (p.leaf_key() == keys.front() &&  // check the object once, at its first row
          (!Object(*f, object_at, "an object {" + JoinNames(keys) + "}") || !CheckKeys(*f, object_at, keys)))
        return false;
      f = Find(*f, p.leaf_key());
    }
    given[i] = f != nullptr;
    // A max or default formula without a value here is this scenario's bad
    // input, never a stand-in value (its min) that checks something else.
    std::string why;
    if (p.type != ParamType::kGroup && !ParamFormulasHold(*g, i, false, &why))
      return Fail(at, EscapeText(why, 0), "parameters for which the family's formulas have values");
    switch (p.type) {
      case ParamType::kI32:
      case ParamType::kI64:
        if (f) {
          if (!LoadIntParam(*f, at, i, g)) return false;
        } else if (p.default_value.empty()) {
          return Fail(at, "missing required key", "an integer >= " + std::to_string(p.min));
        }
        break;
      case ParamType::kBool:
        if (f && !f->is_boolean()) return Fail(at, "wrong type", "true or false", DescribeJson(*f));
        if (f) g->params[i] = f->get<bool>() ? 1 : 0;
        else if (p.default_value.empty()) return Fail(at, "missing required key", "true or false");
        break;
      case ParamType::kGroup:
        if (f && !String(*f, at, "the name of a " + p.family + " group", &g->links[i])) return false;
        break;
    }
    // The defaults of the parameters read so far: a later max may read them.
    ApplyDefaults(g, given);
    if (p.type != ParamType::kGroup && !given[i] && !ParamFormulasHold(*g, i, true, &why))
      return Fail(at, EscapeText(why, 0), "parameters for which the family's formulas have values");
  }
  // Constraints after every parameter, so that each one's own range is reported first.
  return CheckConstraints(ptr, *g);
}

bool Loader::LoadIntParam(const json& f, const std::string& ptr, size_t index, Group* g) {
  const FamilyModel model(g->family);
  const ParamDesc& p = model.params()[index];
  const std::string leaf = p.leaf_key();
  int64_t x;
  if (!Int(f, ptr, p.min, ParamMax(*g, index), leaf, &x)) return false;
  g->params[index] = x;
  if (!p.divides.empty()) {
    const int32_t other = model.FindParam(p.divides);
    const int64_t whole = g->params[other];
    if (whole % x != 0)
      return Fail(ptr, leaf + " does not divide " + model.params()[other].leaf_key(), "a divisor of " + std::to_string(whole),
                  std::to_string(x));
  }
  return true;
}

bool Loader::CheckConstraints(const std::string& ptr, const Group& g) {
  const FamilyModel model(g.family);
  const std::vector<int64_t> vars = model.ParamVars(g.params);
  for (const ConstraintDesc& c : model.constraints()) {
    int64_t holds = 0;
    std::string why;
    const bool ok = c.holds.Evaluate(vars.data(), &holds, &why);
    if (ok && holds) continue;
    const ParamDesc& at = model.params()[c.at];
    std::string values;
    for (const std::string& name : c.holds.Variables()) {
      const int32_t p = model.FindParam(name);
      if (p >= 0) values += (values.empty() ? "" : ", ") + name + " = " + std::to_string(g.params[p]);
    }
    return Fail(ParamPointer(ptr, at), "violates " + c.holds.text() + (ok ? "" : " (" + why + ")"),
                EscapeText(c.expected, 0), values);  // the description's words, on one line
  }
  return true;
}

bool Loader::CheckGroupParam(const Scenario& s, size_t index, size_t p_index) {
  const ParamDesc& p = FamilyModel(s.groups[index].family).params()[p_index];
  const std::string& name = s.groups[index].links[p_index];
  if (name.empty()) return true;
  const std::string& family = p.family;
  const auto found = group_index_.find(name);
  const Group* target = found == group_index_.end() ? nullptr : &s.groups[found->second];
  const bool right_family = target && family == GetFamily(target->family).name;
  if (right_family && !ReadsAnotherGroup(target->family)) return true;
  std::vector<std::string> candidates;  // only for the message
  for (const Group& other : s.groups)
    if (family == GetFamily(other.family).name && !ReadsAnotherGroup(other.family)) candidates.push_back(other.name);
  const std::string ptr = ParamPointer(JsonChild("/groups", index), p);
  const std::string expected = candidates.empty()
                                   ? "a " + family + " group in this scenario (there is none)"
                                   : "the name of a " + family + " group: " + JoinNames(candidates);
  if (!target) return Fail(ptr, "no group named " + QuoteName(name) + DidYouMean(name, candidates), expected);
  if (!right_family)
    return Fail(ptr, "group " + QuoteName(name) + " is not a " + family + " group", expected,
                std::string("a ") + GetFamily(target->family).name + " group");
  return Fail(ptr, "group " + QuoteName(name) + " reads another group itself", expected + " (one that reads no other)");
}

bool Loader::CheckLinkedValues(const Scenario& s, size_t index) {
  const Group& g = s.groups[index];
  const FamilyModel model(g.family);
  const std::string ptr = JsonChild("/groups", index);
  const int32_t source = model.derived_from();
  if (source >= 0) {
    const ParamDesc& p = model.params()[source];
    const int linked = LinkedGroupIndex(s, g, source);
    if (linked < 0)
      return Fail(ParamPointer(ptr, p), "missing required key",
                  "the name of a " + p.family + " group: a derived group's slots come from its source group's");
    const BlockTable& mine = g.table;
    const BlockTable& theirs = s.groups[linked].table;
    for (int32_t row = 0; row < std::max(mine.rows, theirs.rows); ++row) {
      const int32_t width = row < mine.rows ? mine.row_width(row) : -1;
      const int32_t their_width = row < theirs.rows ? theirs.row_width(row) : -1;
      bool same = width == their_width;
      for (int32_t c = 0; same && c < width; ++c) same = mine.at(row, c) == theirs.at(row, c);
      if (!same)
        return Fail(JsonChild(JsonChild(ptr, "block_table"), row),
                    "row " + std::to_string(row) + " differs from group " + QuoteName(s.groups[linked].name) +
                        "'s",
                    "the source group's block table, row for row (a derived group reads its source's rows)");
    }
  }
  for (const ParamDesc& p : model.params()) {
    if (p.equals_link < 0) continue;
    const int linked = LinkedGroupIndex(s, g, p.equals_link);
    if (linked < 0) continue;
    const Group& other = s.groups[linked];
    const int32_t q = FamilyModel(other.family).FindParam(p.equals_param);
    const int64_t mine = g.params[static_cast<size_t>(model.FindParam(p.name))];
    if (q < 0)
      return Fail(ParamPointer(ptr, p), "group " + QuoteName(other.name) + " has no parameter " + QuoteName(p.equals_param),
                  "a " + p.equals_param + " parameter on the group " + model.params()[p.equals_link].name + " names");
    if (mine != other.params[static_cast<size_t>(q)])
      return Fail(ParamPointer(ptr, p), "is " + std::to_string(mine) + ", but group " + QuoteName(other.name) + "'s " +
                      p.equals_param + " is " + std::to_string(other.params[static_cast<size_t>(q)]),
                  std::to_string(other.params[static_cast<size_t>(q)]) + " (" + p.name + " equals " +
                      model.params()[p.equals_link].name + "." + p.equals_param + ")");
  }
  return true;
}

bool Loader::CheckOutputNames(const Scenario& s) {
  output_group_.clear();
  output_group_.reserve(s.groups.size());
  for (size_t i = 0; i < s.groups.size(); ++i)
    for (const std::string& output : OutputNames(s.groups[i])) {
      const auto [it, fresh] = output_group_.emplace(output, i);
      if (fresh || it->second == i) continue;
      const size_t j = it->second;
      const size_t later = std::max(i, j), earlier = std::min(i, j);
      return Fail(JsonChild(JsonChild("/groups", later), "name"),
                  "output name " + QuoteName(output) + " is both an output of group " +
                      QuoteName(s.groups[earlier].name) + " (/groups/" + std::to_string(earlier) + ", " +
                      GetFamily(s.groups[earlier].family).name + ") and of group " +
                      QuoteName(s.groups[later].name) + " (/groups/" + std::to_string(later) + ", " +
                      GetFamily(s.groups[later].family).name + ")",
                  "group names whose outputs (a group c of a family with a second output 'tail' has c and "
                  "c.tail) name one group each");
    }
  return true;
}

bool Loader::LoadTable(const json& v, const std::string& ptr, const Scenario& s, const Group& g,
                       BlockTable* table) {
  // A CSR family's rows are ragged, one per request whatever table_rows says.
  const bool ragged = FamilyModel(g.family).ragged_rows();
  const bool persistent = !ragged && s.batch.table_rows == TableRows::kIdxMapping;
  if (!Array(v, ptr, persistent ? "an array of rows (the persistent table)" : "an array of rows, one per request"))
    return false;
  if (!persistent && v.size() != static_cast<size_t>(s.batch.num_reqs()))
    return Fail(ptr, "row count disagrees with the number of requests",
                Plural(s.batch.num_reqs(), "row", "rows") + " (one per request)", std::to_string(v.size()));
  if (persistent) {
    int64_t rows_read = 0;  // max(idx_mapping) + 1
    for (int32_t idx : s.batch.idx_mapping) rows_read = std::max<int64_t>(rows_read, int64_t{idx} + 1);
    if (static_cast<int64_t>(v.size()) < rows_read)
      return Fail(ptr, "persistent table has fewer rows than idx_mapping names",
                  "at least " + Plural(rows_read, "row", "rows") + " (max(idx_mapping) + 1)",
                  std::to_string(v.size()));
    if (static_cast<int64_t>(v.size()) > limits_.max_requests)
      return Fail(ptr, "too many rows", "at most " + std::to_string(limits_.max_requests) + " (raise with --max-requests)",
                  std::to_string(v.size()));
  }
  const int32_t R = static_cast<int32_t>(v.size());  // rows
  // Valid ids: -1 (no block), 0 (the null block) and real kernel block ids.
  int64_t id_limit = int64_t{s.num_blocks};
  std::string limit_text = "num_blocks (" + std::to_string(id_limit) + ")";
  if (NullEntries(g) > 1) {
    id_limit *= NullEntries(g);
    limit_text = "num_blocks * " + NullEntriesText(g.family) + " (" + std::to_string(id_limit) + ")";
  }
  if (id_limit > kInt32Max) {
    id_limit = kInt32Max;  // kInt32Max itself is reserved as the poison id
    limit_text = "2147483647 (int32 max, reserved)";
  }
  table->rows = R;
  table->width = 0;
  table->entries.clear();
  table->lengths.clear();
  if (ragged) {
    // Each row as long as it is: the entries padded to the widest with -1.
    int64_t total = 0;
    for (size_t r = 0; r < v.size(); ++r) {
      if (!Array(v[r], JsonChild(ptr, r), "an array of block ids")) return false;
      table->width = static_cast<int32_t>(std::max<size_t>(table->width, std::min<size_t>(v[r].size(), kInt32Max)));
      total += static_cast<int64_t>(v[r].size());
    }
    if (int64_t{table->width} * R > limits_.max_table_entries)
      return Fail(ptr, "block table too large",
                  "at most " + std::to_string(limits_.max_table_entries) + " entries once padded to the widest row (raise with --max-table-entries)",
                  std::to_string(int64_t{table->width} * R));
    table->entries.assign(static_cast<size_t>(table->width) * R, -1);
    table->lengths.resize(R);
    (void)total;
  }
  for (size_t r = 0; r < v.size(); ++r) {
    const std::string row_ptr = JsonChild(ptr, r);
    const json& row = v[r];
    if (!Array(row, row_ptr, "an array of block ids")) return false;
    if (ragged) {
      table->lengths[r] = static_cast<int32_t>(row.size());
    } else if (r == 0) {
      if (static_cast<int64_t>(row.size()) * R > limits_.max_table_entries)
        return Fail(ptr, "block table too large",
                    "at most " + std::to_string(limits_.max_table_entries) +
                        " entries (raise with --max-table-entries)",
                    std::to_string(static_cast<int64_t>(row.size()) * R));
      table->width = static_cast<int32_t>(row.size());
      table->entries.reserve(static_cast<size_t>(table->width) * R);
    } else if (row.size() != static_cast<size_t>(table->width)) {
      return Fail(row_ptr, "row length disagrees with row 0",
                  Plural(table->width, "column", "columns"), std::to_string(row.size()));
    }
    for (size_t c = 0; c < row.size(); ++c) {
      const json& e = row[c];
      const std::string e_ptr = JsonChild(row_ptr, c);
      if (!e.is_number_integer())
        return Fail(e_ptr, "wrong type", "a block id as an integer", DescribeJson(e));
      const bool fits = !e.is_number_unsigned() || e.get<uint64_t>() <= uint64_t{1} << 62;
      const int64_t id = fits ? e.get<int64_t>() : kInt64Max;
      if (id < -1 || id >= id_limit)
        return Fail(e_ptr, "block id out of range", "-1 <= id < " + limit_text, e.dump());
      if (ragged) {
        table->entries[r * table->width + c] = static_cast<int32_t>(id);
      } else {
        table->entries.push_back(static_cast<int32_t>(id));
      }
    }
  }
  // Ring kernels read their columns unguarded: the table must have them.
  const int64_t min_width = MinWidth(g);
  if (ragged) {
    for (int32_t r = 0; r < R; ++r)
      if (table->lengths[r] < min_width)
        return Fail(JsonChild(ptr, r), "row too narrow", Plural(min_width, "column", "columns") + " (" +
                                                             MinWidthReason(g.family) + ")",
                    std::to_string(table->lengths[r]));
  } else if (R > 0 && table->width < min_width)
    return Fail(JsonChild(ptr, 0), "row too narrow",
                Plural(min_width, "column", "columns") + " (" + MinWidthReason(g.family) + ")",
                std::to_string(table->width));
  // An implementation of plugin ABI 1 gets the persistent table gathered
  // per request: R rows, which must fit too.
  const int64_t padded = PaddedRowStride(s.batch, g) * std::max({R, s.batch.num_reqs(), 1});
  if (padded > limits_.max_table_entries)
    return Fail(ptr, "block table too large once padded to the farthest column a position selects",
                "at most " + std::to_string(limits_.max_table_entries) +
                    " entries (raise with --max-table-entries)",
                std::to_string(padded));
  const int64_t entries = std::max<int64_t>(padded, static_cast<int64_t>(table->entries.size()));
  if (!Budget(entries, costs_.per_table_entry, ptr,
              "the block table of group " + QuoteName(g.name) + " (" + std::to_string(entries) + " entries laid out)"))
    return false;
  // A per-request kind's outputs hold num_reqs elements (a state index) or
  // num_reqs x ops (block operations, ops a formula over the width): their
  // own term, the batch's per-token one does not bound them.
  if (KindModelOf(g).per_request()) {
    const int64_t length = OutputLength(g, s.batch);
    if (length > 0 && !Budget(length, costs_.per_output_token * std::max(1, OutputCount(g)), ptr,
                              "the outputs of group " + QuoteName(g.name) + " (" + std::to_string(length) +
                                  " elements: requests x operations)"))
      return false;
  }
  // The writers' pool, when it is built (a bigger one is skipped).
  const RunFootprint& run = limits_.footprint;
  const int64_t slots = PoolSlots(s.num_blocks, g);
  const int64_t pool = run.head_bytes > 0 && slots > INT64_MAX / run.head_bytes ? INT64_MAX : slots * run.head_bytes;
  if (run.head_bytes > 0 && pool <= run.max_cache_bytes &&
      !Budget(pool, costs_.pool_copies, ptr.substr(0, ptr.rfind('/')),
              "the writers' pool of group " + QuoteName(g.name) + " (" + MiBText(pool) + ")"))
    return false;
  return true;
}

bool Loader::LoadExpect(const json& v, const Scenario& s, Expect* e) {
  const std::string ptr = "/expect";
  if (!Object(v, ptr, "an expect object")) return false;
  if (!CheckKeys(v, ptr, {"verdict", "findings", "absent", "slot_mapping"})) return false;
  e->present = true;
  const json* f;
  std::string text;
  if ((f = Find(v, "verdict"))) {
    if (!String(*f, ptr + "/verdict", "\"pass\" or \"finding\"", &text)) return false;
    if (text == "pass") {
      e->verdict = Verdict::kPass;
    } else if (text == "finding") {
      e->verdict = Verdict::kFinding;
    } else {
      return Fail(ptr + "/verdict", "unknown verdict " + QuoteName(text) +
                                        DidYouMean(text, {"pass", "finding"}),
                  "\"pass\" or \"finding\"");
    }
  }
  if ((f = Find(v, "findings"))) {
    if (!Array(*f, ptr + "/findings", "an array of invariant names")) return false;
    const std::vector<std::string> names = AllInvariantNames();
    for (size_t i = 0; i < f->size(); ++i) {
      const std::string item = JsonChild(ptr + "/findings", i);
      if (!String((*f)[i], item, "an invariant name", &text)) return false;
      if (!IsInvariantName(text))
        return Fail(item, "unknown invariant " + QuoteName(text) + DidYouMean(text, names),
                    "one of " + JoinNames(names));
      e->findings.push_back(text);
    }
    if (!e->findings.empty() && e->verdict != Verdict::kFinding)
      return Fail(ptr + "/findings", "findings listed but the verdict is 'pass'",
                  "\"verdict\": \"finding\" beside them");
  }
  if ((f = Find(v, "absent"))) {
    // Invariants that must not fire (a hazard the writers keep out of memory: null_bytes).
    if (!NeedsVersion2(ptr + "/absent") || !Array(*f, ptr + "/absent", "an array of invariant names")) return false;
    const std::vector<std::string> names = AllInvariantNames();
    for (size_t i = 0; i < f->size(); ++i) {
      const std::string item = JsonChild(ptr + "/absent", i);
      if (!String((*f)[i], item, "an invariant name", &text)) return false;
      if (!IsInvariantName(text))
        return Fail(item, "unknown invariant " + QuoteName(text) + DidYouMean(text, names),
                    "one of " + JoinNames(names));
      if (std::find(e->findings.begin(), e->findings.end(), text) != e->findings.end())
        return Fail(item, "invariant " + QuoteName(text) + " both expected and absent",
                    "an invariant in findings or in absent, not both");
      e->absent.push_back(text);
    }
  }
  if ((f = Find(v, "slot_mapping"))) {
    const std::string sm = ptr + "/slot_mapping";
    if (!Object(*f, sm, "an object from group name to slots")) return false;
    for (auto it = f->begin(); it != f->end(); ++it) {
      const std::string key_ptr = JsonChild(sm, it.key());
      if (output_group_.count(it.key()) == 0) {
        std::vector<std::string> outputs;  // only for the message, in group order
        for (const Group& g : s.groups)
          for (const std::string& name : OutputNames(g)) outputs.push_back(name);
        return Fail(key_ptr, "no output named " + QuoteName(it.key()) + DidYouMean(it.key(), outputs),
                    "one of " + JoinNames(outputs));
      }
      if (it->is_array() && !Budget(static_cast<int64_t>(it->size()), costs_.per_expect_slot, key_ptr,
                                    "golden output " + QuoteName(it.key()) + " (" + std::to_string(it->size()) +
                                        " slots)"))
        return false;
      std::vector<int64_t> slots;
      if (!IntArray(*it, key_ptr, kInt64Min, kInt64Max, "slot",
                    static_cast<size_t>(limits_.max_tokens), "--max-tokens", &slots))
        return false;
      // A slot per token, or per request (a state index, block operations).
      const Group& owner = s.groups[output_group_.at(it.key())];
      const int64_t length = OutputLength(owner, s.batch);
      if (!Length(*it, key_ptr, length,
                  KindModelOf(owner).length_text()))
        return false;
      e->slot_mapping[it.key()] = std::move(slots);
    }
  }
  return true;
}

}  // namespace

bool ParseScenario(const std::string& text, const std::string& file, const LoadLimits& limits,
                   Scenario* scenario, std::string* err) {
  json root;
  ParseBudget budget;
  budget.max_bytes = limits.max_memory_bytes();
  budget.flag = "--max-memory-mib";
  int64_t parse_bytes = 0;
  budget.estimate = &parse_bytes;
  if (!ParseJsonText(text, file, "a scenario object", &root, err, budget)) return false;
  Scenario loaded;
  try {
    if (!Loader(file, limits, parse_bytes, err).Load(root, &loaded)) return false;
  } catch (const std::bad_alloc&) {
    throw;  // the machine's problem (exit 3), not the file's
  } catch (const std::exception& e) {
    *err = file + ": internal error while loading: " + e.what() + "; expected a scenario object";
    return false;
  }
  *scenario = std::move(loaded);
  return true;
}

bool LoadScenarioFile(const std::string& path, const LoadLimits& limits, Scenario* scenario,
                      std::string* err) {
  std::string text;
  return ReadTextFile(path, "a scenario file", &text, err, limits.max_file_mib << 20, "--max-file-mib") &&
         ParseScenario(text, path, limits, scenario, err);
}

bool PeekFoundBy(const std::string& path, const LoadLimits& limits, FoundBy* found,
                 std::vector<std::string>* kernels) {
  std::string text, err;
  json root;
  // Under the same budget as the load (a file over it is refused there, by
  // name): never a whole document built before the budget is asked.
  ParseBudget budget;
  budget.max_bytes = limits.max_memory_bytes();
  budget.flag = "--max-memory-mib";
  if (!ReadTextFile(path, "a scenario file", &text, &err, limits.max_file_mib << 20, "--max-file-mib") ||
      !ParseJsonText(text, path, "a scenario object", &root, &err, budget) || !root.is_object())
    return false;
  kernels->clear();
  if (const auto groups = root.find("groups"); groups != root.end() && groups->is_array())
    for (const json& g : *groups)
      if (g.is_object())
        if (const auto kernel = g.find("kernel"); kernel != g.end() && kernel->is_string())
          kernels->push_back(kernel->get<std::string>());
  *found = FoundBy();
  const auto f = root.find("found_by");
  if (f == root.end()) return true;
  Loader loader(path, limits, 0, &err);
  return loader.ReadFoundBy(*f, found);
}

}  // namespace slotguard
