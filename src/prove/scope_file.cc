#include "prove/scope_file.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <system_error>

#include "prove/builtin_scopes.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"
#include "util/json_reader.h"

namespace slotguard {

const std::vector<std::string>& NumActualNames() {
  static const std::vector<std::string> names = {"real_tokens", "num_tokens", "before_last"};
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
  static const std::vector<std::string> names = {"per_request", "persistent", "persistent_permuted"};
  return names;
}
const std::vector<std::string>& StaleRowNames() {
  static const std::vector<std::string> names = {"null", "minus_one", "fresh", "reused"};
  return names;
}
const std::vector<std::string>& BlockIdsNames() {
  static const std::vector<std::string> names = {"small", "below_int32", "past_int32"};
  return names;
}
const std::vector<std::string>& ParamClassNames() {
  static const std::vector<std::string> names = {"min", "next", "example", "default", "max", "divisors", "tiles"};
  return names;
}
const std::vector<std::string>& LinkModeNames() {
  static const std::vector<std::string> names = {"present", "absent"};
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
/// The largest context: positions stay below 2^62 (scenario.h) with the
/// most tokens a request may have.
constexpr int64_t kMaxContext = kMaxPosition + 1 - kMaxTokens;

class ScopeReader : public JsonReader {
 public:
  using JsonReader::JsonReader;

  bool Load(const json& root, Scope* s) {
    if (!Object(root, "", "a scope object")) return false;
    if (!CheckKeys(root, "", kKeys)) return false;
    const json* v;
    int64_t version;
    if (!Require(root, "", "slotguard_scope", "the format version, 1", &v) ||
        !Int(*v, "/slotguard_scope", kScopeFormatVersion, kScopeFormatVersion, "format version", &version))
      return false;
    if (!Require(root, "", "name", "the scope's name, a string", &v) || !String(*v, "/name", "a string", &s->name))
      return false;
    if (s->name.empty()) return Fail("/name", "empty name", "a non-empty string");
    if (const json* m = Find(root, "meaning"); m && !String(*m, "/meaning", "a string", &s->meaning)) return false;
    return Ints(root, "requests", true, 0, kMaxRequests, "request count", {}, &s->requests) &&
           Ints(root, "tokens", true, 0, kMaxTokens, "token count", {}, &s->tokens) &&
           Ints(root, "padding", false, 0, kMaxTokens, "padding token count", {0}, &s->padding) &&
           Ints(root, "contexts", false, 0, kMaxContext, "context length", {0}, &s->contexts) &&
           Ints(root, "boundary_offsets", false, -kMaxOffset, kMaxOffset, "offset", {}, &s->boundary_offsets,
                true) &&
           Ints(root, "widths", false, 0, kMaxWidth, "table width", {1}, &s->widths) &&
           Names(root, "num_actual", NumActualNames(), {NumActual::kRealTokens}, &s->num_actual) &&
           Names(root, "slot_mapping_in", SlotMappingInNames(), {SlotMappingIn::kPad}, &s->slot_mapping_in) &&
           Names(root, "null_entries", NullEntryNames(), {NullEntry::kZero}, &s->null_entries) &&
           Names(root, "tables", TableModeNames(), {TableMode::kPerRequest}, &s->tables) &&
           Names(root, "stale_rows", StaleRowNames(), {StaleRow::kNull}, &s->stale_rows) &&
           Names(root, "block_ids", BlockIdsNames(), {BlockIds::kSmall}, &s->block_ids) &&
           Names(root, "layouts", TableLayoutNames(), {TableLayoutKind::kPadded}, &s->layouts) &&
           Names(root, "params", ParamClassNames(), {ParamClass::kExample, ParamClass::kDefault}, &s->params) &&
           Ints(root, "tiles", false, 1, kMaxTile, "tile", {}, &s->tiles, true) &&
           Names(root, "links", LinkModeNames(), {LinkMode::kPresent}, &s->links) && CheckTiles(root, *s);
  }

 private:
  static inline const std::vector<std::string> kKeys = {
      "slotguard_scope", "name",       "meaning",         "requests",   "tokens",  "padding",
      "contexts",        "boundary_offsets", "widths",    "num_actual", "slot_mapping_in",
      "null_entries",    "tables",     "stale_rows",      "block_ids",  "layouts", "params",
      "tiles",           "links"};

  /// A list of integers in [lo, hi]: sorted, without repeats. An absent
  /// key takes `fallback`; `may_be_empty` lists may be [].
  template <class T>
  bool Ints(const json& root, const std::string& key, bool required, int64_t lo, int64_t hi, const std::string& what,
            std::vector<T> fallback, std::vector<T>* out, bool may_be_empty = false) {
    const std::string ptr = "/" + key;
    const json* v = Find(root, key);
    if (!v) {
      if (required) return Fail(ptr, "missing required key", "a non-empty array of integers (" + what + "s)");
      *out = std::move(fallback);
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
  bool Names(const json& root, const std::string& key, const std::vector<std::string>& names, std::vector<E> fallback,
             std::vector<E>* out) {
    const std::string ptr = "/" + key;
    const json* v = Find(root, key);
    if (!v) {
      *out = std::move(fallback);
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
  bool CheckTiles(const json& root, const Scope& s) {
    const bool uses = std::count(s.params.begin(), s.params.end(), ParamClass::kTiles) > 0;
    if (uses && s.tiles.empty())
      return Fail(Find(root, "tiles") ? "/tiles" : "/params", "parameter class \"tiles\" without tiles",
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
