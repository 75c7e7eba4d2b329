// The one JSON writer (report/json_report.cc): the exact bytes of check's
// and fuzz's --json documents, and a path that cannot be written.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/fuzz_report.h"
#include "util/fingerprint.h"
#include "report/report.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string Temp(const std::string& name) { return ScratchPath(name); }

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
  ok.fired = {"null_block"};
  ok.signature.implementation = "slotguard";
  ok.signature.families = {"paged"};
  ok.signature.variants = {"unguarded"};
  ok.signature.invariants = {"null_block"};
  ok.signature.shape = "2 requests, 3 tokens, 1 groups";
  GroupReport g;
  g.name = "attn";
  g.counts = {{"null_block", 2}};
  g.null_block = NullBlockEffect::kHazard;  // null_block without the writers
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
  "slotguard_version": ")json" + std::string(kSlotguardVersion) + R"json(",
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
    "suppressed": 0,
    "skipped": 0,
    "bad_input": 1,
    "environment_error": 0,
    "outcomes": {
      "pass": 0,
      "expected_finding": 1,
      "unexpected_findings": 0,
      "missing_expected": 0,
      "suppressed": 0,
      "skipped": 0,
      "bad_input": 1,
      "environment_error": 0
    },
    "groups": 1,
    "tokens": 3,
    "findings": 2,
    "expected_findings": 2,
    "unexpected_findings": 0,
    "suppressed_findings": 0,
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
      "signature": ")json" + Fingerprint("paged/unguarded: null_block (batch); implementation slotguard") + R"json(",
      "suppressed_by": null,
      "groups": [
        {
          "name": "attn",
          "kernel": "paged",
          "variant": "fixed",
          "counts": {
            "null_block": 2
          },
          "cause": "null_block: token 3 (request 1): kernel 0, reference PAD: slot 0 is in block 0 (2 null_block findings)",
          "null_block": "hazard",
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
      "signature": null,
      "suppressed_by": null,
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
  r.finished = "2026-12-05T03:14:07Z";
  r.families = {"paged", "kpool_tail"};
  r.seed = 3;
  r.backend = "gpu";
  r.max_requests = 64;
  r.result.scenarios = 8;
  r.result.tokens = 100;
  r.result.seconds = 2;
  r.result.generate_seconds = 0.5;
  r.result.kernel_seconds = 0.25;
  r.result.check_seconds = 1;
  r.result.classes = {{"decode", 5}, {"dcp", 1}};
  EXPECT_EQ(R"({
  "slotguard_fuzz": 1,
  "slotguard_version": ")" + std::string(kSlotguardVersion) + R"(",
  "finished": "2026-12-05T03:14:07Z",
  "seed": 3,
  "backend": "gpu",
  "variant": "fixed",
  "families": [
    "paged",
    "kpool_tail"
  ],
  "max_requests": 64,
  "keep_going": false,
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
  "found": false,
  "distinct_findings": 0,
  "finding_scenarios": 0,
  "unattributed": 0,
  "suppressed_findings": 0,
  "findings": [],
  "suppressions": [],
  "regressions": null
}
)",
            FuzzJson(r));
  // --keep-going with a suppressions file: one finding, one suppressed
  // signature, one entry that suppressed 4 scenarios before shrinking and
  // one stale entry.
  r.result.kernel_seconds = 0;  // not batched: no phases
  r.variant = "prefix";
  r.keep_going = true;
  Suppressions suppressions;
  suppressions.file = "known.json";
  suppressions.entries.resize(3);
  suppressions.entries[0].id = "empty";
  suppressions.entries[0].reason = "the launcher never sends it";
  suppressions.entries[0].pointer = "/suppressions/0";
  suppressions.entries[1].id = "sig";
  suppressions.entries[1].reason = "known";
  suppressions.entries[1].pointer = "/suppressions/1";
  suppressions.entries[2].id = "old";
  suppressions.entries[2].reason = "fixed long ago";
  suppressions.entries[2].pointer = "/suppressions/2";
  r.suppressions = &suppressions;
  CampaignFinding f;
  f.signature.implementation = "slotguard";
  f.signature.families = {"paged"};
  f.signature.variants = {"prefix"};
  f.signature.invariants = {"null_block", "own_block"};
  f.signature.blames_kernel = false;
  f.signature.shape = "1 requests, 1 tokens, 1 groups";
  f.count = 5;
  f.shrunk = 2;
  f.finding_index = 7;
  f.invariant = "null_block";
  f.fired = {"null_block", "own_block"};
  f.file = "out/x.json";
  f.replay_command = "slotguard replay --backend host out/x.json";
  f.original.batch.query_start_loc = {0, 1, 3};  // the generated scenario, before shrinking
  f.original.batch.num_tokens = 3;
  r.result.findings.push_back(f);
  f.signature.invariants = {"differential"};
  f.signature.blames_kernel = true;
  f.count = 3;
  f.shrunk = 1;
  f.finding_index = 9;
  f.invariant = "differential";
  f.fired = {"differential"};
  f.file = "";
  f.suppressed_by = 1;
  r.result.findings.push_back(f);
  r.result.finding_scenarios = 8;
  r.result.suppressed_scenarios = 4;
  r.result.suppression_matches = {4, 3, 0};
  // The signature ids are FNV-1a of the texts, computed here, not pasted.
  const std::string id0 = Fingerprint("paged/prefix: null_block (batch); implementation slotguard");
  const std::string id1 = Fingerprint("paged/prefix: differential (kernel); implementation slotguard");
  EXPECT_EQ(id0, r.result.findings[0].signature.Id());
  const std::string expected = R"({
  "slotguard_fuzz": 1,
  "slotguard_version": ")" + std::string(kSlotguardVersion) + R"(",
  "finished": "2026-12-05T03:14:07Z",
  "seed": 3,
  "backend": "gpu",
  "variant": "prefix",
  "families": [
    "paged",
    "kpool_tail"
  ],
  "max_requests": 64,
  "keep_going": true,
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
  "replay_command": "slotguard replay --backend host out/x.json",
  "reproducer_error": null,
  "invariant": "null_block",
  "fired": [
    "null_block",
    "own_block"
  ],
  "scenario_index": 7,
  "distinct_findings": 1,
  "finding_scenarios": 8,
  "unattributed": 0,
  "suppressed_findings": 7,
  "findings": [
    {
      "signature": ")" + id0 + R"(",
      "text": "paged/prefix: null_block (batch); implementation slotguard",
      "implementation": "slotguard",
      "families": [
        "paged"
      ],
      "variants": [
        "prefix"
      ],
      "invariants": [
        "null_block",
        "own_block"
      ],
      "cause": "null_block",
      "blame": "batch",
      "shape": "1 requests, 1 tokens, 1 groups",
      "count": 5,
      "shrunk": 2,
      "scenario_index": 7,
      "invariant": "null_block",
      "fired": [
        "null_block",
        "own_block"
      ],
      "original_shape": "2 requests, 3 tokens, 0 groups",
      "causes": [],
      "recurred": true,
      "file": "out/x.json",
      "replay_command": "slotguard replay --backend host out/x.json",
      "reproducer_error": null,
      "suppressed_by": null
    },
    {
      "signature": ")" + id1 + R"(",
      "text": "paged/prefix: differential (kernel); implementation slotguard",
      "implementation": "slotguard",
      "families": [
        "paged"
      ],
      "variants": [
        "prefix"
      ],
      "invariants": [
        "differential"
      ],
      "cause": "differential",
      "blame": "kernel",
      "shape": "1 requests, 1 tokens, 1 groups",
      "count": 3,
      "shrunk": 1,
      "scenario_index": 9,
      "invariant": "differential",
      "fired": [
        "differential"
      ],
      "original_shape": "2 requests, 3 tokens, 0 groups",
      "causes": [],
      "recurred": true,
      "file": null,
      "replay_command": null,
      "reproducer_error": null,
      "suppressed_by": "sig"
    }
  ],
  "suppressions": [
    {
      "id": "empty",
      "reason": "the launcher never sends it",
      "pointer": "/suppressions/0",
      "matched": 4,
      "stale": false
    },
    {
      "id": "sig",
      "reason": "known",
      "pointer": "/suppressions/1",
      "matched": 3,
      "stale": false
    },
    {
      "id": "old",
      "reason": "fixed long ago",
      "pointer": "/suppressions/2",
      "matched": 0,
      "stale": true
    }
  ],
  "regressions": null
}
)";
  EXPECT_EQ(expected, FuzzJson(r));
  std::string err;
  ASSERT_TRUE(WriteFuzzJson(Temp("fuzz.json"), r, &err)) << err;
  EXPECT_EQ(expected, Read(Temp("fuzz.json")));
}

// On the gpu backend the report names the GPU that ran, with its PCI bus
// id: which one --device K picked (docs/cli.md). The JSON's "device" follows
// "backend"; the summary line says "backend gpu on DEVICE". On the host
// there is no "device" key (FuzzReportBytes).
TEST(JsonReportTest, AFuzzReportNamesTheGpuThatRan) {
  FuzzReport r;
  r.seed = 3;
  r.backend = "gpu";
  r.device = "NVIDIA H200 (sm_90, 132 SMs, PCI 0000:18:00.0)";
  r.result.scenarios = 8;
  r.result.tokens = 100;
  r.result.seconds = 2;
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(FuzzJson(r));
  EXPECT_EQ("NVIDIA H200 (sm_90, 132 SMs, PCI 0000:18:00.0)", j.at("device"));
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  ASSERT_GE(keys.size(), 6u);
  EXPECT_EQ("backend", keys[4]);  // after slotguard_fuzz, slotguard_version, finished, seed
  EXPECT_EQ("device", keys[5]);
  std::ostringstream out;
  PrintFuzzReport(r, {}, out);
  EXPECT_EQ("slotguard: fuzz: 8 scenarios, 100 token-groups, 4 scenarios/s, 2.00 s, no finding, backend gpu on NVIDIA H200 "
            "(sm_90, 132 SMs, PCI 0000:18:00.0), seed 3\n",
            out.str().substr(out.str().rfind("slotguard: fuzz: ")))
      << out.str();
}

TEST(JsonReportTest, APathThatCannotBeWritten) {
  const std::string path = Temp("no-such-dir/r.json");
  std::string err;
  EXPECT_FALSE(WriteJsonReport(path, {}, CheckSummary(), &err));
  EXPECT_EQ(path + ": cannot write the JSON report: no such file or directory", err);
  err.clear();
  EXPECT_FALSE(WriteFuzzJson(path, FuzzReport(), &err));
  EXPECT_EQ(path + ": cannot write the JSON report: no such file or directory", err);
}

// Strings that are not UTF-8 (a file name, a provider's name) are written
// escaped, \xHH, instead of making the report unwritable.
TEST(JsonReportTest, BytesThatAreNotUtf8AreEscaped) {
  ScenarioReport r;
  r.file = "dir\xff/x.json";
  r.name = "caf\xc3\xa9";  // valid UTF-8 stays as it is
  r.status = ScenarioStatus::kBadInput;
  r.error = "dir\xff/x.json: invalid JSON";
  CheckSummary summary;
  summary.backend = "host";
  summary.implementation = "plugin \xfe\xff";
  const nlohmann::json j = nlohmann::json::parse(CheckJson({r}, summary));
  EXPECT_EQ("dir\\xff/x.json", j["scenarios"][0]["file"]);
  EXPECT_EQ("caf\xc3\xa9", j["scenarios"][0]["name"]);
  EXPECT_EQ("plugin \\xfe\\xff", j["summary"]["implementation"]);
  const nlohmann::json sarif = nlohmann::json::parse(CheckSarif({r}, summary));
  // A URI: the byte percent-encoded (RFC 3986), relative to the SARIF root.
  EXPECT_EQ("dir%FF/x.json",
            sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]);
}

}  // namespace
}  // namespace slotguard
