// Reading a suppressions file (docs/suppressions.md):
//   {"slotguard_suppressions": 1,
//    "suppressions": [{"id": ..., "reason": ..., conditions...}, ...]}
#include <set>

#include "registry/families.h"
#include "registry/invariants.h"
#include "suppressions/suppressions.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"
#include "util/json_reader.h"

namespace slotguard {
namespace {

using json = nlohmann::json;

const std::vector<std::string>& ConditionKeys() {
  static const std::vector<std::string> keys = {"families",  "variants",   "invariants", "blame",
                                                "implementation", "files", "num_reqs",   "num_tokens",
                                                "num_groups", "signature"};
  return keys;
}

/// A list of names, each one of `names`.
bool Names(const JsonReader& r, const json& v, const std::string& ptr, const std::vector<std::string>& names,
           const std::string& what, std::vector<std::string>* out) {
  if (!r.Array(v, ptr, "an array of " + what + " names")) return false;
  if (v.empty()) return r.Fail(ptr, "empty list", "at least one " + what + " name (leave the key out to match any)");
  for (size_t i = 0; i < v.size(); ++i) {
    std::string name;
    if (!r.String(v[i], JsonChild(ptr, i), "a " + what + " name", &name) || !r.OneOf(name, names, JsonChild(ptr, i), what))
      return false;
    out->push_back(name);
  }
  return true;
}

/// 5, or {"min": 1, "max": 8} (either bound may be left out).
bool Range(const JsonReader& r, const json& v, const std::string& ptr, MeasureRange* out) {
  const std::string expected = "an integer or {\"min\": N, \"max\": M}";
  out->set = true;
  if (v.is_number_integer())
    return r.Int(v, ptr, 0, JsonReader::kInt64Max, "a count", &out->min) && (out->max = out->min, true);
  if (!v.is_object()) return r.Fail(ptr, "wrong type", expected, DescribeJson(v));
  if (!r.CheckKeys(v, ptr, {"min", "max"})) return false;
  if (v.empty()) return r.Fail(ptr, "empty range", expected);
  if (const json* m = JsonReader::Find(v, "min"); m && !r.Int(*m, JsonChild(ptr, "min"), 0, JsonReader::kInt64Max, "a count", &out->min))
    return false;
  if (const json* m = JsonReader::Find(v, "max"); m && !r.Int(*m, JsonChild(ptr, "max"), 0, JsonReader::kInt64Max, "a count", &out->max))
    return false;
  if (out->min > out->max) return r.Fail(ptr, "min is above max", "min <= max");
  return true;
}

bool Entry(const JsonReader& r, const json& v, const std::string& ptr, Suppression* e) {
  if (!r.Object(v, ptr, "a suppression object")) return false;
  std::vector<std::string> allowed = {"id", "reason"};
  allowed.insert(allowed.end(), ConditionKeys().begin(), ConditionKeys().end());
  if (!r.CheckKeys(v, ptr, allowed)) return false;
  e->pointer = ptr;
  const json* x = nullptr;
  if (!r.Require(v, ptr, "id", "a short name for the entry", &x) || !r.String(*x, JsonChild(ptr, "id"), "a name", &e->id))
    return false;
  if (e->id.empty() || e->id.size() > 64 ||
      e->id.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != std::string::npos)
    return r.Fail(JsonChild(ptr, "id"), "not a short name", "1 to 64 letters, digits, '.', '_' or '-'",
                  QuoteName(e->id));
  if (!r.Require(v, ptr, "reason", "why this difference is accepted", &x) ||
      !r.String(*x, JsonChild(ptr, "reason"), "a sentence", &e->reason))
    return false;
  if (e->reason.find_first_not_of(" \t\r\n") == std::string::npos)
    return r.Fail(JsonChild(ptr, "reason"), "empty reason", "why this difference is accepted");
  if (PrintableText(e->reason) != e->reason || CountChars(e->reason) > 1000)
    return r.Fail(JsonChild(ptr, "reason"), "not one printable line",
                  "at most 1000 characters without control characters, line separators or bidirectional controls (it is printed on one console line)");
  bool any = false;
  for (const std::string& key : ConditionKeys()) any |= JsonReader::Find(v, key) != nullptr;
  if (!any)
    return r.Fail(ptr, "no condition: it would suppress every finding", "at least one of " + JoinNames(ConditionKeys()));
  std::vector<std::string> families, variants, invariants;
  for (const FamilyInfo& f : AllFamilies()) families.push_back(f.name);
  for (const VariantInfo& info : AllVariants())
    if (std::find(variants.begin(), variants.end(), info.name) == variants.end()) variants.push_back(info.name);
  for (const InvariantInfo& info : AllInvariants()) invariants.push_back(info.name);
  if ((x = JsonReader::Find(v, "families")) && !Names(r, *x, JsonChild(ptr, "families"), families, "family", &e->families))
    return false;
  if ((x = JsonReader::Find(v, "variants")) && !Names(r, *x, JsonChild(ptr, "variants"), variants, "variant", &e->variants))
    return false;
  if ((x = JsonReader::Find(v, "invariants")) &&
      !Names(r, *x, JsonChild(ptr, "invariants"), invariants, "invariant", &e->invariants))
    return false;
  if ((x = JsonReader::Find(v, "blame")) &&
      !(r.String(*x, JsonChild(ptr, "blame"), "\"kernel\", \"description\" or \"batch\"", &e->blame) &&
        r.OneOf(e->blame, {"kernel", "description", "batch"}, JsonChild(ptr, "blame"), "blame")))
    return false;
  for (auto [key, field] : {std::pair<const char*, std::string*>{"implementation", &e->implementation},
                            {"files", &e->files}, {"signature", &e->signature}}) {
    if (!(x = JsonReader::Find(v, key))) continue;
    if (!r.String(*x, JsonChild(ptr, key), "a string", field)) return false;
    if (field->empty()) return r.Fail(JsonChild(ptr, key), "empty string", "a non-empty string (leave the key out to match any)");
  }
  if (!e->signature.empty() &&
      (e->signature.size() != 16 || e->signature.find_first_not_of("0123456789abcdef") != std::string::npos))
    return r.Fail(JsonChild(ptr, "signature"), "not a signature id",
                  "the 16 lowercase hex digits fuzz prints after \"signature\"", DescribeJson(*x));
  for (auto [key, range] : {std::pair<const char*, MeasureRange*>{"num_reqs", &e->num_reqs},
                            {"num_tokens", &e->num_tokens}, {"num_groups", &e->num_groups}})
    if ((x = JsonReader::Find(v, key)) && !Range(r, *x, JsonChild(ptr, key), range)) return false;
  return true;
}

}  // namespace

bool LoadSuppressions(const std::string& path, Suppressions* out, std::string* err) {
  std::string text;
  json doc;
  const std::string what = "a suppressions object {\"slotguard_suppressions\": 1, \"suppressions\": [...]}";
  // Small: a team's known differences, not data (and the JSON reader's
  // duplicate-key pass is slow on huge arrays).
  if (!ReadTextFile(path, "a suppressions file", &text, err, kMaxSuppressionsFileBytes) ||
      !ParseJsonText(text, path, what, &doc, err))
    return false;
  const JsonReader r(path, err);
  const json* x = nullptr;
  if (!r.Object(doc, "", what) || !r.CheckKeys(doc, "", {"slotguard_suppressions", "suppressions"}) ||
      !r.Require(doc, "", "slotguard_suppressions", "1 (the format's version)", &x))
    return false;
  int64_t version = 0;
  if (!r.Int(*x, "/slotguard_suppressions", 1, 1, "the format's version", &version)) return false;
  if (!r.Require(doc, "", "suppressions", "an array of suppression objects", &x) ||
      !r.Array(*x, "/suppressions", "an array of suppression objects"))
    return false;
  out->file = path;
  out->entries.clear();
  std::set<std::string> ids;
  for (size_t i = 0; i < x->size(); ++i) {
    Suppression e;
    const std::string ptr = JsonChild("/suppressions", i);
    if (!Entry(r, (*x)[i], ptr, &e)) return false;
    if (!ids.insert(e.id).second) return r.Fail(JsonChild(ptr, "id"), "id given twice", "a unique id", "'" + e.id + "'");
    out->entries.push_back(std::move(e));
  }
  return true;
}

}  // namespace slotguard
