// SARIF 2.1.0 (OASIS): the check results as code-scanning alerts, from the
// same reports as JUnit and JSON. One rule per invariant (ruleId
// "slotguard/<invariant>", the registry's description, and its definition
// as `help`), plus rules for a scenario that expected a finding none gave,
// bad input and environment errors. One result per cause: per failing
// (scenario, group), its rule the group's most specific invariant, its
// message the group's headline (report/cause_lines.h) and every invariant
// that fired. A result is located at the scenario file, relative to
// --sarif-root under the uriBaseId %SRCROOT% (so an alert names the same
// file on every machine), on the line where the group starts (and, as a
// logical location, the group's JSON pointer); never at slotguard's own
// source. Its partialFingerprints hash what the finding is, not where the
// run happened, so re-runs update one alert instead of adding one. A fuzz
// campaign's distinct findings are results at their reproducer files,
// fingerprinted by their signatures (findings/finding_signature.h), not by
// the seed or the stream index that found them. A finding a suppression
// covers is a result with a SARIF suppression (kind external, the entry's
// reason as its justification): code scanning shows it dismissed. A merge
// of campaigns' reports gives each distinct signature one result, with the
// same fingerprint as the campaigns' own.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "registry/families.h"
#include "registry/invariants.h"
#include "report/cause_lines.h"
#include "report/fuzz_report.h"
#include "report/merge_report.h"
#include "report/report.h"
#include "util/did_you_mean.h"
#include "util/fingerprint.h"
#include "util/json_pointer_line.h"

namespace slotguard {
namespace {

using nlohmann::ordered_json;

constexpr char kMissingRule[] = "slotguard/expected-finding-missing";
constexpr char kBadInputRule[] = "slotguard/bad-input";
constexpr char kEnvironmentRule[] = "slotguard/environment-error";

constexpr char kRootBase[] = "%SRCROOT%";

ordered_json Rule(const std::string& id, const std::string& name, const std::string& text, const std::string& help) {
  ordered_json r;
  r["id"] = id;
  r["name"] = name;
  r["shortDescription"] = {{"text", text}};
  r["fullDescription"] = {{"text", text}};
  r["help"] = {{"text", help}, {"markdown", help}};
  return r;
}

/// The JSON pointer at the start of a one-line load error
/// ("FILE:/groups/0/kernel: problem"), "" when it has none.
std::string ErrorPointer(const ScenarioReport& r) {
  if (r.error.compare(0, r.file.size() + 2, r.file + ":/") != 0) return "";
  const size_t start = r.file.size() + 1;
  const size_t end = r.error.find(": ", start);
  return r.error.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

/// A path as a URI reference: every byte but the unreserved ones and '/'
/// percent-encoded (a space, '#', '%', bytes that are not ASCII).
std::string UriPath(const std::string& path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

/// Where results point: files relative to the root, their lines read once.
class Locator {
 public:
  explicit Locator(const std::string& root) {
    std::error_code ec;
    root_ = std::filesystem::weakly_canonical(std::filesystem::absolute(root.empty() ? DefaultSarifRoot() : root, ec), ec);
  }

  /// {"uri": "scenarios/x.json", "uriBaseId": "%SRCROOT%"} for a file under
  /// the root, else {"uri": "file:///abs/x.json"}.
  ordered_json Artifact(const std::string& file) const {
    const std::string relative = Relative(file);
    if (!relative.empty()) return {{"uri", UriPath(relative)}, {"uriBaseId", kRootBase}};
    std::error_code ec;
    return {{"uri", "file://" + UriPath(std::filesystem::weakly_canonical(std::filesystem::absolute(file, ec), ec).string())}};
  }

  /// The path relative to the root, "" when the file is not under it.
  std::string Relative(const std::string& file) const {
    std::error_code ec;
    const std::filesystem::path abs = std::filesystem::weakly_canonical(std::filesystem::absolute(file, ec), ec);
    const std::filesystem::path rel = abs.lexically_relative(root_);
    if (rel.empty() || *rel.begin() == "..") return "";
    return rel.generic_string();
  }

  /// The identity of a file in fingerprints: relative when it can be.
  std::string Identity(const std::string& file) const {
    const std::string relative = Relative(file);
    return relative.empty() ? file : relative;
  }

  /// The line where `pointer`'s value starts in `file`; 1 when unknown.
  int Line(const std::string& file, const std::string& pointer) {
    auto it = text_.find(file);
    if (it == text_.end()) {
      std::ifstream in(file, std::ios::binary);
      std::ostringstream text;
      if (in) text << in.rdbuf();
      it = text_.emplace(file, text.str()).first;
    }
    const int line = JsonPointerLine(it->second, pointer);
    return line > 0 ? line : 1;
  }

  ordered_json BaseIds() const {
    std::string uri = "file://" + UriPath(root_.generic_string());
    if (uri.back() != '/') uri += '/';
    return {{kRootBase, {{"uri", uri}}}};
  }

 private:
  std::filesystem::path root_;
  std::map<std::string, std::string> text_;
};

ordered_json Result(Locator& at, const std::string& rule, const std::string& level, const std::string& message,
                    const std::string& file, const std::string& pointer, const std::string& identity) {
  ordered_json res;
  res["ruleId"] = rule;
  res["level"] = level;
  res["message"] = {{"text", message}};
  ordered_json location;
  location["physicalLocation"] = {{"artifactLocation", at.Artifact(file)},
                                  {"region", {{"startLine", at.Line(file, pointer)}}}};
  if (!pointer.empty())
    location["logicalLocations"] = ordered_json::array({{{"fullyQualifiedName", pointer}, {"kind", "object"}}});
  res["locations"] = ordered_json::array({location});
  res["partialFingerprints"] = {{"slotguardFinding/v1", Fingerprint(rule + "\n" + identity)}};
  return res;
}

/// A SARIF suppression: the finding is known, for `reason`. Its level is
/// note: GitHub code scanning does not read SARIF suppressions
/// (github/codeql-action#1230), so it shows a known difference as a note,
/// not as an error.
void Suppress(const std::string& id, const std::string& reason, ordered_json* result) {
  (*result)["level"] = "note";
  (*result)["suppressions"] =
      ordered_json::array({{{"kind", "external"}, {"status", "accepted"}, {"justification", id + ": " + reason}}});
}

ordered_json Rules() {
  ordered_json rules = ordered_json::array();
  for (const InvariantInfo& info : AllInvariants())
    rules.push_back(Rule(std::string("slotguard/") + info.name, info.name, info.description,
                         std::string(info.name) + ": " + info.description +
                             ". A finding names the group, the tokens and the request that broke it; "
                             "`slotguard replay FILE` shows every token of the scenario."));
  rules.push_back(Rule(kMissingRule, "expected-finding-missing",
                       "the scenario expects a finding (its expect block), and the invariant did not fire",
                       "The scenario's expect block says these invariants must fire (a historical variant forced on "
                       "purpose), and they did not: the scenario no longer catches what it was written for."));
  rules.push_back(Rule(kBadInputRule, "bad-input", "the scenario file cannot be loaded",
                       "The scenario file does not load: the message names the JSON pointer and what was expected."));
  rules.push_back(Rule(kEnvironmentRule, "environment-error",
                       "the backend failed to run the scenario (no device, out of memory, a CUDA error)",
                       "The run could not complete on this machine; rerun it where the backend works."));
  return rules;
}

/// The log: one run of slotguard with `results`.
std::string Log(const Locator& at, ordered_json results, ordered_json properties) {
  ordered_json driver;
  driver["name"] = "slotguard";
  driver["version"] = std::string(kSlotguardVersion);
  driver["rules"] = Rules();
  ordered_json run;
  run["tool"] = {{"driver", driver}};
  run["originalUriBaseIds"] = at.BaseIds();
  run["results"] = std::move(results);
  run["properties"] = std::move(properties);
  ordered_json root;
  root["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  root["version"] = "2.1.0";
  root["runs"] = ordered_json::array({run});
  return ReportJsonText(std::move(root));
}

/// A campaign's distinct finding as a result: its rule the signature's
/// cause, at `file` (its reproducer, on `pointer`'s line; or the entry that
/// suppresses it), fingerprinted by the signature's text: what it is, not
/// where in the stream it was found (another seed, shard or night that finds
/// the same bug gives the same one). Fuzz, prove and merge results alike.
ordered_json FindingResult(Locator& at, const std::string& cause, const std::string& text, const std::string& message,
                           const std::string& file, const std::string& pointer, const Suppression* entry) {
  ordered_json res = Result(at, "slotguard/" + cause, "error", message, file, pointer, text);
  if (entry) Suppress(entry->id, entry->reason, &res);
  return res;
}

/// "/groups/K" of the reproducer's group its first cause line names
/// ("group NAME: ..."), "" when the file cannot be read or has none.
std::string ReproducerPointer(const std::string& file, const std::vector<std::string>& causes) {
  if (file.empty()) return "";
  std::ifstream in(file, std::ios::binary);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (!doc.is_object() || !doc.contains("groups") || !doc["groups"].is_array()) return "";
  const nlohmann::json& groups = doc["groups"];
  for (const std::string& cause : causes)
    for (size_t i = 0; i < groups.size(); ++i)
      if (groups[i].is_object() && groups[i].contains("name") && groups[i]["name"].is_string() &&
          cause.rfind("group " + groups[i]["name"].get<std::string>() + ": ", 0) == 0)
        return "/groups/" + std::to_string(i);
  return "";
}

std::string Fired(const GroupReport& g) {
  std::set<std::string> names;
  for (const auto& [name, count] : g.counts) names.insert(name);
  int64_t n = 0;
  for (const auto& [name, count] : g.counts) n += count;
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text + " (" + std::to_string(n) + " finding" + (n == 1 ? "" : "s") + ")";
}

}  // namespace

std::string DefaultSarifRoot() {
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  for (std::filesystem::path dir = cwd; !dir.empty(); dir = dir.parent_path()) {
    if (std::filesystem::exists(dir / ".git", ec)) return dir.string();
    if (dir == dir.root_path()) break;
  }
  return cwd.string();
}

std::string CheckSarif(const std::vector<ScenarioReport>& reports, const CheckSummary& summary) {
  Locator at(summary.sarif_root);
  ordered_json results = ordered_json::array();
  for (const ScenarioReport& r : reports) {
    const std::string file = at.Identity(r.file);
    if (r.status == ScenarioStatus::kBadInput) {
      results.push_back(Result(at, kBadInputRule, "error", r.error, r.file, ErrorPointer(r), file + "\n" + r.error));
      continue;
    }
    if (r.status == ScenarioStatus::kEnvironmentError) {
      results.push_back(Result(at, kEnvironmentRule, "error", r.error, r.file, "", file + "\n" + r.name));
      continue;
    }
    const bool suppressed = r.suppressed_by >= 0;
    if (r.status != ScenarioStatus::kChecked || (r.holds && !suppressed)) continue;
    if (r.expect_finding) {  // it fails only by what did not fire (JudgeExpectation)
      std::vector<std::string> missing;
      for (const std::string& name : r.expected_invariants)
        if (!r.fired.count(name)) missing.push_back(name);
      if (r.total_findings == 0) missing = {""};
      for (const std::string& name : missing)
        results.push_back(Result(at, kMissingRule, "error",
                                 (name.empty() ? r.verdict : "expected " + name + ", it did not fire (" + r.verdict + ")") +
                                     " in scenario " + r.name,
                                 r.file, "/expect", file + "\n" + r.name + "\n" + name + "\n" + r.forced_variant));
      continue;
    }
    for (size_t g = 0; g < r.groups.size(); ++g) {  // every finding is unexpected: one result per group
      const GroupReport& group = r.groups[g];
      if (group.counts.empty()) continue;
      std::set<std::string> fired;
      for (const auto& [name, count] : group.counts) fired.insert(name);
      const std::string cause = MostSpecificInvariant(fired);
      const std::string message = "scenario " + r.name + (r.forced_variant.empty() ? "" : " [variant " + r.forced_variant + "]") +
                                  ", " + GroupHeadline(group) + "; " + GetFamily(group.family).name + ", variant " +
                                  GetVariant(group.variant).name + "; fired " + Fired(group);
      // What the finding is: the scenario, the group, its kernel and
      // variant, the cause (not the count, the backend or the run).
      const std::string identity = file + "\n" + r.name + "\n" + group.name + "\n" + GetFamily(group.family).name +
                                   "\n" + GetVariant(group.variant).name + "\n" + cause;
      results.push_back(Result(at, "slotguard/" + cause, "error", message, r.file, "/groups/" + std::to_string(g),
                               identity));
      if (suppressed) Suppress(r.suppressed_id, r.suppressed_reason, &results.back());
    }
  }
  return Log(at, std::move(results), {{"backend", summary.backend}, {"implementation", summary.implementation}});
}

bool WriteSarif(const std::string& path, const std::vector<ScenarioReport>& reports, const CheckSummary& summary,
                std::string* err) {
  return WriteReportFile(path, CheckSarif(reports, summary), "SARIF", err);
}

std::string SarifLogText(nlohmann::ordered_json results, nlohmann::ordered_json properties, const std::string& root) {
  return Log(Locator(root), std::move(results), std::move(properties));
}

nlohmann::ordered_json CampaignSarifResults(const FuzzReport& report,
                                            const std::function<std::string(const CampaignFinding&)>& origin) {
  Locator at(report.sarif_root);
  ordered_json results = ordered_json::array();
  for (const CampaignFinding& f : report.result.findings) {
    std::string headline;
    std::string pointer;
    for (const GroupReport& g : f.groups) {
      headline += (headline.empty() ? "" : "; ") + GroupHeadline(g);
      if (pointer.empty())
        for (size_t i = 0; i < f.minimized.groups.size(); ++i)
          if (f.minimized.groups[i].name == g.name) pointer = "/groups/" + std::to_string(i);
    }
    const std::string message = origin(f) + ", signature " + f.signature.Id() + ": " + f.signature.Text() +
                                (headline.empty() ? "" : "; " + headline) + "; " + std::to_string(f.count) +
                                " findings; the reproducer fires " + JoinNames(f.fired) +
                                (!f.reproducer_error.empty() ? "; " + f.reproducer_error
                                 : f.file.empty()            ? ""
                                                             : "; reproduce it with: " + f.replay_command);
    // A suppressed signature has no reproducer: its result is at the entry
    // that suppresses it.
    const Suppression* e =
        f.suppressed_by >= 0 ? &report.suppressions->entries[static_cast<size_t>(f.suppressed_by)] : nullptr;
    results.push_back(FindingResult(at, f.signature.Cause(), f.signature.Text(), message,
                                    e ? report.suppressions->file : f.file, e ? e->pointer : pointer, e));
  }
  return results;
}

std::string MergeSarif(const MergeResult& m) {
  Locator at(m.sarif_root);
  ordered_json results = ordered_json::array();
  for (const MergedFinding& f : m.findings) {
    const ReportFinding& last = m.Last(f);
    const CampaignReportFile& first_report = m.reports[f.seen.front().report];
    const CampaignReportFile& last_report = m.reports[f.seen.back().report];
    std::string headline;
    for (const std::string& c : last.causes) headline += (headline.empty() ? "" : "; ") + c;
    const auto seen = [](const CampaignReportFile& r) {
      return r.path + (r.finished.empty() ? "" : " (" + r.finished + ")");
    };
    const std::string message =
        "merge of " + std::to_string(m.reports.size()) + " reports: seen in " + std::to_string(f.seen.size()) +
        ", first " + seen(first_report) + ", last " + seen(last_report) + "; signature " + last.id + ": " +
        last.signature.Text() + (headline.empty() ? "" : "; " + headline) + "; " + std::to_string(f.count) +
        " findings; the reproducer fires " + JoinNames(last.fired) +
        (last.file.empty() ? "" : "; reproduce it with: " + last.replay_command);
    // At the entry that suppresses it (merge's --suppressions); else at the
    // last reproducer, on its group's line; else (no reproducer, or a
    // report's own entry, whose file the report does not name) at the
    // finding in the last report that lists it.
    const Suppression* entry = nullptr;
    Suppression own;
    std::string file = last.file, pointer = ReproducerPointer(last.file, last.causes);
    if (f.entry >= 0) {
      const MergedSuppression& e = m.suppressions[static_cast<size_t>(f.entry)];
      own.id = e.id;
      own.reason = e.reason;
      own.pointer = e.pointer;
      entry = &own;
      file = m.suppressions_file;
      pointer = e.pointer;
    }
    if (file.empty()) {
      file = last_report.path;
      pointer = "/findings/" + std::to_string(f.seen.back().finding);
    }
    results.push_back(FindingResult(at, last.signature.Cause(), last.signature.Text(), message, file, pointer, entry));
  }
  return SarifLogText(std::move(results), {{"merged_reports", m.reports.size()}}, m.sarif_root);
}

bool WriteMergeSarif(const std::string& path, const MergeResult& merge, std::string* err) {
  return WriteReportFile(path, MergeSarif(merge), "SARIF", err);
}

std::string FuzzSarif(const FuzzReport& report) {
  ordered_json results = CampaignSarifResults(report, [&](const CampaignFinding& f) {
    return "fuzz (seed " + std::to_string(report.seed) + ", scenario " + std::to_string(f.finding_index) + ")";
  });
  return SarifLogText(std::move(results), {{"backend", report.backend}, {"seed", report.seed}}, report.sarif_root);
}

bool WriteFuzzSarif(const std::string& path, const FuzzReport& report, std::string* err) {
  return WriteReportFile(path, FuzzSarif(report), "SARIF", err);
}

}  // namespace slotguard
