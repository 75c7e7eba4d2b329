#include "prove/scope_file.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <system_error>

#include "prove/builtin_scopes.h"
#include "scenario/load_limits.h"
#include "scenario/memory_estimate.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"
#include "util/json_reader.h"

namespace slotguard {

const std::vector<std::string>& NumActualNames() {
  static const std::vector<std::string> names = {"real_tokens", "num_tokens", "before_last", "inside"};
  return names;
}
const std::vector<std::string>& SlotMappingInNames() {
  static const std::vector<std::string> names = {"pad", "recognisable"};
  return names;
}
const std::vector<std::string>& NullEntryNames() {
  static const std::vector<std::string> names = {"zero", "minus_one", "hybrid"};
  return names;
}
const std::vector<std::string>& TableModeNames() {
  static const std::vector<std::string> names = {"per_request", "persistent", "persistent_permuted",
                                                 "persistent_exact", "persistent_rotated", "dummy_run"};
  return names;
}
const std::vector<std::string>& StaleRowNames() {
  static const std::vector<std::string> names = {"null", "minus_one", "fresh", "reused", "mixed"};
  return names;
}
const std::vector<std::string>& BlockIdsNames() {
  static const std::vector<std::string> names = {"small", "below_int32", "past_int32"};
  return names;
}
const std::vector<std::string>& ParamClassNames() {
  static const std::vector<std::string> names = {"min", "next", "example", "default", "max", "divisors", "tiles",
                                                 "beside", "non_power_of_two", "large"};
  return names;
}
const std::vector<std::string>& LinkModeNames() {
  static const std::vector<std::string> names = {"present", "absent"};
  return names;
}
const std::vector<std::string>& PastInt32Names() {
  static const std::vector<std::string> names = {"contexts", "clamp_tokens"};
  return names;
}
const std::vector<std::string>& InputModeNames() {
  static const std::vector<std::string> names = {"defaults", "sweep"};
  return names;
}

namespace {

using nlohmann::json;

/// No list of a scope is longer: a scope's size is a product of them.
constexpr size_t kMaxListLength = 4096;
constexpr int64_t kMaxRequests = 4096;
constexpr int64_t kMaxTokens = 65536;
constexpr int64_t kMaxWidth = 4096;
constexpr int64_t kMaxOffset = int64_t{1} << 20;
constexpr int64_t kMaxTile = int64_t{1} << 30;
constexpr int64_t kMaxAhead = 64;
constexpr int64_t kMaxPrefillBlocks = 64;
/// The largest context: positions stay below 2^62 (scenario.h) with the
/// most tokens a request may have.
constexpr int64_t kMaxContext = kMaxPosition + 1 - kMaxTokens;

class ScopeReader : public JsonReader {
 public:
  using JsonReader::JsonReader;

  bool Load(const json& root, Scope* s) {
    if (!Object(root, "", "a scope object")) return false;
    std::vector<std::string> top = {"slotguard_scope", "name", "meaning", "parts"};
    top.insert(top.end(), kPartKeys.begin(), kPartKeys.end());
    if (!CheckKeys(root, "", top)) return false;
    const json* v;
    int64_t version;
    if (!Require(root, "", "slotguard_scope", "the format version, 1", &v) ||
        !Int(*v, "/slotguard_scope", kScopeFormatVersion, kScopeFormatVersion, "format version", &version))
      return false;
    if (!Require(root, "", "name", "the scope's name, a string", &v) || !String(*v, "/name", "a string", &s->name))
      return false;
    if (s->name.empty()) return Fail("/name", "empty name", "a non-empty string");
    if (const json* m = Find(root, "meaning"); m && !String(*m, "/meaning", "a string", &s->meaning)) return false;
    // The top level's dimensions: the scope's own, or every part's defaults.
    const json* parts = Find(root, "parts");
    ScopePart base;
    if (!LoadPart(root, "", nullptr, parts == nullptr, &base)) return false;
    if (!parts) {
      s->parts = {base};
      return true;
    }
    if (!parts->is_array() || parts->empty())
      return Fail("/parts", parts->is_array() ? "empty list" : "not an array",
                  "a non-empty array of parts (objects of dimensions)", parts->is_array() ? "" : DescribeJson(*parts));
    if (parts->size() > kMaxParts)
      return Fail("/parts", "too many parts", "at most " + std::to_string(kMaxParts), std::to_string(parts->size()));
    for (size_t i = 0; i < parts->size(); ++i) {
      const std::string ptr = JsonChild("/parts", i);
      if (!Object((*parts)[i], ptr, "a part: an object of dimensions") || !CheckKeys((*parts)[i], ptr, kPartKeys))
        return false;
      ScopePart part;
      if (!LoadPart((*parts)[i], ptr, &base, true, &part)) return false;
      s->parts.push_back(std::move(part));
    }
    return true;
  }

 private:
  static constexpr size_t kMaxParts = 64;
  static inline const std::vector<std::string> kPartKeys = {
      "requests",   "tokens",          "padding",      "contexts", "boundary_offsets", "widths",
      "num_actual", "slot_mapping_in", "null_entries", "tables",   "stale_rows",       "block_ids",
      "layouts",    "params",          "tiles",        "links",    "ahead",            "fresh_prefills",
      "past_int32", "inputs"};

  /// The dimensions of `obj` (at `ptr`); a key it lacks takes `base`'s
  /// (a part of a scope with parts) or its default. Unless `complete`, the
  /// required ones may be missing (the defaults of parts).
  bool LoadPart(const json& obj, const std::string& ptr, const ScopePart* base, bool complete, ScopePart* p) {
    if (base) *p = *base;
    const bool need = complete && (!base || base->requests.empty());
    const bool need_tokens = complete && (!base || base->tokens.empty());
    return Ints(obj, ptr, "requests", need, 0, kMaxRequests, "request count", base, &p->requests) &&
           Ints(obj, ptr, "tokens", need_tokens, 0, kMaxTokens, "token count", base, &p->tokens) &&
           Ints(obj, ptr, "padding", false, 0, kMaxTokens, "padding token count", base, &p->padding, {0}) &&
           Ints(obj, ptr, "contexts", false, 0, kMaxContext, "context length", base, &p->contexts, {0}) &&
           Ints(obj, ptr, "boundary_offsets", false, -kMaxOffset, kMaxOffset, "offset", base, &p->boundary_offsets,
                {}, true) &&
           Ints(obj, ptr, "widths", false, 0, kMaxWidth, "table width", base, &p->widths, {1}) &&
           Names(obj, ptr, "num_actual", NumActualNames(), base, &p->num_actual, {NumActual::kRealTokens}) &&
           Names(obj, ptr, "slot_mapping_in", SlotMappingInNames(), base, &p->slot_mapping_in, {SlotMappingIn::kPad}) &&
           Names(obj, ptr, "null_entries", NullEntryNames(), base, &p->null_entries, {NullEntry::kZero}) &&
           Names(obj, ptr, "tables", TableModeNames(), base, &p->tables, {TableMode::kPerRequest}) &&
           Names(obj, ptr, "stale_rows", StaleRowNames(), base, &p->stale_rows, {StaleRow::kNull}) &&
           Names(obj, ptr, "block_ids", BlockIdsNames(), base, &p->block_ids, {BlockIds::kSmall}) &&
           Names(obj, ptr, "layouts", TableLayoutNames(), base, &p->layouts, {TableLayoutKind::kPadded}) &&
           Names(obj, ptr, "params", ParamClassNames(), base, &p->params, {ParamClass::kExample, ParamClass::kDefault}) &&
           Ints(obj, ptr, "tiles", false, 1, kMaxTile, "tile", base, &p->tiles, {}, true) &&
           Names(obj, ptr, "links", LinkModeNames(), base, &p->links, {LinkMode::kPresent}) &&
           Ints(obj, ptr, "ahead", false, 0, kMaxAhead, "ahead column count", base, &p->ahead, {}, true) &&
           Ints(obj, ptr, "fresh_prefills", false, 1, kMaxPrefillBlocks, "fresh prefill block count", base,
                &p->fresh_prefills, {}, true) &&
           Names(obj, ptr, "past_int32", PastInt32Names(), base, &p->past_int32, {}) &&
           Names(obj, ptr, "inputs", InputModeNames(), base, &p->inputs, {InputMode::kDefaults}) &&
           (!complete || CheckTiles(obj, ptr, *p)) && (!complete || CheckBudget(obj, ptr, *p));
  }

  /// The largest batch of a part is checked as a scenario is (its memory
  /// estimate, scenario/memory_estimate.h, against check's default
  /// --max-memory-mib), before anything is enumerated: a 60-byte scope must
  /// not build a batch of 2^28 tokens.
  bool CheckBudget(const json& obj, const std::string& ptr, const ScopePart& p) {
    auto largest = [](const auto& v) { return v.empty() ? int64_t{0} : static_cast<int64_t>(*std::max_element(v.begin(), v.end())); };
    const int64_t requests = largest(p.requests), per_request = largest(p.tokens), padding = largest(p.padding);
    const int64_t tokens = requests * per_request + padding, entries = std::max<int64_t>(1, requests) * largest(p.widths);
    const LoadLimits limits;
    const MemoryCosts costs = CostsOf(RunFootprint());
    MemoryEstimate estimate;
    estimate.AddFixed(costs.fixed);
    estimate.Add(tokens * (costs.per_token + costs.per_output_token), "tokens", "");
    estimate.Add(requests * costs.per_request, "requests", "");
    estimate.Add(entries * costs.per_table_entry, "widths", "");
    const std::string at = JsonChild(ptr, Find(obj, "tokens") || !Find(obj, "requests") ? "tokens" : "requests");
    const std::string batch = std::to_string(requests) + " requests of " + std::to_string(per_request) + " tokens" +
                              (padding ? " and " + std::to_string(padding) + " padding tokens" : "");
    if (tokens > limits.max_tokens)
      return Fail(at, "its largest batch has " + std::to_string(tokens) + " tokens (" + batch + ")",
                  "at most " + std::to_string(limits.max_tokens) + " tokens a batch (check's --max-tokens)");
    if (estimate.Over(limits.max_memory_bytes()))
      return Fail(at, "checking its largest batch (" + batch + ", tables " + std::to_string(entries) +
                          " entries) would take at least " + MiBText(estimate.bytes()),
                  "batches within " + MiBText(limits.max_memory_bytes()) + " (check's --max-memory-mib)");
    return true;
  }

  /// A list of integers in [lo, hi]: sorted, without repeats. An absent
  /// key keeps `base`'s value, else takes `fallback`; `may_be_empty`
  /// lists may be [].
  template <class T>
  bool Ints(const json& obj, const std::string& at, const std::string& key, bool required, int64_t lo, int64_t hi,
            const std::string& what, const ScopePart* base, std::vector<T>* out, std::vector<T> fallback = {},
            bool may_be_empty = false) {
    const std::string ptr = at + "/" + key;
    const json* v = Find(obj, key);
    if (!v) {
      if (required) return Fail(ptr, "missing required key", "a non-empty array of integers (" + what + "s)");
      if (!base) *out = std::move(fallback);
      return true;
    }
    if (!List(*v, ptr, "integers (" + what + "s)", may_be_empty)) return false;
    out->clear();
    for (size_t i = 0; i < v->size(); ++i) {
      int64_t x;
      if (!Int((*v)[i], JsonChild(ptr, i), lo, hi, what, &x)) return false;
      out->push_back(static_cast<T>(x));
    }
    std::sort(out->begin(), out->end());
    out->erase(std::unique(out->begin(), out->end()), out->end());
    return true;
  }

  /// A list of names of `names`: in enum order, without repeats.
  template <class E>
  bool Names(const json& obj, const std::string& at, const std::string& key, const std::vector<std::string>& names,
             const ScopePart* base, std::vector<E>* out, std::vector<E> fallback) {
    const std::string ptr = at + "/" + key;
    const json* v = Find(obj, key);
    if (!v) {
      if (!base) *out = std::move(fallback);
      return true;
    }
    if (!List(*v, ptr, "names (" + JoinNames(names) + ")", false)) return false;
    std::vector<bool> seen(names.size(), false);
    for (size_t i = 0; i < v->size(); ++i) {
      std::string name;
      if (!String((*v)[i], JsonChild(ptr, i), "a name, one of " + JoinNames(names), &name) ||
          !OneOf(name, names, JsonChild(ptr, i), key == "layouts" ? "table layout" : "name"))
        return false;
      seen[static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin())] = true;
    }
    out->clear();
    for (size_t i = 0; i < names.size(); ++i)
      if (seen[i]) out->push_back(static_cast<E>(i));
    return true;
  }

  bool List(const json& v, const std::string& ptr, const std::string& what, bool may_be_empty) {
    const std::string expected = std::string(may_be_empty ? "an array" : "a non-empty array") + " of " + what;
    if (!v.is_array()) return Fail(ptr, "not an array", expected, DescribeJson(v));
    if (v.empty() && !may_be_empty) return Fail(ptr, "empty list", expected);
    if (v.size() > kMaxListLength)
      return Fail(ptr, "list too long", "at most " + std::to_string(kMaxListLength) + " values",
                  std::to_string(v.size()));
    return true;
  }

  /// The "tiles" parameter class reads the tiles: one without the other is a mistake.
  bool CheckTiles(const json& obj, const std::string& at, const ScopePart& p) {
    const bool uses = std::count(p.params.begin(), p.params.end(), ParamClass::kTiles) > 0;
    if (uses && p.tiles.empty())
      return Fail(at + (Find(obj, "tiles") ? "/tiles" : "/params"), "parameter class \"tiles\" without tiles",
                  "a non-empty \"tiles\" list beside \"tiles\" in \"params\"");
    return true;
  }
};

std::string PresetPath(const std::string& name) { return "scopes/" + name + ".json"; }

}  // namespace

bool ParseScope(const std::string& text, const std::string& file, Scope* scope, std::string* err) {
  json root;
  if (!ParseJsonText(text, file, "a scope object", &root, err)) return false;
  Scope loaded;
  loaded.file = file;
  try {
    if (!ScopeReader(file, err).Load(root, &loaded)) return false;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    *err = file + ": internal error while loading: " + e.what() + "; expected a scope object";
    return false;
  }
  *scope = std::move(loaded);
  return true;
}

std::vector<std::string> ScopePresetNames() {
  std::vector<std::string> names;
  for (int i = 0; i < kBuiltinScopeFileCount; ++i) {
    std::string path = kBuiltinScopeFiles[i].path;  // "scopes/small.json"
    names.push_back(path.substr(7, path.size() - 7 - 5));
  }
  // The order of their size, not of their names.
  const std::vector<std::string> order = {"small", "medium", "large"};
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return std::find(order.begin(), order.end(), a) < std::find(order.begin(), order.end(), b);
  });
  return names;
}

bool LoadScope(const std::string& spec, Scope* scope, std::string* err) {
  for (int i = 0; i < kBuiltinScopeFileCount; ++i)
    if (PresetPath(spec) == kBuiltinScopeFiles[i].path)
      return ParseScope(reinterpret_cast<const char*>(kBuiltinScopeFiles[i].text),
                        std::string(kBuiltinScopeFiles[i].path) + " (built in)", scope, err);
  std::error_code ec;
  const bool looks_like_a_file = spec.find('/') != std::string::npos || spec.find('.') != std::string::npos ||
                                 std::filesystem::exists(spec, ec);
  if (!looks_like_a_file) {
    const std::vector<std::string> presets = ScopePresetNames();
    const std::string match = ClosestCommandLineName(spec, presets);
    *err = "unknown scope " + QuoteName(spec) + (match.empty() ? "" : ", did you mean '" + match + "'?") +
           "; expected a preset (" + JoinNames(presets) + ") or a scope file's path";
    return false;
  }
  std::string text;
  constexpr int64_t kMaxScopeFileBytes = int64_t{1} << 20;
  return ReadTextFile(spec, "a scope file (docs/prove.md)", &text, err, kMaxScopeFileBytes) &&
         ParseScope(text, spec, scope, err);
}

}  // namespace slotguard
