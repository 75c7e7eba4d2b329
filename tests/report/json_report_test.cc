// The one JSON writer (report/json_report.cc): the exact bytes of check's
// and fuzz's --json documents, and a path that cannot be written.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "report/fuzz_report.h"
#include "report/report.h"

namespace slotguard {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string Temp(const std::string& name) { return (std::filesystem::path(::testing::TempDir()) / name).string(); }

TEST(JsonReportTest, CheckReportBytes) {
  ScenarioReport ok;
  ok.file = "a.json";
  ok.name = "a";
  ok.holds = true;
  ok.expect_finding = true;
  ok.expected_invariants = {"null_block"};
  ok.total_findings = 2;
  ok.verdict = "expected finding caught (null_block)";
  ok.tokens = 3;
  ok.seconds = 0.5;
  GroupReport g;
  g.name = "attn";
  g.counts = {{"null_block", 2}};
  Finding f;
  f.invariant = "null_block";
  f.output = "attn";
  f.token = 3;
  f.request = 1;
  f.position = 0;
  f.has_values = true;
  f.kernel = 0;
  f.reference = -1;
  f.detail = "slot 0 is in block 0";
  g.findings = {f};
  ok.groups = {g};
  ScenarioReport bad;
  bad.file = "b.json";
  bad.status = ScenarioStatus::kBadInput;
  bad.error = "b.json: not JSON";
  CheckSummary summary;
  summary.backend = "host";
  summary.seconds = 1.25;
  const std::string expected = R"json({
  "slotguard_report": 1,
  "backend": "host",
  "seconds": 1.25,
  "all_hold": false,
  "summary": {
    "slotguard_version": ")json" + std::string(kSlotguardVersion) + R"json(",
    "backend": "host",
    "device": null,
    "implementation": null,
    "seconds": 1.25,
    "scenario_runs": 2,
    "hold": 1,
    "fail": 0,
    "skipped": 0,
    "bad_input": 1,
    "environment_error": 0,
    "outcomes": {
      "pass": 0,
      "expected_finding": 1,
      "unexpected_findings": 0,
      "missing_expected": 0,
      "skipped": 0,
      "bad_input": 1,
      "environment_error": 0
    },
    "groups": 1,
    "tokens": 3,
    "findings": 2,
    "expected_findings": 2,
    "unexpected_findings": 0,
    "findings_per_invariant": {
      "null_block": 2
    }
  },
  "scenarios": [
    {
      "file": "a.json",
      "name": "a",
      "variant": null,
      "status": "checked",
      "outcome": "expected_finding",
      "holds": true,
      "verdict": "expected finding caught (null_block)",
      "error": null,
      "expected": "finding",
      "expected_invariants": [
        "null_block"
      ],
      "tokens": 3,
      "total_findings": 2,
      "seconds": 0.5,
      "groups": [
        {
          "name": "attn",
          "kernel": "paged",
          "variant": "fixed",
          "counts": {
            "null_block": 2
          },
          "findings": [
            {
              "invariant": "null_block",
              "output": "attn",
              "token": 3,
              "request": 1,
              "position": 0,
              "kernel": 0,
              "reference": -1,
              "detail": "slot 0 is in block 0"
            }
          ]
        }
      ]
    },
    {
      "file": "b.json",
      "name": "",
      "variant": null,
      "status": "bad_input",
      "outcome": "bad_input",
      "holds": null,
      "verdict": null,
      "error": "b.json: not JSON",
      "expected": null,
      "expected_invariants": [],
      "tokens": null,
      "total_findings": null,
      "seconds": 0.0,
      "groups": []
    }
  ]
}
)json";
  EXPECT_EQ(expected, CheckJson({ok, bad}, summary));
  std::string err;
  ASSERT_TRUE(WriteJsonReport(Temp("check.json"), {ok, bad}, summary, &err)) << err;
  EXPECT_EQ(expected, Read(Temp("check.json")));
}

TEST(JsonReportTest, FuzzReportBytes) {
  FuzzReport r;
  r.seed = 3;
  r.backend = "gpu";
  r.max_requests = 64;
  r.scenarios = 8;
  r.tokens = 100;
  r.seconds = 2;
  r.generate_seconds = 0.5;
  r.kernel_seconds = 0.25;
  r.check_seconds = 1;
  r.classes = {{"decode", 5}, {"dcp", 1}};
  EXPECT_EQ(R"({
  "slotguard_fuzz": 1,
  "seed": 3,
  "backend": "gpu",
  "variant": "fixed",
  "max_requests": 64,
  "scenarios": 8,
  "token_groups": 100,
  "seconds": 2.0,
  "scenarios_per_second": 4.0,
  "phase_seconds": {
    "generate": 0.5,
    "kernels": 0.25,
    "check": 1.0
  },
  "classification": {
    "dcp": 1,
    "decode": 5
  },
  "found": false
}
)",
            FuzzJson(r));
  r.kernel_seconds = 0;  // not batched: no phases
  r.variant = "prefix";
  r.found = true;
  r.file = "out/x.json";
  r.invariant = "null_block";
  r.fired = {"null_block", "own_block"};
  r.finding_index = 7;
  const std::string expected = R"({
  "slotguard_fuzz": 1,
  "seed": 3,
  "backend": "gpu",
  "variant": "prefix",
  "max_requests": 64,
  "scenarios": 8,
  "token_groups": 100,
  "seconds": 2.0,
  "scenarios_per_second": 4.0,
  "classification": {
    "dcp": 1,
    "decode": 5
  },
  "found": true,
  "file": "out/x.json",
  "invariant": "null_block",
  "fired": [
    "null_block",
    "own_block"
  ],
  "scenario_index": 7
}
)";
  EXPECT_EQ(expected, FuzzJson(r));
  std::string err;
  ASSERT_TRUE(WriteFuzzJson(Temp("fuzz.json"), r, &err)) << err;
  EXPECT_EQ(expected, Read(Temp("fuzz.json")));
}

TEST(JsonReportTest, APathThatCannotBeWritten) {
  const std::string path = Temp("no-such-dir/r.json");
  std::string err;
  EXPECT_FALSE(WriteJsonReport(path, {}, CheckSummary(), &err));
  EXPECT_EQ(path + ": cannot write the JSON report", err);
  err.clear();
  EXPECT_FALSE(WriteFuzzJson(path, FuzzReport(), &err));
  EXPECT_EQ(path + ": cannot write the JSON report", err);
}

}  // namespace
}  // namespace slotguard
