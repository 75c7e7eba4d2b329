// slotguard merge: hand-written fuzz reports of two nights, two shards each,
// merged into one list of distinct signatures. What each signature's first
// and last sighting, counts and reproducers must be is worked out below from
// the reports' times; the ids are FNV-1a of the signature texts, computed
// apart (8c100a33ff98a813 is docs/suppressions.md's example). Then the
// suppressions (an entry must cover every sighting, the num_* keys read the
// reproducer's shape), the SARIF log (SARIF's required structure, one result
// per signature, fingerprinted as the campaigns' own), bad input (one line
// each, exit 2), and real shards' reports from `fuzz --json`.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "testing/json_schema.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

const std::string kSource = SLOTGUARD_SOURCE_DIR;

// The three signatures, their ids (FNV-1a of the text) and their SARIF
// fingerprints (FNV-1a of "slotguard/CAUSE\nTEXT"), worked out apart.
constexpr char kA[] = "8c100a33ff98a813";  // kpool_tail/prefix: null_block (kernel); implementation slotguard
constexpr char kB[] = "ea6ab6e494e1271b";  // qsa_ring/fixed: differential (kernel); implementation slotguard
constexpr char kC[] = "34d7104ec5790722";  // paged/unguarded: null_block (batch); implementation slotguard
constexpr char kFingerprintA[] = "a850424e214ba13c";
constexpr char kFingerprintB[] = "b177454f55785900";
constexpr char kFingerprintC[] = "a557b6f5a1d71873";

json Finding(const std::string& which, int64_t count, const std::string& shape, const std::string& file) {
  json f;
  if (which == "A") {
    f = {{"signature", kA}, {"text", "kpool_tail/prefix: null_block (kernel); implementation slotguard"},
         {"families", {"kpool_tail"}}, {"variants", {"prefix"}}, {"invariants", {"differential", "null_block"}},
         {"cause", "null_block"}, {"blame", "kernel"}};
  } else if (which == "B") {
    f = {{"signature", kB}, {"text", "qsa_ring/fixed: differential (kernel); implementation slotguard"},
         {"families", {"qsa_ring"}}, {"variants", {"fixed"}}, {"invariants", {"differential"}},
         {"cause", "differential"}, {"blame", "kernel"}};
  } else {
    f = {{"signature", kC}, {"text", "paged/unguarded: null_block (batch); implementation slotguard"},
         {"families", {"paged"}}, {"variants", {"unguarded"}}, {"invariants", {"null_block"}},
         {"cause", "null_block"}, {"blame", "batch"}};
  }
  f["implementation"] = "slotguard";
  f["shape"] = shape;
  f["count"] = count;
  f["shrunk"] = 1;
  f["scenario_index"] = 7;
  f["invariant"] = f["cause"];
  f["fired"] = f["invariants"];
  f["original_shape"] = shape;
  f["causes"] = {"group g: request 0 wrote slot 0 of block 0 (token 0)"};
  f["recurred"] = true;
  f["file"] = file.empty() ? json(nullptr) : json(file);
  f["replay_command"] = file.empty() ? json(nullptr) : json("slotguard replay " + file);
  f["reproducer_error"] = nullptr;
  f["suppressed_by"] = nullptr;
  return f;
}

/// A fuzz --json report as the schema has it, with these findings.
json FuzzReport(uint64_t seed, const std::string& shard, const std::string& finished, const json& findings) {
  json r;
  r["slotguard_fuzz"] = 1;
  r["slotguard_version"] = "0.1.0";
  r["finished"] = finished;
  r["seed"] = seed;
  r["shard"] = shard;
  r["backend"] = "host";
  r["variant"] = "fixed";
  r["families"] = {"kpool_tail", "paged", "qsa_ring"};
  r["max_requests"] = 1024;
  r["keep_going"] = true;
  r["found"] = !findings.empty();
  r["findings"] = findings;
  r["suppressions"] = json::array();
  return r;
}

std::string LastLine(const std::string& text) {
  const size_t end = text.size() && text.back() == '\n' ? text.size() - 1 : text.size();
  const size_t start = text.rfind('\n', end == 0 ? 0 : end - 1);
  return text.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1));
}

class MergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ScratchDir();
    // Night 1 (seed 20261203), shards 0/2 and 1/2; night 2 (seed 20261204).
    // The reports are given out of time order: night 2's shard 1 finished
    // before its shard 0.
    Write("n2-s1.json", FuzzReport(20261204, "1/2", "2026-12-04T04:00:00Z",
                                   json::array({Finding("B", 7, "1 requests, 3 tokens, 1 groups", "")})));
    Write("n1-s0.json", FuzzReport(20261203, "0/2", "2026-12-03T04:00:00Z",
                                   json::array({Finding("A", 5, "1 requests, 2 tokens, 1 groups", "n1/a.json"),
                                                Finding("B", 2, "1 requests, 3 tokens, 1 groups", "n1/b.json")})));
    Write("n2-s0.json", FuzzReport(20261204, "0/2", "2026-12-04T04:00:10Z",
                                   json::array({Finding("A", 4, "1 requests, 2 tokens, 1 groups", "n2/a.json")})));
    Write("n1-s1.json", FuzzReport(20261203, "1/2", "2026-12-03T04:00:30Z",
                                   json::array({Finding("A", 3, "2 requests, 8 tokens, 1 groups", "n1/a1.json"),
                                                Finding("C", 1, "1 requests, 1 tokens, 1 groups", "n1/c.json")})));
    // n1/a.json is a reproducer whose group "g" is the second: the SARIF
    // result of A (last seen in n2-s0, n2/a.json) points at n2/a.json's.
    std::filesystem::create_directories(dir_ / "n2");
    std::ofstream(dir_ / "n2" / "a.json") << "{\"slotguard\": 1,\n \"groups\": [\n  {\"name\": \"h\"},\n  {\"name\": \"g\"}\n ]\n}\n";
  }

  void Write(const std::string& name, const json& doc) { std::ofstream(dir_ / name) << doc.dump(2); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  /// The four reports, in the order SetUp lists them.
  std::vector<std::string> Reports() const {
    return {Path("n2-s1.json"), Path("n1-s0.json"), Path("n2-s0.json"), Path("n1-s1.json")};
  }

  int Merge(MergeOptions o) {
    out_.str("");
    err_.str("");
    return RunMerge(o, out_, err_);
  }

  std::filesystem::path dir_;
  std::ostringstream out_, err_;
};

TEST_F(MergeTest, TwoNightsOfTwoShardsGiveEachSignatureItsFirstAndLastSighting) {
  MergeOptions o;
  o.reports = Reports();
  o.json_path = Path("merged.json");
  ASSERT_EQ(kExitFindings, Merge(o)) << out_.str() << err_.str();
  EXPECT_EQ("", err_.str());
  const json m = ReadJson(o.json_path);
  const json schema = ReadJson(kSource + "/docs/merge-report.schema.json");
  KeywordsKnown(schema, "");
  std::string errors;
  for (const std::string& e : Errors(schema, m)) errors += e + "\n";
  EXPECT_EQ("", errors);

  // In time order: n1-s0 (03 04:00:00), n1-s1 (03 04:00:30), n2-s1 (04
  // 04:00:00), n2-s0 (04 04:00:10).
  EXPECT_EQ("finished", m["ordered_by"]);
  ASSERT_EQ(4u, m["reports"].size());
  const std::vector<std::string> order = {"n1-s0.json", "n1-s1.json", "n2-s1.json", "n2-s0.json"};
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(Path(order[i]), m["reports"][i]["file"]) << i;
  // Two campaigns (the seeds), each of two shards.
  ASSERT_EQ(2u, m["campaigns"].size());
  EXPECT_EQ(20261203, m["campaigns"][0]["seed"]);
  EXPECT_EQ(json({"0/2", "1/2"}), m["campaigns"][0]["shards"]);
  EXPECT_EQ(json({0, 1}), m["campaigns"][0]["reports"]);
  EXPECT_EQ(20261204, m["campaigns"][1]["seed"]);
  EXPECT_EQ(json({"1/2", "0/2"}), m["campaigns"][1]["shards"]);
  EXPECT_EQ(json({2, 3}), m["campaigns"][1]["reports"]);
  EXPECT_EQ(1, m["reports"][3]["campaign"]);

  // A: n1-s0 (5), n1-s1 (3), n2-s0 (4): first n1-s0, last n2-s0, 3 reports, 12.
  // B: n1-s0 (2), n2-s1 (7): first n1-s0, last n2-s1, 2 reports, 9; no reproducer on night 2.
  // C: n1-s1 (1) only.
  ASSERT_EQ(3u, m["findings"].size());
  const json& a = m["findings"][0];
  const json& b = m["findings"][1];
  const json& c = m["findings"][2];
  EXPECT_EQ(kA, a["signature"]);
  EXPECT_EQ(Path("n1-s0.json"), a["first_seen"]["report"]);
  EXPECT_EQ("2026-12-03T04:00:00Z", a["first_seen"]["finished"]);
  EXPECT_EQ(Path("n2-s0.json"), a["last_seen"]["report"]);
  EXPECT_EQ("2026-12-04T04:00:10Z", a["last_seen"]["finished"]);
  EXPECT_EQ(3, a["reports"]);
  EXPECT_EQ(12, a["count"]);
  EXPECT_EQ(json({"n1/a.json", "n1/a1.json", (dir_ / "n2" / "a.json").string()}), a["reproducers"])
      << "n2/a.json exists only beside the report, so it is taken from the report's folder";
  EXPECT_EQ("1 requests, 2 tokens, 1 groups", a["shape"]);
  EXPECT_EQ(kB, b["signature"]);
  EXPECT_EQ(Path("n1-s0.json"), b["first_seen"]["report"]);
  EXPECT_EQ(Path("n2-s1.json"), b["last_seen"]["report"]);
  EXPECT_EQ(2, b["reports"]);
  EXPECT_EQ(9, b["count"]);
  EXPECT_EQ(json({"n1/b.json"}), b["reproducers"]);
  EXPECT_TRUE(b["replay_command"].is_null()) << "its last sighting wrote none";
  EXPECT_EQ(kC, c["signature"]);
  EXPECT_EQ(c["first_seen"], c["last_seen"]);
  EXPECT_EQ(Path("n1-s1.json"), c["first_seen"]["report"]);
  EXPECT_EQ(1, c["count"]);
  EXPECT_EQ(3, m["distinct_findings"]);
  EXPECT_EQ(0, m["suppressed_signatures"]);

  // The console: a line per signature, as fuzz names it, then the summary.
  const std::string text = out_.str();
  EXPECT_NE(std::string::npos,
            text.find("merge: finding 1 of 3, signature 8c100a33ff98a813: kpool_tail/prefix: null_block (kernel); "
                      "implementation slotguard; 12 findings in 3 of 4 reports, first seen " +
                      Path("n1-s0.json") + " (2026-12-03T04:00:00Z), last seen " + Path("n2-s0.json") +
                      " (2026-12-04T04:00:10Z); reproducer " + (dir_ / "n2" / "a.json").string() + "\n"))
      << text;
  EXPECT_NE(std::string::npos, text.find("merge: finding 3 of 3, signature 34d7104ec5790722: ")) << text;
  EXPECT_NE(std::string::npos,
            text.find("merge: campaign 1: fuzz seed 20261203, variant fixed, families kpool_tail, paged, qsa_ring, "
                      "backend host: 2 reports (shards 0/2, 1/2)\n"))
      << text;
  EXPECT_EQ("slotguard: merge: 3 distinct findings in 4 reports of 2 campaigns, ordered by their finished times",
            LastLine(text));
}

TEST_F(MergeTest, WithoutFinishedTimesTheArgumentsGiveTheOrder) {
  json doc = ReadJson(Path("n1-s1.json"));
  doc.erase("finished");  // a report of an older slotguard
  Write("n1-s1.json", doc);
  MergeOptions o;
  o.reports = Reports();  // n2-s1, n1-s0, n2-s0, n1-s1
  o.json_path = Path("merged.json");
  ASSERT_EQ(kExitFindings, Merge(o)) << out_.str() << err_.str();
  const json m = ReadJson(o.json_path);
  EXPECT_EQ("arguments", m["ordered_by"]);
  EXPECT_TRUE(m["reports"][3]["finished"].is_null());
  // B is first met in n2-s1, the first argument; A last in n1-s1, the last.
  ASSERT_EQ(3u, m["findings"].size());
  EXPECT_EQ(kB, m["findings"][0]["signature"]);
  EXPECT_EQ(Path("n2-s1.json"), m["findings"][0]["first_seen"]["report"]);
  EXPECT_EQ(Path("n1-s0.json"), m["findings"][0]["last_seen"]["report"]);
  EXPECT_EQ(kA, m["findings"][1]["signature"]);
  EXPECT_EQ(Path("n1-s0.json"), m["findings"][1]["first_seen"]["report"]);
  EXPECT_EQ(Path("n1-s1.json"), m["findings"][1]["last_seen"]["report"]);
  EXPECT_TRUE(m["findings"][1]["last_seen"]["finished"].is_null());
  EXPECT_NE(std::string::npos, out_.str().find("first and last seen follow the order of the arguments")) << out_.str();
}

TEST_F(MergeTest, SuppressionsCoverASignatureOnlyWhereTheyCoverEverySighting) {
  // ring: every sighting of B. kpool-small: A's 2-token reproducers, not
  // night 1 shard 1's 8-token one, so A stays. paged-big: C by family, but
  // only from 100 tokens, and C's reproducer has 1: it covers nothing.
  std::ofstream(Path("known.json")) << R"({"slotguard_suppressions": 1, "suppressions": [
    {"id": "ring", "reason": "the ring is known", "families": ["qsa_ring"]},
    {"id": "kpool-small", "reason": "small kpool batches", "families": ["kpool_tail"], "num_tokens": {"max": 4}},
    {"id": "paged-big", "reason": "big paged batches", "families": ["paged"], "num_tokens": {"min": 100}}]})";
  MergeOptions o;
  o.reports = Reports();
  o.suppressions_path = Path("known.json");
  o.json_path = Path("merged.json");
  o.sarif_path = Path("merged.sarif");
  ASSERT_EQ(kExitFindings, Merge(o)) << out_.str() << err_.str();
  const json m = ReadJson(o.json_path);
  EXPECT_EQ(2, m["distinct_findings"]);
  EXPECT_EQ(1, m["suppressed_signatures"]);
  EXPECT_TRUE(m["findings"][0]["suppressed_by"].is_null());
  EXPECT_EQ("kpool-small", m["findings"][0]["seen"][0]["suppressed_by"]);
  EXPECT_TRUE(m["findings"][0]["seen"][1]["suppressed_by"].is_null());
  EXPECT_EQ("ring", m["findings"][1]["suppressed_by"]);
  EXPECT_TRUE(m["findings"][2]["suppressed_by"].is_null());
  ASSERT_EQ(3u, m["suppressions"].size());
  EXPECT_EQ(9, m["suppressions"][0]["matched"]);
  EXPECT_EQ(false, m["suppressions"][0]["stale"]);
  EXPECT_EQ(9, m["suppressions"][1]["matched"]) << "the sightings it covers, though A stays";
  EXPECT_EQ(false, m["suppressions"][1]["stale"]);
  EXPECT_EQ(true, m["suppressions"][2]["stale"]);
  EXPECT_EQ("/suppressions/2", m["suppressions"][2]["pointer"]);
  const std::string text = out_.str();
  EXPECT_NE(std::string::npos, text.find("merge: suppressed 9 findings by 'ring' (the ring is known)\n")) << text;
  EXPECT_NE(std::string::npos, text.find("merge: stale suppression 'paged-big'")) << text;
  EXPECT_NE(std::string::npos, text.find("merge: suppressed signature ea6ab6e494e1271b: ")) << text;
  EXPECT_NE(std::string::npos, text.find("; covered by 'kpool-small' in 2 of its 3 reports only\n")) << text;
  EXPECT_NE(std::string::npos, text.find("; by 'ring' (the ring is known)\n")) << text;
  EXPECT_NE(std::string::npos, text.find("slotguard: merge: 2 distinct findings, 1 suppressed signature in 4 reports"))
      << text;

  // The SARIF log: SARIF's required structure, a result per signature,
  // fingerprinted as fuzz --sarif fingerprints them; the suppressed one a
  // note at its entry, with a SARIF suppression.
  const json sarif = ReadJson(o.sarif_path);
  const json sarif_schema = ReadJson(kSource + "/tests/report/fixtures/sarif-2.1.0-required.schema.json");
  std::string errors;
  for (const std::string& e : Errors(sarif_schema, sarif)) errors += e + "\n";
  EXPECT_EQ("", errors);
  const json& results = sarif["runs"][0]["results"];
  ASSERT_EQ(3u, results.size());
  EXPECT_EQ(kFingerprintA, results[0]["partialFingerprints"]["slotguardFinding/v1"]);
  EXPECT_EQ(kFingerprintB, results[1]["partialFingerprints"]["slotguardFinding/v1"]);
  EXPECT_EQ(kFingerprintC, results[2]["partialFingerprints"]["slotguardFinding/v1"]);
  EXPECT_EQ("slotguard/null_block", results[0]["ruleId"]);
  EXPECT_EQ("error", results[0]["level"]);
  // A at its last reproducer, n2/a.json, on the line of its group g (line 4).
  const json& at = results[0]["locations"][0]["physicalLocation"];
  EXPECT_NE(std::string::npos, at["artifactLocation"]["uri"].get<std::string>().find("n2/a.json")) << at.dump();
  EXPECT_EQ(4, at["region"]["startLine"]);
  EXPECT_EQ("/groups/1", results[0]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]);
  EXPECT_EQ("note", results[1]["level"]);
  EXPECT_EQ("ring: the ring is known", results[1]["suppressions"][0]["justification"]);
  EXPECT_NE(std::string::npos,
            results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].get<std::string>().find(
                "known.json"));
}

TEST_F(MergeTest, EverySignatureSuppressedIsExitZero) {
  std::ofstream(Path("all.json")) << R"({"slotguard_suppressions": 1, "suppressions": [
    {"id": "all", "reason": "known", "families": ["qsa_ring", "kpool_tail", "paged"]}]})";
  MergeOptions o;
  o.reports = Reports();
  o.suppressions_path = Path("all.json");
  EXPECT_EQ(kExitHolds, Merge(o)) << out_.str() << err_.str();
  EXPECT_NE(std::string::npos, out_.str().find("slotguard: merge: no finding, 3 suppressed signatures in 4 reports"))
      << out_.str();
}

TEST_F(MergeTest, WithoutAFileTheReportsOwnSuppressionsApply) {
  // B suppressed by its reports' own entry on both nights; C in one report
  // that suppresses it, A in none that does.
  json n1 = FuzzReport(1, "0/2", "2026-12-03T04:00:00Z",
                       json::array({Finding("A", 5, "1 requests, 2 tokens, 1 groups", ""),
                                    Finding("B", 2, "1 requests, 3 tokens, 1 groups", "")}));
  n1["findings"][1]["suppressed_by"] = "ring";
  n1["suppressions"] = json::array(
      {{{"id", "ring"}, {"reason", "old words"}, {"pointer", "/suppressions/0"}, {"matched", 2}, {"stale", false}}});
  json n2 = FuzzReport(1, "1/2", "2026-12-04T04:00:00Z",
                       json::array({Finding("B", 7, "1 requests, 3 tokens, 1 groups", "")}));
  n2["findings"][0]["suppressed_by"] = "ring";
  n2["suppressions"] = json::array(
      {{{"id", "ring"}, {"reason", "new words"}, {"pointer", "/suppressions/0"}, {"matched", 9}, {"stale", false}}});
  Write("own1.json", n1);
  Write("own2.json", n2);
  MergeOptions o;
  o.reports = {Path("own2.json"), Path("own1.json")};
  o.json_path = Path("merged.json");
  ASSERT_EQ(kExitFindings, Merge(o)) << out_.str() << err_.str();
  const json m = ReadJson(o.json_path);
  EXPECT_TRUE(m["suppressions_file"].is_null());
  EXPECT_TRUE(m["findings"][0]["suppressed_by"].is_null());
  EXPECT_EQ("ring", m["findings"][1]["suppressed_by"]);
  ASSERT_EQ(1u, m["suppressions"].size());
  EXPECT_EQ("new words", m["suppressions"][0]["reason"]) << "the latest report's";
  EXPECT_EQ(9, m["suppressions"][0]["matched"]);
  EXPECT_EQ(11, m["suppressions"][0]["matched_in_reports"]);
}

TEST_F(MergeTest, BadInputIsOneLineWithItsPointerAndExitTwo) {
  json missing = ReadJson(Path("n1-s0.json"));
  missing["findings"][1].erase("count");
  Write("missing.json", missing);
  json forged = ReadJson(Path("n1-s0.json"));
  forged["findings"][0]["signature"] = "0000000000000000";
  Write("forged.json", forged);
  json late = ReadJson(Path("n1-s0.json"));
  late["finished"] = "yesterday";
  Write("late.json", late);
  json wrong_text = ReadJson(Path("n1-s0.json"));
  wrong_text["findings"][0]["cause"] = "differential";
  Write("cause.json", wrong_text);
  std::ofstream(Path("check.json")) << R"({"slotguard_report": 1, "scenarios": []})";
  std::ofstream(Path("other.json")) << R"({"name": "x"})";
  std::ofstream(Path("v2.json")) << R"({"slotguard_fuzz": 2})";
  std::ofstream(Path("list.json")) << R"([1, 2])";
  std::ofstream(Path("broken.json")) << "{\"slotguard_fuzz\": 1,";
  const std::string expected = "; expected a report written by fuzz --json or prove --json";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"nope.json", Path("nope.json") + ": no such file or directory" + expected},
      {"missing.json", Path("missing.json") + ":/findings/1/count: missing required key; expected an integer"},
      {"forged.json", Path("forged.json") +
                          ":/findings/0/signature: not the signature of its text; expected 8c100a33ff98a813 (FNV-1a "
                          "of the text), got '0000000000000000'"},
      {"late.json", Path("late.json") + ":/finished: not a UTC time stamp; expected YYYY-MM-DDTHH:MM:SSZ, got 'yesterday'"},
      {"cause.json", Path("cause.json") +
                         ":/findings/0/cause: not the most specific of its invariants; expected 'null_block', got "
                         "'differential'"},
      {"check.json", Path("check.json") + ":/slotguard_report: a check report, whose scenarios have no signatures to merge" +
                         expected},
      {"other.json", Path("other.json") + ":/: not a campaign report: neither slotguard_fuzz nor slotguard_prove" + expected},
      {"v2.json", Path("v2.json") + ":/slotguard_fuzz: an unknown version of the fuzz report; expected 1, got 2"},
      {"list.json", Path("list.json") + ":/: wrong type" + expected + " (an object), got an array of 2 elements"},
  };
  for (const auto& [name, line] : cases) {
    MergeOptions o;
    o.reports = {Path("n1-s0.json"), Path(name)};
    EXPECT_EQ(kExitBadInput, Merge(o)) << name;
    EXPECT_EQ("slotguard: error: " + line + "\n", err_.str()) << name;
    EXPECT_EQ("", out_.str()) << name;
  }
  // Not JSON: where, and what was expected.
  MergeOptions o;
  o.reports = {Path("broken.json")};
  EXPECT_EQ(kExitBadInput, Merge(o));
  const std::string line = err_.str();
  EXPECT_EQ(0u, line.rfind("slotguard: error: " + Path("broken.json") + ": invalid JSON at line 1, column ", 0)) << line;
  EXPECT_NE(std::string::npos, line.find(expected + "\n")) << line;
  EXPECT_EQ(1, std::count(line.begin(), line.end(), '\n')) << line;
}

// Real reports: two shards of one fuzz campaign with a planted bug, merged.
// Their signatures are the shards' own, once each, and the merged SARIF
// fingerprints are those of the shards' SARIF logs: an alert keeps its
// identity from the shards' logs to the merged one.
TEST(MergeRealReportsTest, TheShardsOfACampaignMergeIntoTheirSignatures) {
  const std::filesystem::path dir = ScratchDir();
  std::set<std::string> ids, fingerprints;
  std::vector<std::string> jsons;
  for (int shard = 0; shard < 2; ++shard) {
    FuzzOptions f;
    f.backend = BackendKind::kHost;
    f.families = {"kpool_tail"};
    f.settings.variant = "prefix";
    f.settings.runs = 200;
    f.settings.keep_going = true;
    f.shard = std::to_string(shard) + "/2";
    f.settings.out_dir = (dir / ("findings-" + std::to_string(shard))).string();
    f.json_path = (dir / ("fuzz-" + std::to_string(shard) + ".json")).string();
    f.sarif_path = (dir / ("fuzz-" + std::to_string(shard) + ".sarif")).string();
    std::ostringstream out, err;
    ASSERT_EQ(kExitFindings, RunFuzz(f, out, err)) << out.str() << err.str();
    jsons.push_back(f.json_path);
    const json report = ReadJson(f.json_path);
    EXPECT_TRUE(report["finished"].is_string());
    EXPECT_EQ(json({"kpool_tail"}), report["families"]);
    for (const json& finding : report["findings"]) ids.insert(finding["signature"].get<std::string>());
    for (const json& r : ReadJson(f.sarif_path)["runs"][0]["results"])
      fingerprints.insert(r["partialFingerprints"]["slotguardFinding/v1"].get<std::string>());
  }
  MergeOptions o;
  o.reports = jsons;
  o.json_path = (dir / "merged.json").string();
  o.sarif_path = (dir / "merged.sarif").string();
  std::ostringstream out, err;
  ASSERT_EQ(kExitFindings, RunMerge(o, out, err)) << out.str() << err.str();
  const json m = ReadJson(o.json_path);
  std::set<std::string> merged_ids, merged_fingerprints;
  for (const json& finding : m["findings"]) EXPECT_TRUE(merged_ids.insert(finding["signature"].get<std::string>()).second);
  EXPECT_EQ(ids, merged_ids);
  ASSERT_EQ(1u, m["campaigns"].size());
  EXPECT_EQ(json({"0/2", "1/2"}), m["campaigns"][0]["shards"]);
  for (const json& r : ReadJson(o.sarif_path)["runs"][0]["results"])
    merged_fingerprints.insert(r["partialFingerprints"]["slotguardFinding/v1"].get<std::string>());
  EXPECT_EQ(fingerprints, merged_fingerprints);
}

// Real prove reports: two shards of the small scope over a planted bug, one
// campaign (the scope), its signature met in both.
TEST(MergeRealReportsTest, TheShardsOfAProofMergeAsOneCampaign) {
  const std::filesystem::path dir = ScratchDir();
  std::vector<std::string> jsons;
  for (int shard = 0; shard < 2; ++shard) {
    ProveOptions p;
    p.scope = "small";
    p.families = {"kpool_tail"};
    p.settings.variant = "prefix";
    p.backend = BackendKind::kHost;
    p.shard = std::to_string(shard) + "/2";
    p.settings.out_dir = (dir / ("proof-" + std::to_string(shard))).string();
    p.json_path = (dir / ("prove-" + std::to_string(shard) + ".json")).string();
    std::ostringstream out, err;
    ASSERT_EQ(kExitFindings, RunProve(p, out, err)) << out.str() << err.str();
    jsons.push_back(p.json_path);
  }
  MergeOptions o;
  o.reports = jsons;
  o.json_path = (dir / "merged.json").string();
  std::ostringstream out, err;
  ASSERT_EQ(kExitFindings, RunMerge(o, out, err)) << out.str() << err.str();
  const json m = ReadJson(o.json_path);
  ASSERT_EQ(1u, m["campaigns"].size());
  EXPECT_EQ("prove", m["campaigns"][0]["kind"]);
  EXPECT_EQ("small", m["campaigns"][0]["scope"]);
  EXPECT_EQ(json({"0/2", "1/2"}), m["campaigns"][0]["shards"]);
  ASSERT_EQ(1u, m["findings"].size());
  EXPECT_EQ(kA, m["findings"][0]["signature"]) << "kpool_tail/prefix: null_block (kernel); implementation slotguard";
  EXPECT_EQ(2, m["findings"][0]["reports"]);
}

}  // namespace
}  // namespace slotguard
