// check's --json report against docs/report.schema.json: a REAL report (check
// over scenarios/ plus a malformed file and a failing one), validated by a
// small validator of the keywords the schema uses (type, required,
// properties, items, enum, additionalProperties; no JSON Schema library).
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "report/report.h"
#include "testing/json_schema.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

using nlohmann::json;

const std::string kSource = SLOTGUARD_SOURCE_DIR;

class ReportSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ScratchDir() / "report-schema";
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "extra");
    std::ofstream(dir_ / "extra" / "malformed.json") << "{\"slotguard\": 1, \"name\": ";
    // A mutant without its expect: a pass expected, findings fire.
    json doc = ReadJson(kSource + "/scenarios/paged/mutants/pad-from-n.json");
    doc.erase("expect");
    std::ofstream(dir_ / "extra" / "failing.json") << doc.dump();
    schema_ = ReadJson(kSource + "/docs/report.schema.json");
  }

  json CheckReport() {
    CheckOptions o;
    o.paths = {kSource + "/scenarios", (dir_ / "extra").string()};
    o.backend = BackendKind::kHost;
    o.json_path = (dir_ / "r.json").string();
    o.quiet = true;
    std::ostringstream out, err;
    // A failing scenario beside a bad file: findings win (docs/cli.md, exit codes).
    EXPECT_EQ(kExitFindings, RunCheck(o, out, err)) << out.str() << err.str();
    return ReadJson(o.json_path);
  }

  std::filesystem::path dir_;
  json schema_;
};

TEST_F(ReportSchemaTest, TheSchemaUsesOnlyTheValidatedKeywords) { KeywordsKnown(schema_, ""); }

TEST_F(ReportSchemaTest, ARealReportValidates) {
  const json report = CheckReport();
  const std::vector<std::string> errors = Errors(schema_, report);
  std::string text;
  for (const std::string& e : errors) text += e + "\n";
  EXPECT_TRUE(errors.empty()) << text;

  // It covers what it should: each kind of entry, and the summary agrees.
  std::map<std::string, int64_t> outcomes;
  std::set<std::set<std::string>> shapes;
  int64_t findings = 0;
  for (const json& s : report["scenarios"]) {
    ++outcomes[s["outcome"].get<std::string>()];
    std::set<std::string> keys;
    for (const auto& [key, value] : s.items()) keys.insert(key);
    shapes.insert(keys);
    if (!s["total_findings"].is_null()) findings += s["total_findings"].get<int64_t>();
    if (s["file"].get<std::string>().find("malformed.json") != std::string::npos) {
      EXPECT_EQ("bad_input", s["outcome"]);
      EXPECT_TRUE(s["holds"].is_null());
      EXPECT_TRUE(s["error"].is_string());
      EXPECT_EQ(json::array(), s["groups"]);
    }
    if (s["file"].get<std::string>().find("failing.json") != std::string::npos) {
      EXPECT_EQ("unexpected_findings", s["outcome"]);
    }
  }
  EXPECT_EQ(1u, shapes.size()) << "every scenario entry has the same keys";
  EXPECT_EQ(1, outcomes["bad_input"]);
  EXPECT_EQ(1, outcomes["unexpected_findings"]);
  EXPECT_GT(outcomes["pass"], 0);
  EXPECT_GT(outcomes["expected_finding"], 0);
  const json& summary = report["summary"];
  EXPECT_EQ(kSlotguardVersion, summary["slotguard_version"]);
  EXPECT_EQ("host", summary["backend"]);
  EXPECT_EQ(report["scenarios"].size(), summary["scenario_runs"].get<size_t>());
  EXPECT_EQ(1, summary["bad_input"]);
  EXPECT_EQ(1, summary["fail"]);
  EXPECT_EQ(outcomes["pass"] + outcomes["expected_finding"], summary["hold"].get<int64_t>());
  for (const auto& [outcome, count] : summary["outcomes"].items()) EXPECT_EQ(outcomes[outcome], count) << outcome;
  EXPECT_EQ(findings, summary["findings"].get<int64_t>());
  int64_t per_invariant = 0;
  for (const auto& [name, count] : summary["findings_per_invariant"].items()) per_invariant += count.get<int64_t>();
  EXPECT_EQ(findings, per_invariant);
  EXPECT_GT(summary["findings_per_invariant"].value("padding_tail", 0), 0);
  EXPECT_EQ(false, report["all_hold"]);
  EXPECT_EQ(kSlotguardVersion, report["slotguard_version"]);
}

TEST_F(ReportSchemaTest, TheValidatorRejectsWhatTheSchemaForbids) {
  const json report = CheckReport();
  ASSERT_TRUE(Errors(schema_, report).empty());
  json missing = report;
  missing["scenarios"][0].erase("outcome");
  EXPECT_EQ(std::vector<std::string>{"/scenarios/0: no outcome"}, Errors(schema_, missing));
  json extra = report;
  extra["summary"]["surprise"] = 1;
  EXPECT_EQ(std::vector<std::string>{"/summary/surprise: not allowed"}, Errors(schema_, extra));
  json wrong = report;
  wrong["scenarios"][0]["outcome"] = "fine";
  EXPECT_EQ(1u, Errors(schema_, wrong).size());
  json typed = report;
  typed["summary"]["findings_per_invariant"]["x"] = "many";
  EXPECT_EQ(std::vector<std::string>{"/summary/findings_per_invariant/x: not of type \"integer\""},
            Errors(schema_, typed));
}

// fuzz's --json report against docs/fuzz-report.schema.json: REAL reports,
// one of each kind: a clean campaign, one that stops at its finding, and a
// --keep-going campaign over two planted bugs with --inconsistent batches,
// a suppressions file and a regressions folder (replayed, then added to).
TEST(FuzzReportSchemaTest, RealReportsValidate) {
  const json schema = ReadJson(kSource + "/docs/fuzz-report.schema.json");
  KeywordsKnown(schema, "");
  const std::filesystem::path dir = ScratchDir() / "fuzz-report-schema";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "regs");
  std::filesystem::copy(kSource + "/scenarios/paged/decode.json", dir / "regs" / "decode.json");
  std::ofstream(dir / "known.json") << R"({"slotguard_suppressions": 1, "suppressions": [
      {"id": "kpool", "reason": "known", "families": ["kpool_tail"]}, {"id": "stale", "reason": "x", "families": ["paged"]}]})";
  std::vector<FuzzOptions> runs(3);
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i].backend = BackendKind::kHost;
    runs[i].settings.runs = 300;
    runs[i].settings.out_dir = (dir / ("out" + std::to_string(i))).string();
    runs[i].json_path = (dir / ("f" + std::to_string(i) + ".json")).string();
  }
  runs[1].settings.variant = "prefix";
  runs[2].settings.variant = "prefix";
  runs[2].settings.keep_going = true;
  runs[2].generator.inconsistent = true;
  runs[2].shard = "0/2";
  runs[2].suppressions_path = (dir / "known.json").string();
  runs[2].regressions = (dir / "regs").string();
  for (size_t i = 0; i < runs.size(); ++i) {
    std::ostringstream out, err;
    EXPECT_EQ(i == 0 ? kExitHolds : kExitFindings, RunFuzz(runs[i], out, err)) << out.str() << err.str();
    const json report = ReadJson(runs[i].json_path);
    std::string text;
    for (const std::string& e : Errors(schema, report)) text += e + "\n";
    EXPECT_TRUE(text.empty()) << "run " << i << ":\n" << text;
    EXPECT_EQ(kSlotguardVersion, report["slotguard_version"]);
    // When it ended, in UTC, to the second (slotguard merge orders nights by it).
    EXPECT_TRUE(std::regex_match(report["finished"].get<std::string>(),
                                 std::regex("20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]Z")))
        << report["finished"];
  }
  // The families generated: every family with a kernel of slotguard's own (none named).
  EXPECT_EQ(json({"paged", "kpool_tail", "qsa_ring", "qsa_compressed", "compressor_ring"}),
            ReadJson(runs[0].json_path)["families"]);
  const json kept = ReadJson(runs[2].json_path);
  EXPECT_GT(kept["findings"].size(), 1u);
  EXPECT_FALSE(kept["regressions"]["added"].empty());
  EXPECT_EQ("pass", kept["regressions"]["replayed"][0]["outcome"]);
  EXPECT_TRUE(kept.contains("runner_state_findings"));
  EXPECT_TRUE(ReadJson(runs[0].json_path)["regressions"].is_null());
  // The validator sees what the schema forbids.
  json extra = kept;
  extra["findings"][0]["surprise"] = 1;
  EXPECT_EQ(std::vector<std::string>{"/findings/0/surprise: not allowed"}, Errors(schema, extra));
}

}  // namespace
}  // namespace slotguard
