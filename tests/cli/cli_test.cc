// The commands in-process (exit codes, lines, reports) and the binary's flag
// parsing (usage errors exit 2 with one line).
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backend/gpu_device.h"
#include "cli/commands.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

namespace fs = std::filesystem;

const std::string kScenarios = SLOTGUARD_SOURCE_DIR "/scenarios";

std::string LastLine(const std::string& text) {
  const size_t end = text.find_last_not_of('\n');
  const size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

long Lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ScratchDir() / "cli";
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  std::string Write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  int Check(CheckOptions options) {
    out_.str("");
    err_.str("");
    options.backend = options.backend == BackendKind::kAuto ? BackendKind::kHost : options.backend;
    return RunCheck(options, out_, err_);
  }
  fs::path dir_;
  std::ostringstream out_, err_;
};

TEST_F(CliTest, CuratedScenariosHold) {
  CheckOptions o;
  o.paths = {kScenarios};
  EXPECT_EQ(kExitHolds, Check(o)) << out_.str() << err_.str();
  EXPECT_EQ(0u, LastLine(out_.str()).find("slotguard: ")) << out_.str();
  EXPECT_NE(std::string::npos, LastLine(out_.str()).find(" 0 fail), ")) << out_.str();
  EXPECT_NE(std::string::npos, LastLine(out_.str()).find("backend host")) << out_.str();
  EXPECT_EQ("", err_.str());
}

TEST_F(CliTest, BadInputExits2WithItsPointerAndStillChecksTheRest) {
  Write("bad.json", R"({"slotguard": 1, "name": "b", "num_blocks": -4})");
  fs::copy(kScenarios + "/paged/decode.json", dir_ / "good.json");
  CheckOptions o;
  o.paths = {dir_.string()};
  EXPECT_EQ(kExitBadInput, Check(o));
  EXPECT_EQ("ERROR " + (dir_ / "bad.json").string() +
                ":/num_blocks: num_blocks out of range; expected 1 <= num_blocks <= 2147483647, got -4\n",
            err_.str());
  EXPECT_NE(std::string::npos, out_.str().find("ok    " + (dir_ / "good.json").string()));
  EXPECT_NE(std::string::npos, LastLine(out_.str()).find("1 bad input")) << out_.str();
}

// --validate loads each file as a check would and runs nothing: a mutant
// (a finding under check) loads, a bad file is its one line, and no backend
// is opened (the GPU backend asked for on a machine without one is no error).
TEST_F(CliTest, ValidateLoadsEveryFileAndRunsNothing) {
  fs::copy(kScenarios + "/paged/mutants/dummy-reads-row.json", dir_ / "mutant.json");
  CheckOptions o;
  o.paths = {dir_.string()};
  o.validate = true;
  o.backend = BackendKind::kGpu;
  EXPECT_EQ(kExitHolds, Check(o)) << out_.str() << err_.str();
  EXPECT_EQ("slotguard: check --validate: 1 of 1 scenario file loads, nothing run\n", out_.str());
  EXPECT_EQ("", err_.str());
  Write("narrow.json", R"({"slotguard": 1, "name": "n", "num_blocks": 8,
      "batch": {"query_start_loc": [0, 1], "positions": [3]},
      "groups": [{"name": "a", "kernel": "kpool_tail", "kpool": 4, "block_table": [[]]}]})");
  EXPECT_EQ(kExitBadInput, Check(o));
  EXPECT_EQ("slotguard: check --validate: 1 of 2 scenario files load, nothing run\n", out_.str());
  EXPECT_EQ("slotguard: error: " + (dir_ / "narrow.json").string() +
                ":/groups/0/block_table/0: row too narrow; expected 1 column (its family reads them unguarded: "
                "min_width 1), got 0\n",
            err_.str());
}

TEST_F(CliTest, MutantWithoutExpectExits1AndNamesEveryFinding) {
  std::ifstream in(kScenarios + "/paged/mutants/dummy-reads-row.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc.erase("expect");
  const std::string file = Write("reproducer.json", doc.dump());
  CheckOptions o;
  o.paths = {file};
  EXPECT_EQ(kExitFindings, Check(o));
  // One line for the cause: the dummy request 1 (idx_mapping -1) maps its
  // positions 0 and 1 through its zero row to slots 0 and 1, in block 0;
  // the reference pads a dummy. Under the scenario's line, no file or
  // scenario name repeated. Without --writers, block 0's effect is a
  // hazard (a mapping into it, no memory checked).
  EXPECT_EQ("FAIL  " + file + " (paged-dummy-reads-row): unexpected findings (differential, null_block, null_owner_pad, "
            "own_block); the scenario has no expect; block 0: group attn hazard\n"
            "  group attn: request 1 (dummy) wrote slots 0-1 of block 0 (tokens 3-4); reference PAD\n",
            out_.str().substr(0, out_.str().rfind("slotguard: ")))
      << out_.str();
  // -v: each token's findings on one line under it, the most specific first.
  out_.str("");
  o.verbose = true;
  EXPECT_EQ(kExitFindings, Check(o));
  EXPECT_NE(std::string::npos,
            out_.str().find("\n    token 3 (request 1, pos 0): kernel 0, reference PAD: null_block, null_owner_pad, "
                            "own_block, differential: slot 0 is in block 0 (slots 0..15)\n"
                            "    token 4 (request 1, pos 1): kernel 1, reference PAD: null_block, null_owner_pad, "
                            "own_block, differential: slot 1 is in block 0 (slots 0..15)\n"))
      << out_.str();
}

// A per-request family (vllm_mamba_copy, one copy per request) names the
// request, not a token: r0's row [0, 14] has the null block in its running
// column, so the null-safe copy does nothing (-1 in both outputs); the
// engine variant copies block 0 into 14 (src 0, dst 14).
TEST_F(CliTest, APerRequestFindingIsOneLinePerRequest) {
  std::ifstream in(kScenarios + "/engines/vllm_mamba_copy/engine-null-source.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc.erase("expect");
  const std::string file = Write("copy.json", doc.dump());
  CheckOptions o;
  o.paths = {file};
  o.backend = BackendKind::kHost;
  o.verbose = true;
  EXPECT_EQ(kExitFindings, Check(o));
  EXPECT_EQ("FAIL  " + file + " (vllm-mamba-copy-engine-null-source): unexpected findings (differential, op_null_src, "
            "pad_marker); the scenario has no expect\n"
            "  group copy: the kernel differs from the reference: request 0 (kernel 0, reference PAD); output copy.dst: "
            "request 0 (kernel 14, reference PAD)\n"
            "    request 0: kernel 0, reference PAD: pad_marker, op_null_src, differential: a request has no operation "
            "here: expected -1\n"
            "    output copy.dst: request 0: kernel 14, reference PAD: pad_marker, differential: a request has no "
            "operation here: expected -1\n",
            out_.str().substr(0, out_.str().rfind("slotguard: ")))
      << out_.str();
}

// fuzz --regressions DIR: the past reproducers first, the new ones added.
TEST_F(CliTest, RegressionsAreReplayedFirstAndNewReproducersAdded) {
  FuzzOptions o;
  o.backend = BackendKind::kHost;
  o.families = {"kpool_tail"};
  o.settings.variant = "prefix";
  o.settings.runs = 200;
  o.settings.out_dir = (dir_ / "out").string();
  o.regressions = (dir_ / "regs").string();
  ASSERT_EQ(kExitFindings, RunFuzz(o, out_, err_)) << out_.str() << err_.str();
  std::vector<fs::path> added;
  for (const auto& e : fs::directory_iterator(o.regressions)) added.push_back(e.path());
  ASSERT_EQ(1u, added.size()) << out_.str();
  EXPECT_TRUE(fs::exists(dir_ / "out" / added[0].filename()));
  EXPECT_NE(std::string::npos, out_.str().find("fuzz: 0 regressions replayed from " + o.regressions +
                                               " first: every one holds\n"
                                               "fuzz: added to the regressions: " + added[0].string() + "\n"))
      << out_.str();
  // Again: the bug is back (the variant is still forced), found by its
  // reproducer before any campaign, which does not run.
  out_.str("");
  o.settings.out_dir = (dir_ / "out2").string();
  ASSERT_EQ(kExitFindings, RunFuzz(o, out_, err_)) << out_.str() << err_.str();
  EXPECT_EQ(0u, out_.str().find("FAIL  " + added[0].string() + " (")) << out_.str();
  EXPECT_NE(std::string::npos, out_.str().find("\n  group kpool_tail: ")) << out_.str();
  EXPECT_EQ("slotguard: fuzz: 1 of 1 regressions from " + o.regressions +
                " fail again (above); the campaign did not run: fix them first, or --keep-going runs it all the same",
            LastLine(out_.str()));
  EXPECT_FALSE(fs::exists(o.settings.out_dir)) << "no empty reproducers' folder left";
  // Regressions that hold: the campaign runs.
  out_.str("");
  FuzzOptions clean;
  clean.backend = BackendKind::kHost;
  clean.settings.runs = 100;
  clean.settings.out_dir = (dir_ / "out3").string();
  clean.regressions = (dir_ / "held").string();
  fs::create_directories(clean.regressions);
  fs::copy(kScenarios + "/paged/decode.json", dir_ / "held" / "decode.json");
  ASSERT_EQ(kExitHolds, RunFuzz(clean, out_, err_)) << out_.str() << err_.str();
  EXPECT_NE(std::string::npos, out_.str().find("fuzz: 1 regression replayed from " + clean.regressions +
                                               " first: every one holds\n"))
      << out_.str();
  EXPECT_NE(std::string::npos, LastLine(out_.str()).find("slotguard: fuzz: 100 scenarios")) << out_.str();
  // A file where the folder should be: exit 2, one line.
  err_.str("");
  clean.regressions = Write("not-a-dir", "x");
  EXPECT_EQ(kExitBadInput, RunFuzz(clean, out_, err_));
  EXPECT_EQ("slotguard: error: --regressions " + clean.regressions +
                ": not a directory; expected a folder of reproducers (created when missing)\n",
            err_.str());
}

// A campaign without a finding leaves no empty --out folder behind (one
// that was there before stays).
TEST_F(CliTest, ACleanCampaignLeavesNoEmptyFindingsFolder) {
  FuzzOptions o;
  o.backend = BackendKind::kHost;
  o.settings.runs = 100;
  o.settings.out_dir = (dir_ / "fuzz-findings").string();
  ASSERT_EQ(kExitHolds, RunFuzz(o, out_, err_)) << out_.str() << err_.str();
  EXPECT_FALSE(fs::exists(o.settings.out_dir));
  fs::create_directories(o.settings.out_dir);
  ASSERT_EQ(kExitHolds, RunFuzz(o, out_, err_)) << out_.str() << err_.str();
  EXPECT_TRUE(fs::exists(o.settings.out_dir));
  // And says nothing of the generator's classification, unless -v.
  EXPECT_EQ(std::string::npos, out_.str().find("fuzz: classification:")) << out_.str();
  out_.str("");
  o.verbose = true;
  ASSERT_EQ(kExitHolds, RunFuzz(o, out_, err_));
  EXPECT_NE(std::string::npos, out_.str().find("fuzz: classification: ")) << out_.str();
}

// replay FILE of a reproducer that records how it was found: it runs so
// (here the backend and the writers), and says so.
TEST_F(CliTest, ReplayUsesWhatTheReproducerRecordsAndSaysSo) {
  const std::string file = Write("repro.json", R"({"slotguard": 1, "name": "r", "num_blocks": 4,
    "batch": {"query_start_loc": [0, 1], "seq_lens": [1]},
    "groups": [{"name": "tail", "kernel": "kpool_tail", "variant": "prefix", "kpool": 4, "block_table": [[0]]}],
    "found_by": {"backend": "host", "writers": true}})");
  ReplayOptions o;
  o.file = file;
  EXPECT_EQ(kExitFindings, RunReplay(o, out_, err_)) << out_.str() << err_.str();
  EXPECT_EQ(0u, out_.str().find("note: replaying " + file +
                                " as it was found: --backend host --writers (what it records; flags given here "
                                "replace them)\n"))
      << out_.str();
  // The writers ran: the prefix variant's write into block 0 is in memory.
  EXPECT_NE(std::string::npos, out_.str().find("null_bytes")) << out_.str();
}

TEST_F(CliTest, UnknownVariantSuggests) {
  CheckOptions o;
  o.paths = {kScenarios};
  o.variant = "unguard";
  EXPECT_EQ(kExitBadInput, Check(o));
  EXPECT_EQ("slotguard: error: unknown variant 'unguard', did you mean 'unguarded'?; expected one of all, "
            "fixed, unguarded, dummy_reads_row, pad_from_n, gathered_row, prefix, no_common_guard, clamp, "
            "engine_81be2e09, upstream_00746147, engine_81be2e09_indexer, v1_dummy_run_81be2e09, engine_fb28d724, lmcache_pr2984, "
            "pr_23353, sm90_writeback_043d19ef, pad_minus_one, engine_7b437aaa, v2_runner, pre_46301, pre_39064, "
            "column0, pre_49757, "
            "unfiltered\n",
            err_.str());
}

TEST_F(CliTest, AVariantThatNoGroupUnderThePathsHasIsAnError) {
  // A real variant, but of a family no scenario under the path has: a CI job
  // with a misplaced --variant must not stay green.
  CheckOptions o;
  o.paths = {kScenarios + "/paged"};
  o.variant = "no_common_guard";
  EXPECT_EQ(kExitBadInput, Check(o));
  EXPECT_EQ("slotguard: error: --variant no_common_guard: no group of the scenarios under " + kScenarios +
                "/paged has it; expected a group of a family with it (qsa_compressed)\n",
            err_.str());
  EXPECT_EQ("", out_.str());
  o.variant = "prefix";  // three families have it
  o.paths = {kScenarios + "/paged/decode.json", kScenarios + "/paged/dummy-request.json"};
  EXPECT_EQ(kExitBadInput, Check(o));
  EXPECT_EQ("slotguard: error: --variant prefix: no group of the scenarios under " + o.paths[0] + ", " + o.paths[1] +
                " has it; expected a group of a family with it (kpool_tail, qsa_ring, compressor_ring)\n",
            err_.str());
  // A variant that some scenario has still runs (the mutant fails the ring
  // scenarios); the others run as they are, and say so.
  o.paths = {kScenarios};
  EXPECT_EQ(kExitFindings, Check(o)) << err_.str();
  EXPECT_NE(std::string::npos, out_.str().find("(no group has variant prefix)")) << out_.str();
}

TEST_F(CliTest, AFailingScenarioIsNotHiddenByABadFile) {
  // Exit precedence 3 > 1 > 2: both problems are printed, the code is 1.
  Write("bad.json", "{");
  std::ifstream in(kScenarios + "/paged/mutants/dummy-reads-row.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc.erase("expect");
  const std::string failing = Write("failing.json", doc.dump());
  CheckOptions o;
  o.paths = {dir_.string()};
  EXPECT_EQ(kExitFindings, Check(o));
  EXPECT_EQ(0u, err_.str().find("ERROR " + (dir_ / "bad.json").string() + ":")) << err_.str();
  EXPECT_NE(std::string::npos, out_.str().find("FAIL  " + failing)) << out_.str();
  EXPECT_NE(std::string::npos, LastLine(out_.str()).find("(0 hold, 1 fail, 1 bad input)")) << out_.str();
  // The bad file alone is still 2.
  fs::remove(failing);
  EXPECT_EQ(kExitBadInput, Check(o));
}

TEST_F(CliTest, VariantAllRunsEveryVariant) {
  CheckOptions o;
  o.paths = {kScenarios + "/paged/cuda-graph-padded.json"};
  o.variant = "all";
  EXPECT_EQ(kExitFindings, Check(o));  // pad_from_n leaves the padded tail stale
  const std::string out = out_.str();
  EXPECT_NE(std::string::npos, out.find("[variant fixed]: pass")) << out;
  EXPECT_NE(std::string::npos, out.find("[variant unguarded]: pass")) << out;
  EXPECT_NE(std::string::npos, out.find("[variant dummy_reads_row]: pass")) << out;
  EXPECT_NE(std::string::npos, out.find("FAIL  " + o.paths[0] + " (paged-cuda-graph-padded) [variant pad_from_n]"))
      << out;
  // gathered_row reads row r, which is request r's in a per-request table.
  EXPECT_NE(std::string::npos, out.find("[variant gathered_row]: pass")) << out;
  EXPECT_NE(std::string::npos, LastLine(out).find("5 scenario runs (4 hold, 1 fail)")) << out;
}

TEST_F(CliTest, GpuBackendWithoutDeviceExits3) {
  std::string why;
  if (GpuUsable(&why)) GTEST_SKIP() << "a GPU is usable here";
  CheckOptions o;
  o.paths = {kScenarios};
  o.backend = BackendKind::kGpu;
  EXPECT_EQ(kExitEnvironment, Check(o));
  EXPECT_EQ("slotguard: error: --backend gpu: " + why + "\n", err_.str());
  EXPECT_EQ("", out_.str());
}

TEST_F(CliTest, WritesJUnitAndJsonReports) {
  CheckOptions o;
  o.paths = {kScenarios};
  o.junit_path = (dir_ / "r.xml").string();
  o.json_path = (dir_ / "r.json").string();
  EXPECT_EQ(kExitHolds, Check(o));
  std::ifstream json_in(o.json_path);
  const nlohmann::json report = nlohmann::json::parse(json_in);
  EXPECT_EQ(true, report["all_hold"]);
  EXPECT_EQ("host", report["backend"]);
  const size_t scenarios = report["scenarios"].size();
  EXPECT_GE(scenarios, 10u);
  bool saw_expected_finding = false;
  for (const auto& s : report["scenarios"])
    if (s["expected"] == "finding") {
      saw_expected_finding = true;
      size_t findings = 0;
      for (const auto& g : s["groups"]) findings += g["findings"].size();
      EXPECT_GT(findings, 0u) << s["file"];
    }
  EXPECT_TRUE(saw_expected_finding);
  std::ifstream xml_in(o.junit_path);
  const std::string xml((std::istreambuf_iterator<char>(xml_in)), std::istreambuf_iterator<char>());
  EXPECT_NE(std::string::npos, xml.find("tests=\"" + std::to_string(scenarios) + "\" failures=\"0\" errors=\"0\""));
}

TEST_F(CliTest, JUnitRecordsFailuresAndErrors) {
  Write("bad.json", "{");
  std::ifstream in(kScenarios + "/paged/mutants/pad-from-n.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc.erase("expect");
  Write("stale.json", doc.dump());
  CheckOptions o;
  o.paths = {dir_.string()};
  o.junit_path = (dir_ / "r.xml").string();
  EXPECT_EQ(kExitFindings, Check(o));  // the failure is not hidden behind the bad file
  std::ifstream xml_in(o.junit_path);
  const std::string xml((std::istreambuf_iterator<char>(xml_in)), std::istreambuf_iterator<char>());
  EXPECT_NE(std::string::npos, xml.find("tests=\"2\" failures=\"1\" errors=\"1\"")) << xml;
  EXPECT_NE(std::string::npos, xml.find("padding_tail")) << xml;
}

// A path the report cannot go to is refused before anything runs (exit 2,
// one line): a folder that does not exist, a directory, a FIFO or a device.
TEST_F(CliTest, AReportPathThatCannotBeAFileIsRefusedBeforeAnythingRuns) {
  const std::string missing = (dir_ / "no-such-dir" / "r.xml").string();
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(0, mkfifo(fifo.c_str(), 0600));
  CheckOptions o;
  o.paths = {kScenarios + "/paged/decode.json"};
  o.junit_path = missing;
  EXPECT_EQ(kExitBadInput, Check(o));
  EXPECT_EQ("slotguard: error: --junit " + missing + ": its folder '" + (dir_ / "no-such-dir").string() +
                "' does not exist; expected a regular file or a new file in an existing folder\n",
            err_.str());
  EXPECT_EQ("", out_.str());  // nothing ran
  for (const std::string& path : {fifo, dir_.string(), std::string("/dev/null")}) {
    o.junit_path.clear();
    o.json_path = path;
    EXPECT_EQ(kExitBadInput, Check(o)) << path;
    EXPECT_EQ(0u, err_.str().find("slotguard: error: --json " + path + ": ")) << err_.str();
    EXPECT_EQ(1, Lines(err_.str())) << err_.str();
    EXPECT_EQ("", out_.str());
  }
  FuzzOptions f;
  f.backend = BackendKind::kHost;
  f.settings.runs = 20;
  f.settings.out_dir = (dir_ / "findings").string();
  f.json_path = fifo;
  out_.str("");
  err_.str("");
  EXPECT_EQ(kExitBadInput, RunFuzz(f, out_, err_));
  EXPECT_EQ("slotguard: error: --json " + fifo +
                ": not a regular file (a FIFO); expected a regular file or a new file in an existing folder\n",
            err_.str());
  f.json_path.clear();
  f.settings.out_dir = kScenarios + "/paged/decode.json";
  err_.str("");
  EXPECT_EQ(kExitBadInput, RunFuzz(f, out_, err_));
  EXPECT_EQ("slotguard: error: --out " + f.settings.out_dir +
                ": not a directory (a regular file); expected a directory for the reproducers (created when missing)\n",
            err_.str());
  ReplayOptions r;
  r.file = kScenarios + "/paged/decode.json";
  r.backend = BackendKind::kHost;
  r.html_path = fifo;
  err_.str("");
  EXPECT_EQ(kExitBadInput, RunReplay(r, out_, err_));
  EXPECT_EQ(0u, err_.str().find("slotguard: error: --html " + fifo + ": not a regular file (a FIFO)")) << err_.str();
}

// A report that the write itself fails (here /proc/version, a regular file
// that takes no bytes) is named with its reason and exit 3; the other
// reports and the summary line are still written.
TEST_F(CliTest, AReportThatCannotBeWrittenLosesNoOtherReport) {
  CheckOptions o;
  o.paths = {kScenarios + "/paged/decode.json"};
  o.junit_path = "/proc/version";
  o.json_path = (dir_ / "r.json").string();
  o.sarif_path = (dir_ / "r.sarif").string();
  EXPECT_EQ(kExitEnvironment, Check(o));
  EXPECT_EQ(0u, err_.str().find("slotguard: error: /proc/version: cannot write the JUnit report: ")) << err_.str();
  EXPECT_EQ(1, Lines(err_.str())) << err_.str();
  EXPECT_NE(std::string::npos, out_.str().find("ok    " + o.paths[0])) << out_.str();
  EXPECT_EQ(0u, LastLine(out_.str()).find("slotguard: 1 scenario runs (1 hold")) << out_.str();
  EXPECT_EQ(true, nlohmann::json::parse(std::ifstream(o.json_path))["all_hold"]);
  EXPECT_EQ("2.1.0", nlohmann::json::parse(std::ifstream(o.sarif_path))["version"]);
  // The JSON one failing: JUnit and SARIF still written.
  o.junit_path = (dir_ / "r.xml").string();
  o.json_path = "/proc/version";
  fs::remove(o.sarif_path);
  EXPECT_EQ(kExitEnvironment, Check(o));
  EXPECT_EQ(0u, err_.str().find("slotguard: error: /proc/version: cannot write the JSON report: ")) << err_.str();
  EXPECT_TRUE(fs::exists(o.junit_path));
  EXPECT_TRUE(fs::exists(o.sarif_path));
  EXPECT_EQ(0u, LastLine(out_.str()).find("slotguard: 1 scenario runs")) << out_.str();
}

TEST_F(CliTest, AFuzzJsonThatCannotBeWrittenIsAnEnvironmentError) {
  FuzzOptions o;
  o.backend = BackendKind::kHost;
  o.settings.runs = 20;
  o.settings.out_dir = (dir_ / "findings").string();
  o.json_path = "/proc/version";
  o.sarif_path = (dir_ / "f.sarif").string();
  EXPECT_EQ(kExitEnvironment, RunFuzz(o, out_, err_));
  EXPECT_EQ(0u, err_.str().find("slotguard: error: /proc/version: cannot write the JSON report: ")) << err_.str();
  EXPECT_TRUE(fs::exists(o.sarif_path));  // the other report is still written
  // The summary is printed first: a finding is never lost to a bad --json.
  EXPECT_NE(std::string::npos, out_.str().find("slotguard: fuzz: 20 scenarios")) << out_.str();
  o.settings.variant = "prefix";
  o.settings.runs = 2000;
  out_.str("");
  err_.str("");
  EXPECT_EQ(kExitEnvironment, RunFuzz(o, out_, err_));
  EXPECT_NE(std::string::npos, out_.str().find("slotguard: fuzz: finding written to ")) << out_.str();
  o.settings.variant.clear();
  o.settings.runs = 20;
  out_.str("");
  o.json_path = (dir_ / "f.json").string();
  err_.str("");
  EXPECT_EQ(kExitHolds, RunFuzz(o, out_, err_)) << err_.str();
  std::ifstream in(o.json_path);
  const nlohmann::json summary = nlohmann::json::parse(in);
  EXPECT_EQ(1, summary["slotguard_fuzz"]);
  EXPECT_EQ(20, summary["scenarios"]);
  EXPECT_EQ(false, summary["found"]);
}

// A reproducer that cannot be written (here: a directory already holds its
// name) keeps its finding: the lines, the signature, the JSON and SARIF,
// marked "reproducer not written: REASON"; exit 3, and nothing left behind.
TEST_F(CliTest, AReproducerThatCannotBeWrittenKeepsTheFinding) {
  FuzzOptions o;
  o.backend = BackendKind::kHost;
  o.settings.runs = 2000;
  o.settings.variant = "prefix";
  o.settings.out_dir = (dir_ / "findings").string();
  ASSERT_EQ(kExitFindings, RunFuzz(o, out_, err_)) << err_.str();
  std::vector<fs::path> written;
  for (const auto& e : fs::directory_iterator(o.settings.out_dir)) written.push_back(e.path());
  ASSERT_EQ(1u, written.size());
  fs::remove(written[0]);
  fs::create_directory(written[0]);  // the same run again: its reproducer's name is taken by a directory
  o.json_path = (dir_ / "f.json").string();
  o.sarif_path = (dir_ / "f.sarif").string();
  out_.str("");
  err_.str("");
  EXPECT_EQ(kExitEnvironment, RunFuzz(o, out_, err_)) << err_.str();
  const std::string reason = "reproducer not written: " + written[0].string() + ": ";
  EXPECT_NE(std::string::npos, out_.str().find("fuzz: " + reason)) << out_.str();
  EXPECT_NE(std::string::npos, out_.str().find("fuzz: signature ")) << out_.str();
  EXPECT_NE(std::string::npos, out_.str().find("fuzz: group kpool_tail: ")) << out_.str();
  EXPECT_NE(std::string::npos, LastLine(out_.str()).find("slotguard: fuzz: finding in scenario ")) << out_.str();
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(o.json_path));
  EXPECT_TRUE(j["found"].get<bool>());
  EXPECT_TRUE(j["file"].is_null());
  EXPECT_EQ(0u, j["reproducer_error"].get<std::string>().find(reason)) << j.dump();
  EXPECT_EQ(0u, j["findings"][0]["reproducer_error"].get<std::string>().find(reason)) << j.dump();
  const nlohmann::json sarif = nlohmann::json::parse(std::ifstream(o.sarif_path));
  EXPECT_NE(std::string::npos,
            sarif["runs"][0]["results"][0]["message"]["text"].get<std::string>().find(reason)) << sarif.dump();
  EXPECT_TRUE(fs::is_directory(written[0]));
  EXPECT_TRUE(fs::is_empty(written[0]));
}

// Bytes that are not UTF-8 in a path reach the reports escaped (\xff): the
// JSON and SARIF reports and the summary line are written, never an
// internal error.
TEST_F(CliTest, APathThatIsNotUtf8ReachesTheReportsEscaped) {
  const fs::path odd = dir_ / "bad\xff";
  fs::create_directories(odd);
  std::ofstream(odd / "x.json") << "{";  // bad input: its error names the path too
  fs::copy_file(kScenarios + "/paged/mutants/pad-from-n.json", odd / "y.json");
  CheckOptions o;
  o.paths = {odd.string()};
  o.json_path = (dir_ / "r.json").string();
  o.sarif_path = (dir_ / "r.sarif").string();
  o.junit_path = (dir_ / "r.xml").string();
  EXPECT_EQ(kExitBadInput, Check(o)) << err_.str();
  EXPECT_EQ(0u, LastLine(out_.str()).find("slotguard: 2 scenario runs")) << out_.str();
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(o.json_path));
  EXPECT_EQ((dir_ / "bad\\xff" / "x.json").string(), j["scenarios"][0]["file"]);
  const nlohmann::json sarif = nlohmann::json::parse(std::ifstream(o.sarif_path));
  EXPECT_NE(std::string::npos, sarif.dump().find("bad\\\\xff")) << sarif.dump();
  FuzzOptions f;
  f.backend = BackendKind::kHost;
  f.settings.runs = 2000;
  f.settings.variant = "prefix";
  f.settings.out_dir = (odd / "findings").string();
  f.json_path = (dir_ / "f.json").string();
  out_.str("");
  err_.str("");
  EXPECT_EQ(kExitFindings, RunFuzz(f, out_, err_)) << err_.str();
  EXPECT_NE(std::string::npos,
            nlohmann::json::parse(std::ifstream(f.json_path))["file"].get<std::string>().find("bad\\xff"));
}

TEST_F(CliTest, JobsDoNotChangeTheOutput) {
  CheckOptions o;
  o.paths = {kScenarios};
  o.verbose = true;
  Check(o);
  std::string serial = out_.str();
  o.jobs = 4;
  Check(o);
  std::string parallel = out_.str();
  serial.erase(serial.rfind("slotguard: "));  // the summary's time differs
  parallel.erase(parallel.rfind("slotguard: "));
  EXPECT_EQ(serial, parallel);
}

TEST_F(CliTest, ReplayPrintsTheTokenTable) {
  ReplayOptions o;
  o.backend = BackendKind::kHost;
  o.file = kScenarios + "/paged/mutants/dummy-reads-row.json";
  EXPECT_EQ(kExitHolds, RunReplay(o, out_, err_));
  const std::string out = out_.str();
  EXPECT_NE(std::string::npos, out.find("  token   req       pos   block     kernel  reference  invariants\n")) << out;
  EXPECT_NE(std::string::npos,
            out.find("      3     1         0      0!          0        PAD *differential,golden,null_block,"
                     "null_owner_pad,own_block\n"))
      << out;
  EXPECT_NE(std::string::npos, out.find("    request 1 (dummy): 0!:2\n")) << out;
  o.variant = "fixed";
  out_.str("");
  EXPECT_EQ(kExitFindings, RunReplay(o, out_, err_));  // fixed: the expected finding does not fire
  EXPECT_NE(std::string::npos, out_.str().find("expected a finding, none fired")) << out_.str();
}

TEST_F(CliTest, ReplayHtmlWritesThePageBesideTheTextReplay) {
  ReplayOptions o;
  o.backend = BackendKind::kHost;
  o.file = kScenarios + "/paged/mutants/dummy-reads-row.json";
  o.html_path = (dir_ / "map.html").string();
  EXPECT_EQ(kExitHolds, RunReplay(o, out_, err_));
  EXPECT_NE(std::string::npos, out_.str().find("    request 1 (dummy): 0!:2\n")) << out_.str();
  EXPECT_EQ("", err_.str());
  std::ifstream in(o.html_path);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(0u, html.find("<!DOCTYPE html>")) << html.substr(0, 200);
  EXPECT_NE(std::string::npos, html.find("data-block=\"0\" data-null=\"1\" data-requests=\"1\"")) << html;
  // A page whose write fails: one line with the reason, exit 3, after the text replay.
  o.html_path = "/proc/version";
  out_.str("");
  EXPECT_EQ(kExitEnvironment, RunReplay(o, out_, err_));
  EXPECT_EQ(0u, err_.str().find("slotguard: error: /proc/version: cannot write the HTML report: ")) << err_.str();
  EXPECT_NE(std::string::npos, out_.str().find("\nok    " + o.file)) << out_.str();
}

TEST_F(CliTest, TheTableLayoutFlagOverridesTheFilesLayout) {
  ReplayOptions o;
  o.backend = BackendKind::kHost;
  o.file = kScenarios + "/paged/mutants/unguarded-tight-layout.json";
  // The file's tight layout: the read past request 0's row lands on request 1's block 6.
  EXPECT_EQ(kExitHolds, RunReplay(o, out_, err_));
  EXPECT_NE(std::string::npos, out_.str().find("      2     0         8       6         24        PAD")) << out_.str();
  // Padded: it reads the poison after the row (block 2147483647, slot 4 * 2147483647).
  o.setup.table_layout = TableLayoutKind::kPadded;
  out_.str("");
  EXPECT_EQ(kExitHolds, RunReplay(o, out_, err_));
  EXPECT_NE(std::string::npos, out_.str().find(" 8589934588 ")) << out_.str();
  EXPECT_EQ(std::string::npos, out_.str().find("         24        PAD")) << out_.str();
}

TEST_F(CliTest, TheZeroNullFlagOverridesTheFilesGraphKey) {
  // kpool_tail with prefix: the dummy batch writes block 0. The file says
  // nothing of graph, so its sequence has no warm-up pass; --zero-null
  // after_capture adds the warm-up, whose writes the replay names.
  ReplayOptions o;
  o.backend = BackendKind::kHost;
  o.file = Write("tail.json", R"({"slotguard": 1, "name": "tail", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 2], "positions": [5, 6, 0], "num_actual_tokens": 2},
    "groups": [{"name": "tail", "kernel": "kpool_tail", "kpool": 4, "block_table": [[3]]}]})");
  o.variant = "prefix";
  o.setup.cuda_graph = true;
  EXPECT_EQ(kExitFindings, RunReplay(o, out_, err_)) << err_.str();
  EXPECT_EQ(std::string::npos, out_.str().find("eager warm-up pass")) << out_.str();
  o.setup.zero_null = ZeroNull::kAfterCapture;
  out_.str("");
  EXPECT_EQ(kExitFindings, RunReplay(o, out_, err_)) << err_.str();
  EXPECT_NE(std::string::npos, out_.str().find("eager warm-up pass")) << out_.str();
}

TEST_F(CliTest, CheckAndMutantsHoldInEveryTableLayout) {
  for (TableLayoutKind kind : {TableLayoutKind::kPadded, TableLayoutKind::kTight, TableLayoutKind::kStrided}) {
    CheckOptions check;
    check.paths = {kScenarios};
    check.setup.writers = true;
    check.setup.table_layout = kind;
    EXPECT_EQ(kExitHolds, Check(check)) << TableLayoutName(kind) << "\n" << out_.str() << err_.str();
    MutantsOptions mutants;
    mutants.paths = {kScenarios};
    mutants.backend = BackendKind::kHost;
    mutants.setup.table_layout = kind;
    out_.str("");
    EXPECT_EQ(kExitHolds, RunMutants(mutants, out_, err_)) << TableLayoutName(kind) << "\n" << out_.str();
  }
}

TEST_F(CliTest, AFuzzReproducerRecordsItsTableLayout) {
  FuzzOptions o;
  o.backend = BackendKind::kHost;
  o.settings.runs = 2000;
  o.settings.variant = "prefix";
  o.settings.out_dir = (dir_ / "findings").string();
  o.setup.table_layout = TableLayoutKind::kStrided;
  ASSERT_EQ(kExitFindings, RunFuzz(o, out_, err_)) << out_.str() << err_.str();
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir_ / "findings")) files.push_back(e.path());
  ASSERT_EQ(1u, files.size());
  std::ifstream in(files[0]);
  const nlohmann::json reproducer = nlohmann::json::parse(in);
  EXPECT_EQ("strided", reproducer["table_layout"]) << reproducer.dump();
  EXPECT_NE(std::string::npos, reproducer["description"].get<std::string>().find(" --table-layout strided"))
      << reproducer.dump();
}

TEST_F(CliTest, MutantsCatchEveryVariantOverTheCuratedScenarios) {
  MutantsOptions o;
  o.paths = {kScenarios};
  o.backend = BackendKind::kHost;
  EXPECT_EQ(kExitHolds, RunMutants(o, out_, err_)) << out_.str() << err_.str();
  EXPECT_NE(std::string::npos, LastLine(out_.str()).find("slotguard: mutants: 0 survivors, 0 fixed-variant failures")) << out_.str();
}

TEST_F(CliTest, MutantsNameTheSurvivors) {
  // A plain decode batch catches none of the paged mutants: no tokens past
  // the row, no dummies, no padding, no persistent table.
  MutantsOptions o;
  o.paths = {kScenarios + "/paged/decode.json"};
  o.backend = BackendKind::kHost;
  EXPECT_EQ(kExitFindings, RunMutants(o, out_, err_));
  for (const char* v : {"unguarded", "dummy_reads_row", "pad_from_n", "gathered_row"})
    EXPECT_NE(std::string::npos, out_.str().find(std::string("FAIL  mutant paged/") + v + " survived")) << out_.str();
}

TEST_F(CliTest, MutantsFailWhenTheFixedKernelHasFindings) {
  // An inconsistent batch without its expectation: `fixed` writes block 0.
  std::ifstream in(kScenarios + "/paged/inconsistent/unallocated-zero-column.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc.erase("expect");
  MutantsOptions o;
  o.paths = {Write("zero-column.json", doc.dump())};
  o.backend = BackendKind::kHost;
  EXPECT_EQ(kExitFindings, RunMutants(o, out_, err_));
  EXPECT_NE(std::string::npos, out_.str().find("FAIL  fixed: " + o.paths[0] + ": group attn: null_block fired 1 times"))
      << out_.str();
}

TEST_F(CliTest, ListShowsTheRegistries) {
  EXPECT_EQ(kExitHolds, RunList(false, false, out_));
  for (const char* name : {"paged", "fixed", "unguarded", "dummy_reads_row", "pad_from_n", "differential",
                           "null_block", "row_bounds", "golden", "null_bytes", "write_set", "no_fault"})
    EXPECT_NE(std::string::npos, out_.str().find(std::string("  ") + name + ":")) << name;
}

TEST_F(CliTest, ListShowsEachFamilysParameters) {
  EXPECT_EQ(kExitHolds, RunList(false, false, out_));
  EXPECT_NE(std::string::npos,
            out_.str().find("    param ring_block_size (i32, 1 .. 2147483647, divides capacity; default required)"));
  EXPECT_NE(std::string::npos, out_.str().find("    param dcp/rank (i32, 0 .. dcp_world - 1; default 0)"));
  EXPECT_NE(std::string::npos, out_.str().find("    from families/compressor_ring.json (built in); runs slotguard's own kernel"));
}

// `list --json`: every invariant and family of the registries, by name.
TEST_F(CliTest, ListJsonHoldsTheRegistries) {
  EXPECT_EQ(kExitHolds, RunList(false, true, out_));
  const nlohmann::json j = nlohmann::json::parse(out_.str());
  EXPECT_EQ(1, j["slotguard_list"]);
  std::set<std::string> invariants, families;
  for (const auto& i : j["invariants"]) invariants.insert(i["name"].get<std::string>());
  for (const auto& f : j["families"]) families.insert(f["name"].get<std::string>());
  EXPECT_EQ((std::set<std::string>{"differential", "null_block", "negative_lands", "null_owner_pad", "pad_exact", "padding_tail",
                                   "in_range", "own_block", "unique_slots", "row_bounds", "live_maps", "golden",
                                   "pad_marker", "skip_agrees", "live_state", "unique_state", "state_writes",
                                   "op_null_src", "op_null_dst", "op_foreign_dst", "gathered_row", "null_bytes",
                                   "write_set", "null_read", "no_fault", "window_reads"}),
            invariants);
  EXPECT_EQ((std::set<std::string>{"paged", "kpool_tail", "qsa_ring", "qsa_compressed", "compressor_ring",
                                   "dsv4_compressed", "eagle_step", "eagle_step_chain", "dflash",
                                   "vllm_extract_hidden_states", "sglang_out_cache_loc", "flashinfer_append", "flashinfer_batch_indices",
                                   "trtllm_paged", "lmcache_vllm_adapter", "vllm_encoder_only", "vllm_mamba", "vllm_gdn",
                                   "vllm_lightning", "sglang_mamba",
                                   "vllm_mamba_copy", "vllm_mamba_postcopy", "vllm_offload_store", "vllm_parallel_drafting", "vllm_sliding_window", "vllm_gather_block_tables",
                                   "vllm_hisparse_compressed"}),
            families);
  EXPECT_EQ("unguarded", j["families"][0]["variants"][1]["name"]);
  EXPECT_EQ("block_size", j["families"][0]["params"][0]["key"]);
}

// docs/families.md holds the table `slotguard list --params-markdown` prints,
// so the docs cannot drift from the table that drives the loader.
TEST_F(CliTest, TheDocsParameterTableIsTheRegistrys) {
  EXPECT_EQ(kExitHolds, RunList(true, false, out_));
  std::ifstream in(std::string(SLOTGUARD_SOURCE_DIR) + "/docs/families.md");
  std::stringstream docs;
  docs << in.rdbuf();
  EXPECT_EQ(0u, out_.str().find("| family | key | name | type |"));
  EXPECT_NE(std::string::npos, docs.str().find(out_.str()))
      << "docs/families.md: paste the output of `slotguard list --params-markdown`";
}

// The binary: CLI11 parse errors are usage errors (exit 2, one line).
int RunBinary(const std::string& args, std::string* output) {
  const std::string cmd = std::string(SLOTGUARD_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  char buf[4096];
  output->clear();
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) output->append(buf, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// One stream alone: `redirect` "2>&1 >/dev/null" reads stderr, "2>/dev/null" stdout.
int RunBinaryWith(const std::string& args, const std::string& redirect, std::string* err) {
  const std::string cmd = std::string(SLOTGUARD_BINARY) + " " + args + " " + redirect;
  FILE* pipe = popen(cmd.c_str(), "r");
  char buf[4096];
  err->clear();
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) err->append(buf, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Each case: the arguments, the exit code and the whole output (one line).
struct UsageCase {
  const char* args;
  int code;
  const char* line;
};

void ExpectLines(const std::vector<UsageCase>& cases) {
  for (const UsageCase& c : cases) {
    std::string out;
    EXPECT_EQ(c.code, RunBinary(c.args, &out)) << c.args << "\n" << out;
    EXPECT_EQ(std::string(c.line) + "\n", out) << c.args;
  }
}

// --device K indexes into CUDA_VISIBLE_DEVICES when it is set: past its
// list is bad input, before any CUDA call (so also on a machine without a GPU).
TEST(BinaryTest, ADevicePastCudaVisibleDevicesIsOneLine) {
  setenv("CUDA_VISIBLE_DEVICES", "4,5", 1);  // this test's process only (ctest runs each alone)
  ExpectLines({{"check --device 2 scenarios/paged", 2,
                "slotguard: error: --device 2: CUDA_VISIBLE_DEVICES='4,5' lists 2 devices; expected an index from 0 "
                "to 1 into that list"},
               {"fuzz --device -1", 2,
                "slotguard: error: --device: expected an integer from 0 to 1023, got '-1'"}});
  // Set but empty hides every device: --device does not bring one back.
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  ExpectLines({{"check --device 0 scenarios/paged", 2,
                "slotguard: error: --device 0: CUDA_VISIBLE_DEVICES='' lists 0 devices; expected a "
                "CUDA_VISIBLE_DEVICES that lists the device, or none set"}});
  unsetenv("CUDA_VISIBLE_DEVICES");
}

TEST(BinaryTest, UsageErrorsExit2) {
  std::string out;
  EXPECT_EQ(2, RunBinary("check --backend tpu", &out));
  EXPECT_EQ("slotguard: error: --backend: expected one of auto, gpu, host, got 'tpu'; did you mean 'gpu'?\n", out);
  EXPECT_EQ(2, RunBinary("check --cuda-graph --zero-null after", &out));
  EXPECT_EQ(0u, out.find("slotguard: error: --zero-null: expected one of never, before_capture, after_capture, got "
                         "'after'")) << out;
  EXPECT_EQ(1, std::count(out.begin(), out.end(), '\n')) << out;
  EXPECT_EQ(2, RunBinary("replay", &out));  // CLI11's own: the file is required
  EXPECT_EQ(0u, out.find("slotguard: error: ")) << out;
  EXPECT_EQ(1, std::count(out.begin(), out.end(), '\n')) << out;
}

TEST(BinaryTest, UnknownCommandsAndFlagsSuggestTheirNames) {
  ExpectLines({
      {"chek", 2, "slotguard: error: unknown command 'chek'; did you mean 'check'?"},
      {"mutant scenarios/", 2, "slotguard: error: unknown command 'mutant'; did you mean 'mutants'?"},
      {"frobnicate", 2,
       "slotguard: error: unknown command 'frobnicate'; expected one of check, replay, mutants, fuzz, prove, merge, "
       "import, list, bench"},
      {"", 2,
       "slotguard: error: expected a command: one of check, replay, mutants, fuzz, prove, merge, import, list, bench; see "
       "slotguard --help"},
      {"check --junt x", 2, "slotguard: error: check: unknown option '--junt'; did you mean '--junit'?"},
      {"check --backend host --writters scenarios/", 2,
       "slotguard: error: check: unknown option '--writters'; did you mean '--writers'?"},
      {"fuzz --famly=paged", 2, "slotguard: error: fuzz: unknown option '--famly'; did you mean '--family'?"},
      {"fuzz --cuda-graph", 2, "slotguard: error: fuzz: unknown option '--cuda-graph'; see slotguard fuzz --help"},
      {"check --frobnicate", 2, "slotguard: error: check: unknown option '--frobnicate'; see slotguard check --help"},
  });
}

TEST(BinaryTest, UnknownFamiliesAndVariantsSuggestTheirNames) {
  std::string out;
  EXPECT_EQ(2, RunBinary("fuzz --backend host --runs 1 --family kpool", &out));
  EXPECT_EQ("slotguard: error: --family: unknown kernel family 'kpool', did you mean 'kpool_tail'?; expected one of paged, "
            "kpool_tail, qsa_ring, qsa_compressed, compressor_ring, dflash, dsv4_compressed, eagle_step, "
            "eagle_step_chain, flashinfer_append, flashinfer_batch_indices, lmcache_vllm_adapter, sglang_mamba, sglang_out_cache_loc, trtllm_paged, "
            "vllm_encoder_only, vllm_extract_hidden_states, vllm_gather_block_tables, vllm_gdn, vllm_hisparse_compressed, vllm_lightning, vllm_mamba, vllm_mamba_copy, vllm_mamba_postcopy, vllm_offload_store, vllm_parallel_drafting, vllm_sliding_window\n",
            out);
  EXPECT_EQ(2, RunBinary("fuzz --backend host --runs 1 --family pagd", &out));
  EXPECT_EQ(0u, out.find("slotguard: error: --family: unknown kernel family 'pagd', did you mean 'paged'?; expected one of "))
      << out;
  EXPECT_EQ(2, RunBinary("fuzz --backend host --runs 1 --variant unguardd", &out));
  EXPECT_EQ(0u, out.find("slotguard: error: unknown variant 'unguardd', did you mean 'unguarded'?; expected one of "))
      << out;
  EXPECT_EQ(1, std::count(out.begin(), out.end(), '\n')) << out;
}

TEST(BinaryTest, NumbersAreCheckedInWords) {
  ExpectLines({
      {"fuzz --runs abc", 2, "slotguard: error: --runs: expected a non-negative integer, got 'abc'"},
      {"fuzz --runs 99999999999999999999", 2,
       "slotguard: error: --runs: expected a non-negative integer up to 9223372036854775807, got "
       "'99999999999999999999'"},
      {"fuzz --runs 1.5", 2, "slotguard: error: --runs: expected a non-negative integer, got '1.5'"},
      {"fuzz --seed -1", 2, "slotguard: error: --seed: expected a non-negative integer, got '-1'"},
      {"fuzz --seed 0x10", 2, "slotguard: error: --seed: expected a non-negative integer, got '0x10'"},
      {"fuzz --seed 18446744073709551616", 2,
       "slotguard: error: --seed: expected a non-negative integer up to 18446744073709551615, got "
       "'18446744073709551616'"},
      {"fuzz --time soon", 2, "slotguard: error: --time: expected a non-negative number, got 'soon'"},
      {"fuzz --time -5", 2, "slotguard: error: --time: expected a non-negative number, got '-5'"},
      {"fuzz --time nan", 2, "slotguard: error: --time: expected a non-negative number, got 'nan'"},
      {"fuzz --max-requests 5000", 2, "slotguard: error: --max-requests: expected an integer from 1 to 4096, got '5000'"},
      {"fuzz -j 0", 2, "slotguard: error: --jobs: expected an integer from 1 to 1024, got '0'"},
      {"check --jobs many", 2, "slotguard: error: --jobs: expected an integer from 1 to 1024, got 'many'"},
      {"mutants -j 2000", 2, "slotguard: error: --jobs: expected an integer from 1 to 1024, got '2000'"},
      {"check --timeout 1m", 2, "slotguard: error: --timeout: expected a non-negative number, got '1m'"},
      {"check --max-tokens 0", 2, "slotguard: error: --max-tokens: expected a positive integer, got '0'"},
      {"replay --max-requests -3 x.json", 2, "slotguard: error: --max-requests: expected a positive integer, got '-3'"},
      {"check --max-table-entries 1e6", 2,
       "slotguard: error: --max-table-entries: expected a positive integer, got '1e6'"},
      {"check --max-cache-mib lots", 2, "slotguard: error: --max-cache-mib: expected an integer from 1 to 1073741824, got 'lots'"},
      {"fuzz --shard 2/2", 2,
       "slotguard: error: --shard: expected I/N with 0 <= I < N <= 1073741824 (this campaign's shard of N), got '2/2'"},
      {"fuzz --shard 1", 2,
       "slotguard: error: --shard: expected I/N with 0 <= I < N <= 1073741824 (this campaign's shard of N), got '1'"},
      {"fuzz --shard 0/1073741825", 2,
       "slotguard: error: --shard: expected I/N with 0 <= I < N <= 1073741824 (this campaign's shard of N), got "
       "'0/1073741825'"},
      // A value is shown escaped: the error stays one line.
      {"fuzz --runs \"$(printf 'a\\nb')\"", 2, "slotguard: error: --runs: expected a non-negative integer, got 'a\\nb'"},
      {"check --head-bytes 12", 2, "slotguard: error: --head-bytes: expected a multiple of 8 from 8 to 4096, got '12'"},
      {"fuzz --head-bytes x", 2, "slotguard: error: --head-bytes: expected a multiple of 8 from 8 to 4096, got 'x'"},
      {"bench --repeats 0", 2, "slotguard: error: --repeats: expected an integer from 1 to 100000, got '0'"},
      {"bench --tokens 1024 x", 2, "slotguard: error: --tokens: expected a positive integer, got 'x'"},
      {"bench --head-bytes 4", 2, "slotguard: error: --head-bytes: expected an integer from 8 to 4096, got '4'"},
      {"bench --host-tokens -1", 2, "slotguard: error: --host-tokens: expected a positive integer, got '-1'"},
  });
  std::string out;  // the largest seed is a seed
  EXPECT_EQ(0, RunBinary("fuzz --backend host --runs 3 --seed 18446744073709551615 --out " + ScratchPath("findings"), &out))
      << out;
  // The most shards, and leading zeros, are shards.
  const std::string out_dir = " --out " + ScratchPath("findings");
  EXPECT_EQ(0, RunBinary("fuzz --backend host --runs 0 --shard 1073741823/1073741824" + out_dir, &out)) << out;
  EXPECT_EQ(0, RunBinary("fuzz --backend host --runs 1 --shard 0001/0002" + out_dir, &out)) << out;
}

// An empty path is refused, not taken as "none": an unset variable in a CI
// script must not turn the suppressions or a report off and pass.
TEST(BinaryTest, AnEmptyPathIsAnError) {
  ExpectLines({
      {"check --backend host --suppressions '' scenarios/paged", 2,
       "slotguard: error: --suppressions: expected a path, got '' (an empty value: an unset variable?)"},
      {"check --backend host --json '' scenarios/paged", 2,
       "slotguard: error: --json: expected a path, got '' (an empty value: an unset variable?)"},
      {"check --backend host --sarif '' scenarios/paged", 2,
       "slotguard: error: --sarif: expected a path, got '' (an empty value: an unset variable?)"},
      {"check --backend host --junit '' scenarios/paged", 2,
       "slotguard: error: --junit: expected a path, got '' (an empty value: an unset variable?)"},
      {"check --backend host ''", 2, "slotguard: error: paths: expected a path, got '' (an empty value: an unset variable?)"},
      {"replay --backend host --html '' scenarios/paged/decode.json", 2,
       "slotguard: error: --html: expected a path, got '' (an empty value: an unset variable?)"},
      {"fuzz --backend host --runs 1 --suppressions ''", 2,
       "slotguard: error: --suppressions: expected a path, got '' (an empty value: an unset variable?)"},
      {"fuzz --backend host --runs 1 --out ''", 2,
       "slotguard: error: --out: expected a path, got '' (an empty value: an unset variable?)"},
      {"fuzz --backend host --runs 1 --kernel-cmd ''", 2,
       "slotguard: error: --kernel-cmd: expected a command, got '' (an empty value: an unset variable?)"},
      {"import ''", 2, "slotguard: error: file: expected a path, got '' (an empty value: an unset variable?)"},
      // "--json=" is no value to CLI11, which would take the next argument.
      {"check --backend host --json= scenarios/paged/decode.json", 2,
       "slotguard: error: --json: expected a value after '=', got '' (an empty value: an unset variable?)"},
      {"fuzz --backend host --runs 1 --out= --json f.json", 2,
       "slotguard: error: --out: expected a value after '=', got '' (an empty value: an unset variable?)"},
  });
}

// A report is never written over an input or another report: the same
// file, by another spelling too, is bad input before anything runs.
TEST(BinaryTest, AReportOverAnInputOrAnotherReportIsAnError) {
  const std::string dir = ScratchDir().string();
  const std::string known = dir + "/known.json", scenario = dir + "/decode.json";
  std::ofstream(known) << R"({"slotguard_suppressions": 1, "suppressions": []})";
  fs::copy_file(kScenarios + "/paged/decode.json", scenario, fs::copy_options::overwrite_existing);
  fs::create_directories(dir + "/sub");
  ExpectLines({
      {("check --backend host --json " + dir + "/./known.json --suppressions " + known + " " + scenario).c_str(), 2,
       ("slotguard: error: --json " + dir + "/./known.json: the same file as --suppressions " + known +
        "; expected a path of its own (writing it would overwrite that input)").c_str()},
      {("check --backend host --sarif " + scenario + " " + dir).c_str(), 2,
       ("slotguard: error: --sarif " + scenario + ": the same file as scenario file " + scenario +
        "; expected a path of its own (writing it would overwrite that input)").c_str()},
      {("check --backend host --json " + dir + "/r.json --junit " + dir + "/sub/../r.json " + scenario).c_str(), 2,
       ("slotguard: error: --json " + dir + "/r.json: the same file as --junit " + dir +
        "/sub/../r.json; expected a path of its own (writing it would overwrite that report)").c_str()},
      {("fuzz --backend host --runs 1 --sarif " + known + " --suppressions " + known).c_str(), 2,
       ("slotguard: error: --sarif " + known + ": the same file as --suppressions " + known +
        "; expected a path of its own (writing it would overwrite that input)").c_str()},
      // Relative, neither written yet (the tests run in the source tree).
      {("check --backend host --json same-report.json --sarif ./same-report.json " + scenario).c_str(), 2,
       "slotguard: error: --sarif ./same-report.json: the same file as --json same-report.json; expected a path of "
       "its own (writing it would overwrite that report)"},
      {("replay --backend host --html " + scenario + " " + scenario).c_str(), 2,
       ("slotguard: error: --html " + scenario + ": the same file as the scenario file " + scenario +
        "; expected a path of its own (writing it would overwrite that input)").c_str()},
  });
  std::ifstream in(known);
  EXPECT_EQ(R"({"slotguard_suppressions": 1, "suppressions": []})",
            std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
}

// The implementation's files are inputs too: a report over --kernel-lib,
// --kernel-spec, --kernel-cubin or the --kernel-cmd script is refused before
// anything runs (a plugin written over while it is mapped was SIGBUS).
TEST(BinaryTest, AReportOverTheImplementationsFilesIsAnError) {
  const std::string dir = ScratchDir().string();
  const std::string script = dir + "/provider.py", lib = dir + "/plug.so";
  std::ofstream(script) << "raise SystemExit(1)\n";
  std::ofstream(lib) << "not a library";
  ExpectLines({
      {("check --backend host --kernel-cmd 'python3 " + script + "' --json " + script + " scenarios/paged/decode.json").c_str(), 2,
       ("slotguard: error: --json " + script + ": the same file as --kernel-cmd's " + script +
        "; expected a path of its own (writing it would overwrite that input)").c_str()},
      {("check --backend host --kernel-lib " + lib + " --sarif " + dir + "/../" + fs::path(dir).filename().string() +
        "/plug.so scenarios/paged/decode.json").c_str(), 2,
       ("slotguard: error: --sarif " + dir + "/../" + fs::path(dir).filename().string() +
        "/plug.so: the same file as --kernel-lib " + lib + "; expected a path of its own (writing it would overwrite "
        "that input)").c_str()},
      {("replay --backend host --kernel-lib " + lib + " --html " + lib + " scenarios/paged/decode.json").c_str(), 2,
       ("slotguard: error: --html " + lib + ": the same file as --kernel-lib " + lib +
        "; expected a path of its own (writing it would overwrite that input)").c_str()},
      {("fuzz --backend host --runs 1 --kernel-spec " + script + " --kernel-cubin " + lib + " --json " + lib).c_str(), 2,
       ("slotguard: error: --json " + lib + ": the same file as --kernel-cubin " + lib +
        "; expected a path of its own (writing it would overwrite that input)").c_str()},
  });
  std::ifstream in(lib);
  EXPECT_EQ("not a library", std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
}

// import -o: the wrong kind of path is bad input before the artifact is
// read (exit 2); a write that fails is the machine's problem (exit 3).
TEST(BinaryTest, ImportOutputPaths) {
  const std::string dir = ScratchDir().string();
  const std::string fifo = dir + "/fifo", artifact = dir + "/crash-1";
  ASSERT_EQ(0, mkfifo(fifo.c_str(), 0600));
  std::ofstream(artifact) << "0123456789abcdef0123456789abcdef";
  ExpectLines({
      {("import -o " + fifo + " " + artifact).c_str(), 2,
       ("slotguard: error: -o " + fifo +
        ": not a regular file (a FIFO); expected a regular file or a new file in an existing folder").c_str()},
      {("import -o " + artifact + " " + artifact).c_str(), 2,
       ("slotguard: error: -o " + artifact + ": the same file as the artifact " + artifact +
        "; expected a path of its own (writing it would overwrite that input)").c_str()},
      {("import -o /proc/version " + artifact).c_str(), 3,
       "slotguard: error: -o /proc/version: cannot write the scenario file: Input/output error"},
  });
  std::string out;
  EXPECT_EQ(0, RunBinary("import -o " + dir + "/imported.json " + artifact, &out)) << out;
  EXPECT_EQ("slotguard: import: scenario written to " + dir + "/imported.json\n", out);
}

// A path from the command line is escaped in the error that names it.
TEST(BinaryTest, AnUnwritableReportPathIsOneEscapedLine) {
  ExpectLines({{"check --backend host -q --json \"$(printf 'no\\nsuch/r.json')\" scenarios/paged/decode.json", 2,
                "slotguard: error: --json no\\nsuch/r.json: its folder 'no\\nsuch' does not exist; expected a regular "
                "file or a new file in an existing folder"},
               {"check --backend host -q --kernel-lib \"$(printf 'x\\ny.so')\" scenarios/paged/decode.json", 2,
                "slotguard: error: --kernel-lib x\\ny.so: no such file or directory; expected a slotguard plugin (.so)"}});
}

TEST(BinaryTest, EnumsAreTakenByNameOnly) {
  ExpectLines({
      {"check --backend hots", 2,
       "slotguard: error: --backend: expected one of auto, gpu, host, got 'hots'; did you mean 'host'?"},
      {"check --backend 2", 2, "slotguard: error: --backend: expected one of auto, gpu, host, got '2'"},
      {"fuzz --backend 0", 2, "slotguard: error: --backend: expected one of auto, gpu, host, got '0'"},
      {"check --backend host --table-layout tigth scenarios/", 2,
       "slotguard: error: --table-layout: expected one of padded, tight, strided, got 'tigth'; did you mean "
       "'tight'?"},
      {"replay --table-layout 1 x.json", 2,
       "slotguard: error: --table-layout: expected one of padded, tight, strided, got '1'"},
  });
  std::string out;  // names in any case, as before
  EXPECT_EQ(0, RunBinary("check --backend HOST --quiet scenarios/paged/decode.json", &out)) << out;
}

TEST(BinaryTest, AVariantThatNoGroupHasIsAnError) {
  std::string out;
  EXPECT_EQ(2, RunBinary("check --backend host --variant clamp scenarios/paged", &out));
  EXPECT_EQ("slotguard: error: --variant clamp: no group of the scenarios under scenarios/paged has it; expected a "
            "group of a family with it (compressor_ring)\n",
            out);
  // One that the scenario has still runs (decode catches no paged mutant).
  EXPECT_EQ(0, RunBinary("check --backend host --variant unguarded --quiet scenarios/paged/decode.json", &out)) << out;
}

TEST(BinaryTest, AFailingScenarioOutranksABadFile) {
  const fs::path dir = ScratchDir() / "mixed";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "bad.json") << R"({"slotguard": 1, "name": "b", "num_blocks": -4})";
  std::ifstream in(kScenarios + "/paged/mutants/pad-from-n.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc.erase("expect");
  std::ofstream(dir / "stale.json") << doc.dump();
  std::string err, out;
  EXPECT_EQ(1, RunBinaryWith("check --backend host " + dir.string(), "2>&1 >/dev/null", &err));
  EXPECT_EQ("ERROR " + (dir / "bad.json").string() +
                ":/num_blocks: num_blocks out of range; expected 1 <= num_blocks <= 2147483647, got -4\n",
            err);
  EXPECT_EQ(1, RunBinaryWith("check --backend host --quiet " + dir.string(), "2>/dev/null", &out));
  // pad_from_n leaves tokens 3..7 (past qsl[R] = 3) at the buffer's 0: slot 0, in block 0.
  EXPECT_EQ(0u, out.find("FAIL  " + (dir / "stale.json").string() + " (paged-pad-from-n): ")) << out;
  EXPECT_NE(std::string::npos, out.find("\n  group attn: padding wrote slot 0 of block 0 (tokens 3-7); reference PAD\n"))
      << out;
  EXPECT_NE(std::string::npos, LastLine(out).find("(0 hold, 1 fail, 1 bad input)")) << out;
}

TEST(BinaryTest, EachCommandsHelpEndsWithExamplesAndExitCodes) {
  for (const char* command : {"check", "replay", "fuzz", "mutants", "import", "list", "bench"}) {
    std::string out;
    EXPECT_EQ(0, RunBinary(std::string(command) + " --help", &out)) << command;
    const size_t examples = out.find("\nExamples:\n  slotguard " + std::string(command));
    const size_t codes = out.find("\nExit codes:\n  0 ");
    ASSERT_NE(std::string::npos, examples) << command << "\n" << out;
    ASSERT_NE(std::string::npos, codes) << command << "\n" << out;
    EXPECT_LT(out.find("Options:"), examples) << command;
    EXPECT_LT(examples, codes) << command;
    // "\nExamples:\n" + a line per example + "\n" before "Exit codes:".
    const size_t example_count = std::count(out.begin() + examples, out.begin() + codes, '\n') - 2;
    EXPECT_GE(example_count, 2u) << command;
    EXPECT_LE(example_count, 3u) << command;
    // The exit codes are the last lines.
    EXPECT_EQ(0u, LastLine(out).find("  ")) << command << "\n" << out;
    EXPECT_NE(std::string::npos, out.find("  2 ", codes)) << command;
  }
}

TEST(BinaryTest, WriterFlags) {
  std::string out;
  EXPECT_EQ(2, RunBinary("check --backend host --writers --head-bytes 12 scenarios/", &out));
  EXPECT_EQ("slotguard: error: --head-bytes: expected a multiple of 8 from 8 to 4096, got '12'\n", out);
  EXPECT_EQ(0, RunBinary("check --backend host --writers --quiet scenarios/", &out)) << out;
  EXPECT_EQ(0, RunBinary("check --backend host --cuda-graph --isolate --jobs 2 --quiet scenarios/", &out)) << out;
  EXPECT_NE(std::string::npos, out.find(" 0 fail)")) << out;
}

TEST(BinaryTest, VersionAndHelp) {
  std::string out;
  EXPECT_EQ(0, RunBinary("--version", &out));
  EXPECT_EQ(0u, out.find("slotguard "));
  EXPECT_EQ(0, RunBinary("check --help", &out));
  EXPECT_NE(std::string::npos, out.find("--variant"));
  for (const char* flag : {"--writers", "--head-bytes", "--cuda-graph", "--isolate", "--timeout"})
    EXPECT_NE(std::string::npos, out.find(flag)) << flag;
  for (const char* command : {"check", "replay", "mutants", "fuzz"}) {
    EXPECT_EQ(0, RunBinary(std::string(command) + " --help", &out));
    EXPECT_NE(std::string::npos, out.find("--table-layout TEXT:{padded,tight,strided}")) << command << "\n" << out;
  }
  EXPECT_EQ(0, RunBinary("--help", &out));
  EXPECT_EQ(std::string::npos, out.find("__worker")) << "the worker subcommand is hidden";
}

}  // namespace
}  // namespace slotguard
