// check --sarif: SARIF 2.1.0 from the same reports as JUnit and JSON. The
// log has SARIF's required structure (validated against its transcription,
// tests/report/fixtures/sarif-2.1.0-required.schema.json), a rule per
// invariant, results at the scenario file and a JSON pointer, and
// fingerprints that identify the finding, not the run.
#include <filesystem>
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
    std::ofstream(dir_ / "extra" / "malformed.json") << "{\"slotguard\": 1, \"name\": \"m\", \"num_blocks\": 0}";
    // A mutant without its expect: findings fire where a pass is expected.
    json doc = ReadJson(kSource + "/scenarios/paged/mutants/pad-from-n.json");
    doc.erase("expect");
    std::ofstream(dir_ / "extra" / "failing.json") << doc.dump();
  }
  json Sarif(int jobs, const std::string& name) {
    CheckOptions o;
    o.paths = {kSource + "/scenarios", (dir_ / "extra").string()};
    o.backend = BackendKind::kHost;
    o.jobs = jobs;
    o.sarif_path = (dir_ / name).string();
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

TEST_F(SarifTest, ARulePerInvariantAndAResultPerUnexpectedFinding) {
  const json log = Sarif(1, "a.sarif");
  const json& run = log["runs"][0];
  std::set<std::string> rules;
  for (const json& r : run["tool"]["driver"]["rules"]) EXPECT_TRUE(rules.insert(r["id"].get<std::string>()).second);
  for (const InvariantInfo& info : AllInvariants()) {
    EXPECT_TRUE(rules.count(std::string("slotguard/") + info.name)) << info.name;
  }
  std::map<std::string, int> by_rule;
  for (const json& res : run["results"]) {
    const std::string rule = res["ruleId"];
    EXPECT_TRUE(rules.count(rule)) << rule;
    ++by_rule[rule];
    const json& location = res["locations"][0];
    const std::string uri = location["physicalLocation"]["artifactLocation"]["uri"];
    EXPECT_TRUE(std::filesystem::exists(uri)) << "located at the scenario file: " << uri;
    EXPECT_EQ(std::string::npos, uri.find("/src/")) << "never at slotguard's own source";
    EXPECT_FALSE(res["message"]["text"].get<std::string>().empty());
    if (uri.find("failing.json") != std::string::npos) {
      EXPECT_EQ("/groups/0", location["logicalLocations"][0]["fullyQualifiedName"]) << res.dump();
    }
    if (uri.find("malformed.json") != std::string::npos) {
      EXPECT_EQ("slotguard/bad-input", rule);
      EXPECT_EQ("/num_blocks", location["logicalLocations"][0]["fullyQualifiedName"]) << res.dump();
    }
  }
  // The failing mutant: pad_from_n's findings, padding_tail among them,
  // each (group, invariant) once; the malformed file once; every curated
  // scenario holds, so nothing else.
  EXPECT_EQ(1, by_rule["slotguard/bad-input"]);
  EXPECT_EQ(1, by_rule["slotguard/padding_tail"]);
  EXPECT_EQ(0, by_rule["slotguard/expected-finding-missing"]);
  int from_failing = 0;
  for (const json& res : run["results"])
    from_failing += res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].get<std::string>().find(
                        "failing.json") != std::string::npos;
  EXPECT_EQ(static_cast<int>(run["results"].size()) - 1, from_failing);
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
    o.variant = "prefix";
    o.runs = 1000;
    o.seed = seed;
    o.out_dir = (dir_ / ("fuzz" + std::to_string(seed))).string();
    o.sarif_path = (dir_ / ("fuzz" + std::to_string(seed) + ".sarif")).string();
    std::ostringstream out, err;
    ASSERT_EQ(kExitFindings, RunFuzz(o, out, err)) << out.str() << err.str();
    const json log = ReadJson(o.sarif_path);
    EXPECT_TRUE(Errors(schema, log).empty());
    const json& results = log["runs"][0]["results"];
    ASSERT_EQ(1u, results.size());
    const std::string uri = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    EXPECT_EQ(0u, uri.find(o.out_dir)) << uri;
    EXPECT_TRUE(std::filesystem::exists(uri));
    EXPECT_EQ(0u, results[0]["ruleId"].get<std::string>().find("slotguard/"));
    fingerprints.push_back(results[0]["partialFingerprints"]["slotguardFinding/v1"]);
  }
  EXPECT_EQ(fingerprints[0], fingerprints[1]);
  FuzzOptions fixed;
  fixed.backend = BackendKind::kHost;
  fixed.runs = 200;
  fixed.out_dir = (dir_ / "fixed").string();
  fixed.sarif_path = (dir_ / "fixed.sarif").string();
  std::ostringstream out, err;
  ASSERT_EQ(kExitHolds, RunFuzz(fixed, out, err)) << out.str() << err.str();
  EXPECT_EQ(0u, ReadJson(fixed.sarif_path)["runs"][0]["results"].size());
}

}  // namespace
}  // namespace slotguard
