// Reading a campaign's --json report back for `slotguard merge`: fuzz's
// ("slotguard_fuzz": 1, docs/fuzz-report.schema.json) and prove's
// ("slotguard_prove": 1). Only the keys the merge uses are read, each
// checked; a problem is one line with the file and the JSON pointer.
#include <filesystem>
#include <system_error>

#include "report/merge_report.h"
#include "util/fingerprint.h"
#include "util/json_reader.h"
#include "util/utc_time.h"

namespace slotguard {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr char kWhat[] = "a report written by fuzz --json or prove --json";

/// Typed reads of the keys of one report: each false after the one line.
class ReportReader {
 public:
  ReportReader(const std::string& file, std::string* err) : r_(file, err) {}

  const JsonReader& r() const { return r_; }

  const json* Key(const json& obj, const std::string& ptr, const std::string& key, const std::string& expected) {
    const json* v = nullptr;
    return r_.Require(obj, ptr, key, expected, &v) ? v : nullptr;
  }
  bool Str(const json& obj, const std::string& ptr, const std::string& key, std::string* out) {
    const json* v = Key(obj, ptr, key, "a string");
    return v && r_.String(*v, JsonChild(ptr, key), "a string", out);
  }
  /// A string, or null ("" here).
  bool StrOrNull(const json& obj, const std::string& ptr, const std::string& key, std::string* out) {
    const json* v = Key(obj, ptr, key, "a string or null");
    if (!v) return false;
    if (v->is_null()) {
      out->clear();
      return true;
    }
    return r_.String(*v, JsonChild(ptr, key), "a string or null", out);
  }
  bool Int(const json& obj, const std::string& ptr, const std::string& key, int64_t lo, int64_t* out) {
    const json* v = Key(obj, ptr, key, "an integer");
    return v && r_.Int(*v, JsonChild(ptr, key), lo, JsonReader::kInt64Max, key, out);
  }
  bool Strings(const json& obj, const std::string& ptr, const std::string& key, std::vector<std::string>* out) {
    const json* v = Key(obj, ptr, key, "an array of strings");
    if (!v || !r_.Array(*v, JsonChild(ptr, key), "an array of strings")) return false;
    out->clear();
    for (size_t i = 0; i < v->size(); ++i) {
      std::string s;
      if (!r_.String((*v)[i], JsonChild(JsonChild(ptr, key), i), "a string", &s)) return false;
      out->push_back(s);
    }
    return true;
  }

 private:
  JsonReader r_;
};

/// "R requests, T tokens, G groups" (ScenarioShape), its numbers.
bool ParseShape(const std::string& shape, ScenarioMeasures* m) {
  long long r = 0, t = 0, g = 0;
  if (std::sscanf(shape.c_str(), "%lld requests, %lld tokens, %lld groups", &r, &t, &g) != 3) return false;
  *m = {r, t, g};
  return shape == std::to_string(r) + " requests, " + std::to_string(t) + " tokens, " + std::to_string(g) + " groups";
}

/// A relative reproducer path as the report gives it when it exists from
/// the working directory; else from the report's folder when it exists
/// there (artifacts downloaded into a folder of their own).
std::string ReproducerPath(const std::string& file, const std::string& report) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (file.empty() || fs::path(file).is_absolute() || fs::exists(file, ec)) return file;
  const fs::path folder = fs::path(report).parent_path();
  if (folder.empty()) return file;
  const fs::path beside = (folder / file).lexically_normal();
  return fs::exists(beside, ec) ? beside.string() : file;
}

bool ReadFinding(ReportReader& in, const json& f, const std::string& ptr, const std::string& report,
                 ReportFinding* out) {
  const JsonReader& r = in.r();
  if (!r.Object(f, ptr, "a finding (an object)")) return false;
  FindingSignature& sig = out->signature;
  std::string text, cause, blame;
  if (!in.Str(f, ptr, "signature", &out->id) || !in.Str(f, ptr, "text", &text) ||
      !in.Str(f, ptr, "implementation", &sig.implementation) || !in.Strings(f, ptr, "families", &sig.families) ||
      !in.Strings(f, ptr, "variants", &sig.variants) || !in.Strings(f, ptr, "invariants", &sig.invariants) ||
      !in.Str(f, ptr, "cause", &cause) || !in.Str(f, ptr, "blame", &blame) ||
      !r.OneOf(blame, {"kernel", "description", "batch"}, JsonChild(ptr, "blame"), "blame") ||
      !in.Str(f, ptr, "shape", &sig.shape) || !in.Int(f, ptr, "count", 0, &out->count) ||
      !in.Int(f, ptr, "scenario_index", 0, &out->scenario_index) || !in.Strings(f, ptr, "fired", &out->fired) ||
      !in.Strings(f, ptr, "causes", &out->causes) || !in.StrOrNull(f, ptr, "file", &out->file) ||
      !in.StrOrNull(f, ptr, "replay_command", &out->replay_command) ||
      !in.StrOrNull(f, ptr, "suppressed_by", &out->suppressed_by))
    return false;
  sig.blames_kernel = blame == "kernel";
  sig.blames_description = blame == "description";
  if (!ParseShape(sig.shape, &out->measures))
    return r.Fail(JsonChild(ptr, "shape"), "not a scenario shape", "'R requests, T tokens, G groups'",
                  "'" + sig.shape + "'");
  // The parts, the text and the id agree: the id is what suppressions and
  // SARIF's fingerprints name, the parts what entries match.
  if (sig.Cause() != cause)
    return r.Fail(JsonChild(ptr, "cause"), "not the most specific of its invariants",
                  "'" + sig.Cause() + "'", "'" + cause + "'");
  if (sig.Text() != text)
    return r.Fail(JsonChild(ptr, "text"), "not the text of its parts", "'" + sig.Text() + "'", "'" + text + "'");
  if (Fingerprint(text) != out->id)
    return r.Fail(JsonChild(ptr, "signature"), "not the signature of its text",
                  Fingerprint(text) + " (FNV-1a of the text)", "'" + out->id + "'");
  out->file = ReproducerPath(out->file, report);
  return true;
}

}  // namespace

bool LoadCampaignReport(const std::string& path, CampaignReportFile* out, std::string* err) {
  std::string text;
  if (!ReadTextFile(path, kWhat, &text, err)) return false;
  json doc;
  if (!ParseJsonText(text, path, kWhat, &doc, err)) return false;
  ReportReader in(path, err);
  const JsonReader& r = in.r();
  if (!r.Object(doc, "", kWhat + std::string(" (an object)"))) return false;
  *out = CampaignReportFile();
  out->path = path;
  std::string version_key;
  for (const char* kind : {"fuzz", "prove"})
    if (doc.contains(std::string("slotguard_") + kind)) {
      out->kind = kind;
      version_key = std::string("slotguard_") + kind;
    }
  if (out->kind.empty()) {
    if (doc.contains("slotguard_report"))
      return r.Fail("/slotguard_report", "a check report, whose scenarios have no signatures to merge", kWhat);
    if (doc.contains("slotguard_merge"))
      return r.Fail("/slotguard_merge", "a merge report", kWhat + std::string(" (merge those reports themselves)"));
    return r.Fail("", "not a campaign report: neither slotguard_fuzz nor slotguard_prove", kWhat);
  }
  if (doc[version_key] != 1)
    return r.Fail("/" + version_key, "an unknown version of the " + out->kind + " report", "1",
                  DescribeJson(doc[version_key]));
  if (doc.contains("finished")) {
    if (!in.Str(doc, "", "finished", &out->finished)) return false;
    if (!IsUtcTimestamp(out->finished))
      return r.Fail("/finished", "not a UTC time stamp", "YYYY-MM-DDTHH:MM:SSZ", "'" + out->finished + "'");
  }
  std::string backend;
  if (!in.Str(doc, "", "backend", &backend)) return false;
  ordered_json& c = out->campaign;
  c["kind"] = out->kind;
  if (out->kind == "fuzz") {
    const json* seed = in.Key(doc, "", "seed", "an integer");
    if (!seed) return false;
    if (!seed->is_number_integer()) return r.Fail("/seed", "wrong type", "an integer", DescribeJson(*seed));
    std::string variant;
    int64_t max_requests;
    if (!in.Str(doc, "", "variant", &variant) || !in.Int(doc, "", "max_requests", 1, &max_requests)) return false;
    c["seed"] = *seed;
    c["variant"] = variant;
    if (doc.contains("families")) {  // an older report has none
      std::vector<std::string> families;
      if (!in.Strings(doc, "", "families", &families)) return false;
      c["families"] = families;
    }
    c["max_requests"] = max_requests;
    if (doc.contains("shard") && !in.Str(doc, "", "shard", &out->shard)) return false;
  } else {
    const json* scope = in.Key(doc, "", "scope", "the scope's claim (an object)");
    if (!scope || !r.Object(*scope, "/scope", "the scope's claim (an object)")) return false;
    std::string name, implementation, variant, batches;
    std::vector<std::string> families;
    if (!in.Str(*scope, "/scope", "name", &name) || !in.Strings(*scope, "/scope", "families", &families) ||
        !in.Str(*scope, "/scope", "implementation", &implementation) ||
        !in.Str(*scope, "/scope", "variant", &variant) || !in.Str(*scope, "/scope", "batches", &batches) ||
        !in.Str(*scope, "/scope", "shard", &out->shard))
      return false;
    c["scope"] = name;
    c["families"] = families;
    c["implementation"] = implementation;
    c["variant"] = variant;
    c["batches"] = batches;
  }
  c["backend"] = backend;
  const json* findings = in.Key(doc, "", "findings", "an array of findings");
  if (!findings || !r.Array(*findings, "/findings", "an array of findings")) return false;
  for (size_t i = 0; i < findings->size(); ++i) {
    ReportFinding f;
    if (!ReadFinding(in, (*findings)[i], JsonChild("/findings", i), path, &f)) return false;
    out->findings.push_back(std::move(f));
  }
  const json* entries = in.Key(doc, "", "suppressions", "an array of suppression entries");
  if (!entries || !r.Array(*entries, "/suppressions", "an array of suppression entries")) return false;
  for (size_t i = 0; i < entries->size(); ++i) {
    const std::string ptr = JsonChild("/suppressions", i);
    const json& e = (*entries)[i];
    ReportSuppression s;
    if (!r.Object(e, ptr, "a suppression entry (an object)") || !in.Str(e, ptr, "id", &s.id) ||
        !in.Str(e, ptr, "reason", &s.reason) || !in.Str(e, ptr, "pointer", &s.pointer) ||
        !in.Int(e, ptr, "matched", 0, &s.matched))
      return false;
    out->suppressions.push_back(std::move(s));
  }
  return true;
}

}  // namespace slotguard
