// check --sarif: SARIF 2.1.0 from the same reports as JUnit and JSON. The
// log has SARIF's required structure (validated against its transcription,
// tests/report/fixtures/sarif-2.1.0-required.schema.json), a rule per
// invariant with its help, one result per cause (a failing scenario's
// group) at the scenario file relative to --sarif-root, on the group's
// line, and fingerprints that identify the finding, not the run.
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "registry/invariants.h"
#include "testing/json_schema.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

const std::string kSource = SLOTGUARD_SOURCE_DIR;

class SarifTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ScratchDir() / "sarif";
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "extra");
    std::ofstream(dir_ / "extra" / "malformed.json") << "{\"slotguard\": 1, \"name\": \"m\",\n \"num_blocks\": 0}";
    // pad-from-n's mutant without its expect, in two groups, and a third
    // group that holds: findings fire where a pass is expected, in groups 0
    // and 1 (lines 4 and 5).
    std::ofstream(dir_ / "extra" / "failing.json") << R"({"slotguard": 1, "name": "failing", "num_blocks": 16,
  "batch": {"query_start_loc": [0, 2, 3], "seq_lens": [32, 1], "num_tokens": 8},
  "groups": [
    {"name": "attn", "kernel": "paged", "variant": "pad_from_n", "block_size": 16, "block_table": [[4, 6], [9, 0]]},
    {"name": "attn2", "kernel": "paged", "variant": "pad_from_n", "block_size": 16, "block_table": [[4, 6], [9, 0]]},
    {"name": "fine", "kernel": "paged", "block_size": 16, "block_table": [[4, 6], [9, 0]]}
  ]})";
  }
  json Sarif(int jobs, const std::string& name) {
    CheckOptions o;
    o.paths = {kSource + "/scenarios", (dir_ / "extra").string()};
    o.backend = BackendKind::kHost;
    o.jobs = jobs;
    o.sarif_path = (dir_ / name).string();
    o.sarif_root = dir_.string();
    o.quiet = true;
    std::ostringstream out, err;
    EXPECT_EQ(kExitFindings, RunCheck(o, out, err)) << out.str() << err.str();
    return ReadJson(o.sarif_path);
  }
  std::filesystem::path dir_;
};

TEST_F(SarifTest, TheLogHasSarifsRequiredStructure) {
  const json schema = ReadJson(kSource + "/tests/report/fixtures/sarif-2.1.0-required.schema.json");
  KeywordsKnown(schema, "");
  const json log = Sarif(1, "a.sarif");
  std::string text;
  for (const std::string& e : Errors(schema, log)) text += e + "\n";
  EXPECT_TRUE(text.empty()) << text;
  ASSERT_EQ(1u, log["runs"].size());
  EXPECT_EQ("slotguard", log["runs"][0]["tool"]["driver"]["name"]);
}

TEST_F(SarifTest, ARulePerInvariantAndAResultPerCause) {
  const json log = Sarif(1, "a.sarif");
  const json& run = log["runs"][0];
  std::set<std::string> rules;
  for (const json& r : run["tool"]["driver"]["rules"]) {
    EXPECT_TRUE(rules.insert(r["id"].get<std::string>()).second);
    EXPECT_FALSE(r["help"]["text"].get<std::string>().empty()) << r.dump();
  }
  for (const InvariantInfo& info : AllInvariants()) {
    EXPECT_TRUE(rules.count(std::string("slotguard/") + info.name)) << info.name;
  }
  // Every URI is relative to --sarif-root, the folder the base id names.
  EXPECT_EQ("file://" + dir_.string() + "/", run["originalUriBaseIds"]["%SRCROOT%"]["uri"]);
  std::vector<std::string> where;
  for (const json& res : run["results"]) {
    const std::string rule = res["ruleId"];
    EXPECT_TRUE(rules.count(rule)) << rule;
    const json& location = res["locations"][0];
    const json& artifact = location["physicalLocation"]["artifactLocation"];
    EXPECT_EQ("%SRCROOT%", artifact["uriBaseId"]) << res.dump();
    const std::string uri = artifact["uri"];
    EXPECT_TRUE(std::filesystem::exists(dir_ / uri)) << "located at the scenario file: " << uri;
    where.push_back(rule + " " + uri + ":" + std::to_string(location["physicalLocation"]["region"]["startLine"].get<int>()) +
                    " " + location["logicalLocations"][0]["fullyQualifiedName"].get<std::string>());
  }
  // pad_from_n leaves the padding tokens 2..7 at slot 0: the cause is
  // null_block (the most specific of what fires), one result per failing
  // group on its own line; the malformed file once, on the line of its
  // bad value; every curated scenario holds, so nothing else.
  std::sort(where.begin(), where.end());
  EXPECT_EQ((std::vector<std::string>{"slotguard/bad-input extra/malformed.json:2 /num_blocks",
                                      "slotguard/null_block extra/failing.json:4 /groups/0",
                                      "slotguard/null_block extra/failing.json:5 /groups/1"}),
            where);
  for (const json& res : run["results"])
    if (res["ruleId"] == "slotguard/null_block")
      EXPECT_NE(std::string::npos, res["message"]["text"].get<std::string>().find(
                                       ": padding wrote slot 0 of block 0 (tokens 3-7); reference PAD; paged, variant "
                                       "pad_from_n; fired differential, null_block, own_block, padding_tail"))
          << res.dump();
}

// The curated scenarios with the kpool/ring `prefix` variant forced: a
// result per failing (scenario, group), the same count as the JSON report's
// groups with unexpected findings, each at the scenario's path relative to
// the repository (the default root) and on the line where its group starts.
TEST_F(SarifTest, OneResultPerFailingGroupAtItsLineInTheRepository) {
  CheckOptions o;
  o.paths = {"scenarios/"};
  o.backend = BackendKind::kHost;
  o.variant = "prefix";
  o.sarif_path = (dir_ / "prefix.sarif").string();
  o.json_path = (dir_ / "prefix.json").string();
  o.quiet = true;
  std::ostringstream out, err;
  ASSERT_EQ(kExitFindings, RunCheck(o, out, err)) << out.str() << err.str();
  const json report = ReadJson(o.json_path);
  size_t failing_groups = 0;
  for (const json& sc : report["scenarios"])
    if (sc["outcome"] == "unexpected_findings")
      for (const json& g : sc["groups"]) failing_groups += !g["counts"].empty();
  const json log = ReadJson(o.sarif_path);
  const json& results = log["runs"][0]["results"];
  size_t causes = 0;
  for (const json& res : results) {
    if (res["ruleId"] == "slotguard/expected-finding-missing") continue;
    ++causes;
    const json& physical = res["locations"][0]["physicalLocation"];
    const std::string uri = physical["artifactLocation"]["uri"];
    EXPECT_EQ(0u, uri.find("scenarios/")) << uri;
    EXPECT_EQ("%SRCROOT%", physical["artifactLocation"]["uriBaseId"]);
    // The group's line: where its object starts, the line that names it
    // (or the one before, a "{" alone).
    const std::string pointer = res["locations"][0]["logicalLocations"][0]["fullyQualifiedName"];
    const size_t g = std::stoul(pointer.substr(pointer.rfind('/') + 1));
    const std::string group = ReadJson(uri)["groups"][g]["name"];
    std::ifstream in(uri);
    std::string line;
    int at = 0, named = 0;
    while (std::getline(in, line) && !named) {
      ++at;
      if (line.find("\"name\": \"" + group + "\"") != std::string::npos && at > 3) named = at;
    }
    const int start = physical["region"]["startLine"];
    EXPECT_TRUE(start == named || start == named - 1) << uri << " group " << group << ": line " << start << ", named on " << named;
  }
  EXPECT_EQ(failing_groups, causes);
  EXPECT_GT(causes, 5u);
}

// Code scanning matches alerts across runs by partialFingerprints: the same
// findings give the same fingerprints whatever --jobs, and two results never
// share one.
TEST_F(SarifTest, FingerprintsIdentifyTheFindingNotTheRun) {
  const json a = Sarif(1, "a.sarif"), b = Sarif(3, "b.sarif");
  std::set<std::string> fa, fb;
  for (const json& res : a["runs"][0]["results"])
    EXPECT_TRUE(fa.insert(res["partialFingerprints"]["slotguardFinding/v1"].get<std::string>()).second);
  for (const json& res : b["runs"][0]["results"])
    fb.insert(res["partialFingerprints"]["slotguardFinding/v1"].get<std::string>());
  EXPECT_EQ(fa, fb);
  EXPECT_GT(fa.size(), 1u);
}

// fuzz --sarif: the campaign's finding at its reproducer file. Two seeds
// that find the same bug (kpool_tail's prefix) give one fingerprint: it
// is the finding's signature, not the seed or the index that found it. A
// campaign without a finding has no result.
TEST_F(SarifTest, AFuzzFindingIsFingerprintedByItsSignature) {
  const json schema = ReadJson(kSource + "/tests/report/fixtures/sarif-2.1.0-required.schema.json");
  std::vector<std::string> fingerprints;
  for (uint64_t seed : {1, 2}) {
    FuzzOptions o;
    o.backend = BackendKind::kHost;
    o.settings.variant = "prefix";
    o.settings.runs = 1000;
    o.settings.seed = seed;
    o.settings.out_dir = (dir_ / ("fuzz" + std::to_string(seed))).string();
    o.sarif_path = (dir_ / ("fuzz" + std::to_string(seed) + ".sarif")).string();
    o.sarif_root = dir_.string();
    std::ostringstream out, err;
    ASSERT_EQ(kExitFindings, RunFuzz(o, out, err)) << out.str() << err.str();
    const json log = ReadJson(o.sarif_path);
    EXPECT_TRUE(Errors(schema, log).empty());
    const json& results = log["runs"][0]["results"];
    ASSERT_EQ(1u, results.size());
    const std::string uri = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    EXPECT_EQ("fuzz" + std::to_string(seed) + "/fuzz-prefix-null_block-", uri.substr(0, 29)) << uri;
    EXPECT_EQ("%SRCROOT%", results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"]);
    EXPECT_TRUE(std::filesystem::exists(dir_ / uri));
    EXPECT_EQ("slotguard/null_block", results[0]["ruleId"]);
    // The message says how to reproduce it.
    EXPECT_NE(std::string::npos,
              results[0]["message"]["text"].get<std::string>().find(
                  "reproduce it with: slotguard replay --backend host " + o.settings.out_dir + "/fuzz-prefix-"))
        << results[0].dump();
    fingerprints.push_back(results[0]["partialFingerprints"]["slotguardFinding/v1"]);
  }
  EXPECT_EQ(fingerprints[0], fingerprints[1]);
  FuzzOptions fixed;
  fixed.backend = BackendKind::kHost;
  fixed.settings.runs = 200;
  fixed.settings.out_dir = (dir_ / "fixed").string();
  fixed.sarif_path = (dir_ / "fixed.sarif").string();
  std::ostringstream out, err;
  ASSERT_EQ(kExitHolds, RunFuzz(fixed, out, err)) << out.str() << err.str();
  EXPECT_EQ(0u, ReadJson(fixed.sarif_path)["runs"][0]["results"].size());
}

}  // namespace
}  // namespace slotguard
