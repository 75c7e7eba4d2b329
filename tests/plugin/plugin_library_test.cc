// --kernel-lib on the host backend (what CI runs): the example plugins of
// examples/plugins/ through check, fuzz, replay and mutants, and the
// one-line refusals of plugins slotguard cannot use.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "family/group_model.h"
#include "backend/isolated_backend.h"
#include "cli/commands.h"
#include "plan/mapping_provider.h"
#include "plugin/open_provider.h"
#include "fuzzing/fuzz_setup.h"
#include "scenario/scenario_json.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

namespace fs = std::filesystem;

const std::string kExamples = SLOTGUARD_EXAMPLES_DIR;
const std::string kFixtures = SLOTGUARD_FIXTURES_DIR;
const std::string kScenarios = SLOTGUARD_SOURCE_DIR "/scenarios";

// A campaign over a plugin with two planted bugs and a known difference
// (examples/plugins/rings_campaign.cu): --keep-going reports exactly the
// two, one reproducer each, and counts the known one as suppressed.
void ExpectTwoBugsAndTheKnownDifference(const std::string& json_path, const std::string& sarif_path,
                                        const std::string& out) {
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(json_path));
  EXPECT_TRUE(j["found"]) << out;
  EXPECT_EQ(2, j["distinct_findings"]) << out;
  std::set<std::string> families;
  for (const nlohmann::json& f : j["findings"]) {
    ASSERT_TRUE(f["suppressed_by"].is_null()) << f.dump();
    ASSERT_EQ(1u, f["families"].size()) << f.dump();
    families.insert(f["families"][0].get<std::string>());
    EXPECT_EQ("plugin example-rings-campaign", f["implementation"]);
    EXPECT_TRUE(fs::exists(f["file"].get<std::string>())) << f.dump();
  }
  EXPECT_EQ((std::set<std::string>{"kpool_tail", "qsa_ring"}), families);
  ASSERT_EQ(1u, j["suppressions"].size());
  EXPECT_EQ("kpool-empty-batch", j["suppressions"][0]["id"]);
  EXPECT_GT(j["suppressions"][0]["matched"].get<int64_t>(), 0) << "the known difference fired, and was suppressed";
  const nlohmann::json sarif = nlohmann::json::parse(std::ifstream(sarif_path));
  const nlohmann::json& results = sarif["runs"][0]["results"];
  ASSERT_EQ(2u, results.size());
  EXPECT_NE(results[0]["partialFingerprints"]["slotguardFinding/v1"],
            results[1]["partialFingerprints"]["slotguardFinding/v1"]);
}

std::string LastLine(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

class PluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetWorkerExecutable(SLOTGUARD_BINARY);
    dir_ = ScratchDir() / "plugin";
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  int Check(const std::string& lib, std::vector<std::string> paths = {kScenarios}) {
    CheckOptions o;
    o.paths = std::move(paths);
    o.backend = BackendKind::kHost;
    o.quiet = true;
    o.setup.provider.kernel_lib = lib;
    out_.str("");
    err_.str("");
    return RunCheck(o, out_, err_);
  }
  int Fuzz(const std::string& lib, int64_t runs) {
    FuzzOptions o;
    o.backend = BackendKind::kHost;
    o.settings.runs = runs;
    o.settings.seed = 1;
    o.settings.out_dir = (dir_ / "findings").string();
    o.setup.provider.kernel_lib = lib;
    out_.str("");
    err_.str("");
    return RunFuzz(o, out_, err_);
  }
  fs::path dir_;
  std::ostringstream out_, err_;
};

TEST_F(PluginTest, TheCorrectPluginHoldsEveryScenarioAndTheReportNamesIt) {
  EXPECT_EQ(kExitHolds, Check(kExamples + "/libsg_rings.so")) << out_.str() << err_.str();
  EXPECT_NE(std::string::npos,
            LastLine(out_.str()).find("kernels from plugin example-rings (" + kExamples + "/libsg_rings.so)"))
      << out_.str();
  EXPECT_EQ(kExitHolds, Check(kExamples + "/libsg_minimal_kpool_tail.so")) << out_.str() << err_.str();
}

// A plugin of per-request families (examples/plugins/mamba_states.cu):
// the call names the kind and the output length (ABI 3), and the plugin
// holds the state-index and copy scenarios and a campaign over the four
// families it implements, whose batches have requests of every kind
// (dummies, padded rows, no rows).
TEST_F(PluginTest, APerRequestPluginHoldsItsFamiliesScenariosAndACampaign) {
  const std::string lib = kExamples + "/libsg_mamba_states.so";
  const std::string engines = std::string(SLOTGUARD_SOURCE_DIR) + "/scenarios/engines/";
  const std::vector<std::string> dirs = {engines + "vllm_mamba", engines + "vllm_gdn", engines + "vllm_lightning",
                                         engines + "vllm_mamba_copy"};
  EXPECT_EQ(kExitHolds, Check(lib, dirs)) << out_.str() << err_.str();
  // Every file of the four folders, each run once: all of them hold.
  int files = 0;
  for (const std::string& dir : dirs)
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
      files += e.is_regular_file() && e.path().extension() == ".json";
  EXPECT_GE(files, 34);
  const std::string runs = std::to_string(files);
  EXPECT_NE(std::string::npos, LastLine(out_.str()).find(runs + " scenario runs (" + runs + " hold, 0 fail)"))
      << out_.str();
  EXPECT_EQ(kExitHolds, Fuzz(lib, 4000)) << out_.str() << err_.str();
  EXPECT_NE(std::string::npos, LastLine(out_.str()).find("4000 scenarios")) << out_.str();
}

TEST_F(PluginTest, TheCorrectPluginSurvivesAFuzzCampaign) {
  EXPECT_EQ(kExitHolds, Fuzz(kExamples + "/libsg_rings.so", 3000)) << out_.str() << err_.str();
  EXPECT_NE(std::string::npos, LastLine(out_.str()).find("no finding")) << out_.str();
}

TEST_F(PluginTest, TheBuggyPluginIsCaughtByACuratedScenario) {
  EXPECT_EQ(kExitFindings, Check(kExamples + "/libsg_rings_buggy.so")) << out_.str() << err_.str();
  EXPECT_NE(std::string::npos, out_.str().find("FAIL  " + kScenarios + "/rings/qsa-keep-suffix.json")) << out_.str();
}

TEST_F(PluginTest, FuzzFindsTheBuggyPluginAndMinimizesIt) {
  ASSERT_EQ(kExitFindings, Fuzz(kExamples + "/libsg_rings_buggy.so", 20000)) << out_.str() << err_.str();
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir_ / "findings")) files.push_back(e.path());
  ASSERT_EQ(1u, files.size());
  Scenario s;
  std::string err;
  ASSERT_TRUE(LoadScenarioFile(files[0].string(), LoadLimits(), &s, &err)) << err;
  // The bug needs one request with at least `ring` new tokens and nothing else.
  ASSERT_EQ(1u, s.groups.size());
  EXPECT_EQ(Family::kQsaRing, s.groups[0].family);
  EXPECT_EQ(1, s.batch.num_reqs());
  EXPECT_LE(s.batch.num_real_tokens(), 2 * ParamOf(s.groups[0], "ring")) << WriteScenarioJson(s);
  EXPECT_GE(s.batch.num_real_tokens(), ParamOf(s.groups[0], "ring")) << WriteScenarioJson(s);
  // It fails with the buggy plugin and holds with the correct one.
  EXPECT_EQ(kExitFindings, Check(kExamples + "/libsg_rings_buggy.so", {files[0].string()}));
  EXPECT_EQ(kExitHolds, Check(kExamples + "/libsg_rings.so", {files[0].string()})) << out_.str();
}

TEST_F(PluginTest, ACrashingPluginCostsOnlyItsScenarios) {
  // The asserting plugin aborts on a dummy request: those scenarios get a
  // no_fault finding, every other scenario is still checked and holds.
  EXPECT_EQ(kExitFindings, Check(kExamples + "/libsg_asserting_paged.so")) << out_.str() << err_.str();
  EXPECT_NE(std::string::npos, out_.str().find("no_fault: the worker process killed by SIGABRT (Aborted)"))
      << out_.str();
  const std::string summary = LastLine(out_.str());
  size_t files = 0;  // every curated scenario still ran
  for (const auto& entry : fs::recursive_directory_iterator(kScenarios))
    files += entry.path().extension() == ".json";
  EXPECT_EQ(0u, summary.find("slotguard: " + std::to_string(files) + " scenario runs (")) << summary;
  EXPECT_EQ("", err_.str());
  // A scenario without dummies holds.
  EXPECT_EQ(kExitHolds, Check(kExamples + "/libsg_asserting_paged.so", {kScenarios + "/paged/decode.json"}))
      << out_.str();
}

// The worker says which group's call it is in (util/running_group.h): a
// plugin that crashes on the second group is that group's no_fault, not
// the first group's (which ran on slotguard's own kernels and holds).
TEST_F(PluginTest, ACrashIsTheNoFaultOfTheGroupWhoseCallCrashed) {
  const std::string file = SLOTGUARD_SOURCE_DIR "/tests/plugin/fixtures/crash-in-second-group.json";
  EXPECT_EQ(kExitFindings, Check(kExamples + "/libsg_asserting_paged.so", {file})) << err_.str();
  EXPECT_NE(std::string::npos,
            out_.str().find("group plugin_paged: no_fault: the worker process killed by SIGABRT (Aborted)"))
      << out_.str();
  EXPECT_EQ(std::string::npos, out_.str().find("group own_kpool: no_fault")) << out_.str();
}

TEST_F(PluginTest, MutantsWithAPluginJudgeItAsTheFixedKernel) {
  MutantsOptions o;
  o.paths = {kScenarios};
  o.backend = BackendKind::kHost;
  o.setup.provider.kernel_lib = kExamples + "/libsg_rings.so";
  EXPECT_EQ(kExitHolds, RunMutants(o, out_, err_)) << out_.str() << err_.str();
  o.setup.provider.kernel_lib = kExamples + "/libsg_rings_buggy.so";
  out_.str("");
  EXPECT_EQ(kExitFindings, RunMutants(o, out_, err_));
  EXPECT_NE(std::string::npos, out_.str().find("qsa-keep-suffix.json: group qsa: differential")) << out_.str();
}

TEST_F(PluginTest, ReplayShowsThePluginsOutput) {
  ReplayOptions o;
  o.file = kScenarios + "/rings/qsa-keep-suffix.json";
  o.backend = BackendKind::kHost;
  o.setup.provider.kernel_lib = kExamples + "/libsg_rings_buggy.so";
  EXPECT_EQ(kExitFindings, RunReplay(o, out_, err_)) << err_.str();
  EXPECT_NE(std::string::npos, out_.str().find("with plugin example-rings-buggy")) << out_.str();
}

// Refusals: one line, exit 2.
std::string OpenError(const std::string& lib) {
  ProviderSource source;
  source.kernel_lib = lib;
  std::string err;
  EXPECT_EQ(nullptr, OpenProvider(source, &err));
  return err;
}

TEST_F(PluginTest, AnAbi1PluginReadsAPersistentTableGatheredPerRequest) {
  // kpool_tail, one request reading row 1 of the persistent [[3], [5]]:
  // block 5 -> 5*4 + pos mod 4 = 21, 22. An ABI-1 plugin reads row r, so it
  // is handed the table the v1 runner built ([[5]], read by request); row 0
  // would give 13, 14.
  const fs::path file = dir_ / "v1-persistent.json";
  std::ofstream(file) << R"({"slotguard": 2, "name": "v1-persistent", "num_blocks": 8,
    "batch": {"table_rows": "idx_mapping", "query_start_loc": [0, 2], "positions": [5, 6], "idx_mapping": [1]},
    "groups": [{"name": "tail", "kernel": "kpool_tail", "kpool": 4, "block_table": [[3], [5]]}],
    "expect": {"verdict": "pass", "slot_mapping": {"tail": [21, 22]}}})";
  const std::string v1 = kFixtures + "/libsg_v1_kpool_tail.so";
  EXPECT_EQ(kExitHolds, Check(v1, {file.string()})) << out_.str() << err_.str();
  for (TableLayoutKind kind : {TableLayoutKind::kPadded, TableLayoutKind::kTight, TableLayoutKind::kStrided}) {
    CheckOptions o;
    o.paths = {file.string()};
    o.backend = BackendKind::kHost;
    o.setup.provider.kernel_lib = v1;
    o.setup.table_layout = kind;
    out_.str("");
    EXPECT_EQ(kExitHolds, RunCheck(o, out_, err_)) << TableLayoutName(kind) << "\n" << out_.str() << err_.str();
  }
  // Every request a dummy: the persistent table has no rows (and so no
  // width); the gathered one still has the column kpool_tail reads: PAD.
  const fs::path empty = dir_ / "v1-no-rows.json";
  std::ofstream(empty) << R"({"slotguard": 2, "name": "v1-no-rows", "num_blocks": 8,
    "batch": {"table_rows": "idx_mapping", "query_start_loc": [0, 2], "positions": [0, 1], "idx_mapping": [-1]},
    "groups": [{"name": "tail", "kernel": "kpool_tail", "kpool": 4, "block_table": []}],
    "expect": {"verdict": "pass", "slot_mapping": {"tail": [-1, -1]}}})";
  EXPECT_EQ(kExitHolds, Check(v1, {empty.string()})) << out_.str() << err_.str();
  // seq_lens past int32 cannot reach an ABI-1 plugin faithfully: the
  // scenario is skipped and counted, neither blamed on the kernel nor held.
  const fs::path wide = dir_ / "v1-wide-seq-lens.json";
  std::ofstream(wide) << R"({"slotguard": 1, "name": "v1-wide", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 1], "seq_lens": [4294967296]},
    "groups": [{"name": "tail", "kernel": "kpool_tail", "kpool": 4, "block_table": [[3]]}]})";
  CheckOptions loud;
  loud.paths = {wide.string()};
  loud.backend = BackendKind::kHost;
  loud.setup.provider.kernel_lib = v1;
  out_.str("");
  EXPECT_EQ(kExitHolds, RunCheck(loud, out_, err_)) << out_.str() << err_.str();
  EXPECT_NE(std::string::npos, out_.str().find("skip  " + wide.string())) << out_.str();
  EXPECT_NE(std::string::npos, out_.str().find("group tail: plugin v1-kpool-tail (" + v1 +
                                               ") takes int32 seq_lens (plugin ABI 1 or kernel spec 1) and this "
                                               "batch's reach 4294967296")) << out_.str();
  EXPECT_NE(std::string::npos, LastLine(out_.str()).find("1 skipped")) << out_.str();
}

// A gate that held keeps holding after an upgrade: the curated scenarios a
// correct ABI-1 plugin cannot take (positions past int32) are skipped and
// counted, never a no_fault.
TEST_F(PluginTest, ACorrectAbi1PluginHoldsTheCuratedScenarios) {
  const std::string v1 = kFixtures + "/libsg_v1_kpool_tail.so";
  EXPECT_EQ(kExitHolds, Check(v1)) << out_.str() << err_.str();
  EXPECT_EQ(std::string::npos, out_.str().find("no_fault")) << out_.str();
  EXPECT_NE(std::string::npos, LastLine(out_.str()).find(" skipped)")) << out_.str();
}

TEST_F(PluginTest, FuzzGeneratesSeqLensPastInt32OnlyForAProviderThatReadsThem) {
  std::string err;
  for (const auto& [lib, persistent] : {std::pair<std::string, bool>{kFixtures + "/libsg_v1_kpool_tail.so", false},
                                        std::pair<std::string, bool>{kExamples + "/libsg_rings.so", true}}) {
    std::unique_ptr<MappingProvider> provider = OpenPluginLibrary(lib, &err);
    ASSERT_NE(nullptr, provider) << err;
    GeneratorOptions generator;
    generator.int64_seq_lens = !persistent;
    ASSERT_TRUE(FitGeneratorToProvider(*provider, "", &generator, &err)) << err;
    EXPECT_EQ(persistent, generator.int64_seq_lens) << lib;
    EXPECT_EQ(provider->families(), generator.families) << lib;
  }
}

TEST_F(PluginTest, PluginsThatCannotBeUsedAreRefusedInOneLine) {
  EXPECT_EQ("--kernel-lib /nonexistent/lib.so: no such file or directory; expected a slotguard plugin (.so)",
            OpenError("/nonexistent/lib.so"));
  EXPECT_EQ(0u, OpenError(kScenarios + "/paged/decode.json").find("--kernel-lib " + kScenarios +
                                                                   "/paged/decode.json: cannot load the library: "));
  EXPECT_EQ("--kernel-lib " + kFixtures + "/libsg_bad_wrong_abi.so: plugin ABI version 5; expected 4, 3, 2 or 1 (rebuild it "
            "against this slotguard's plugin.h)",
            OpenError(kFixtures + "/libsg_bad_wrong_abi.so"));
  EXPECT_EQ("--kernel-lib " + kFixtures + "/libsg_bad_no_family.so: plugin no-family implements no family; "
            "expected at least one in sg_plugin_info.families",
            OpenError(kFixtures + "/libsg_bad_no_family.so"));
  EXPECT_EQ("--kernel-lib " + kFixtures + "/libsg_bad_unknown_family.so: plugin unknown-family lists unknown kernel "
            "family 'kpool_tial', did you mean 'kpool_tail'?; expected one of paged, kpool_tail, qsa_ring, "
            "qsa_compressed, compressor_ring, dflash, dsv4_compressed, eagle_step, eagle_step_chain, flashinfer_append, flashinfer_batch_indices, lmcache_vllm_adapter, "
            "sglang_mamba, sglang_out_cache_loc, trtllm_paged, vllm_encoder_only, vllm_extract_hidden_states, vllm_gather_block_tables, vllm_gdn, vllm_hisparse_compressed, vllm_lightning, vllm_mamba, vllm_mamba_copy, vllm_mamba_postcopy, "
            "vllm_offload_store, vllm_parallel_drafting, vllm_sliding_window",
            OpenError(kFixtures + "/libsg_bad_unknown_family.so"));
  EXPECT_EQ(kExitBadInput, Check("/nonexistent/lib.so"));
  const std::string line = err_.str();
  EXPECT_EQ(1, std::count(line.begin(), line.end(), '\n')) << line;
  EXPECT_EQ(kExitBadInput, Check(kFixtures + "/libsg_bad_device_only.so"));
  EXPECT_EQ("slotguard: error: plugin device-only (" + kFixtures +
                "/libsg_bad_device_only.so) has no host entry point (slotguard_plugin_launch_host); expected "
                "--backend gpu on a machine with a GPU\n",
            err_.str());
}

// The plugin's code never runs in slotguard's own process before a child
// has loaded it: one that crashes or exits while loading (its constructors,
// slotguard_plugin_info) is one line and exit 2, isolated or not (it was
// exit 139 with no output, or exit 0 with nothing checked).
TEST_F(PluginTest, APluginThatCrashesOrExitsWhileLoadingIsOneLine) {
  for (int isolate : {-1, 0}) {
    CheckOptions o;
    o.paths = {kScenarios + "/rings/fused-1-of-1.json"};
    o.backend = BackendKind::kHost;
    o.setup.isolate = isolate;
    o.setup.provider.kernel_lib = kFixtures + "/libsg_bad_crash_info.so";
    out_.str("");
    err_.str("");
    EXPECT_EQ(kExitBadInput, RunCheck(o, out_, err_)) << isolate;
    EXPECT_EQ("slotguard: error: --kernel-lib " + kFixtures +
                  "/libsg_bad_crash_info.so: the process loading it killed by SIGSEGV (Segmentation fault) (in its "
                  "constructors or slotguard_plugin_info); expected a slotguard plugin that loads and answers\n",
              err_.str());
    EXPECT_EQ("", out_.str());
    o.setup.provider.kernel_lib = kFixtures + "/libsg_bad_exit_info.so";
    err_.str("");
    EXPECT_EQ(kExitBadInput, RunCheck(o, out_, err_)) << isolate;
    EXPECT_EQ("slotguard: error: --kernel-lib " + kFixtures +
                  "/libsg_bad_exit_info.so: the process loading it exited with status 0 (in its constructors or "
                  "slotguard_plugin_info); expected a slotguard plugin that loads and answers\n",
              err_.str());
  }
  // fuzz and replay open it the same way.
  FuzzOptions f;
  f.backend = BackendKind::kHost;
  f.settings.runs = 10;
  f.settings.out_dir = (dir_ / "findings").string();
  f.setup.provider.kernel_lib = kFixtures + "/libsg_bad_crash_info.so";
  err_.str("");
  EXPECT_EQ(kExitBadInput, RunFuzz(f, out_, err_));
  EXPECT_NE(std::string::npos, err_.str().find("the process loading it killed by SIGSEGV")) << err_.str();
}

// A plugin's name is its own words: escaped (a newline and ESC cannot forge
// a console line) and at most 200 characters (a 1 MiB name was a 1 MiB line).
TEST_F(PluginTest, APluginsNameIsOnePrintableBoundedLine) {
  CheckOptions o;
  o.paths = {kScenarios + "/rings/fused-1-of-1.json"};
  o.backend = BackendKind::kHost;
  o.setup.provider.kernel_lib = kFixtures + "/libsg_bad_forged_name.so";
  EXPECT_EQ(kExitFindings, RunCheck(o, out_, err_)) << err_.str();
  std::istringstream lines(out_.str());
  std::string line;
  while (std::getline(lines, line)) {
    EXPECT_NE(0u, line.find("FAIL  forged")) << line;
    EXPECT_EQ(std::string::npos, line.find('\x1b')) << line;
  }
  EXPECT_NE(std::string::npos, LastLine(out_.str()).find("kernels from plugin forged  [2JFAIL  forged.json")) << out_.str();
  o.setup.provider.kernel_lib = kFixtures + "/libsg_bad_huge_name.so";
  err_.str("");
  EXPECT_EQ(kExitBadInput, RunCheck(o, out_, err_));
  EXPECT_EQ("slotguard: error: plugin " + std::string(200, 'n') + "...(1048575 bytes) (" + kFixtures +
                "/libsg_bad_huge_name.so) has no host entry point (slotguard_plugin_launch_host); expected --backend "
                "gpu on a machine with a GPU\n",
            err_.str());
}

// A FIFO as --kernel-lib is refused before anything opens it (dlopen
// blocked on it forever), and a report over the plugin is refused before
// anything runs (writing over the mapped library was SIGBUS, exit 135).
TEST_F(PluginTest, TheLibraryIsARegularFileAndNoReportOverwritesIt) {
  const std::string fifo = (dir_ / "plugin.fifo").string();
  ASSERT_EQ(0, mkfifo(fifo.c_str(), 0600));
  EXPECT_EQ(kExitBadInput, Check(fifo));
  EXPECT_EQ("slotguard: error: --kernel-lib " + fifo + ": not a regular file (a FIFO); expected a slotguard plugin (.so)\n",
            err_.str());
  const fs::path copy = dir_ / "libcopy.so";
  fs::copy_file(kExamples + "/libsg_rings.so", copy);
  const auto size = fs::file_size(copy);
  CheckOptions o;
  o.paths = {kScenarios + "/rings/fused-1-of-1.json"};
  o.backend = BackendKind::kHost;
  o.setup.provider.kernel_lib = copy.string();
  o.json_path = copy.string();
  err_.str("");
  EXPECT_EQ(kExitBadInput, RunCheck(o, out_, err_));
  EXPECT_EQ("slotguard: error: --json " + copy.string() + ": the same file as --kernel-lib " + copy.string() +
                "; expected a path of its own (writing it would overwrite that input)\n",
            err_.str());
  EXPECT_EQ(size, fs::file_size(copy));
}

// A compiled kernel's files too, a specialization's cubin included: checked
// before anything opens them (an ifstream on a FIFO waited for a writer).
// No CUDA call comes before these checks, so this runs without a device.
TEST_F(PluginTest, ACompiledKernelsFilesAreRegularFiles) {
  const std::string fifo = (dir_ / "kernel.fifo").string();
  ASSERT_EQ(0, mkfifo(fifo.c_str(), 0600));
  std::string err;
  EXPECT_EQ(nullptr, OpenCubinKernel(fifo, SLOTGUARD_SOURCE_DIR "/examples/cubin/kpool_tail_kernel.spec.json", &err));
  EXPECT_EQ("--kernel-cubin " + fifo + ": not a regular file (a FIFO); expected a cubin, fatbin or PTX file", err);
  const fs::path spec = dir_ / "s.spec.json";
  std::ofstream(spec) << R"({"slotguard_kernel_spec": 2, "family": "qsa_ring", "symbol": "k", "params": [],
      "grid": [1], "block": [1], "specializations": [{"requires": ["ring == 4"], "cubin": ")" + fifo + R"("}]})";
  EXPECT_EQ(nullptr, OpenCubinKernel(kExamples + "/kpool_tail_kernel.fatbin", spec.string(), &err));
  EXPECT_EQ(spec.string() + ":/specializations/0/cubin: " + fifo +
                ": not a regular file (a FIFO); expected a cubin, fatbin or PTX file (a relative path is from the "
                "spec's folder)",
            err);
}

// Exactly two signatures on several seeds: one per bug, whatever shapes
// the campaign met them in and shrinking left them at.
TEST_F(PluginTest, AKeepGoingCampaignReportsBothPlantedBugsAndSuppressesTheKnownDifference) {
  for (uint64_t seed : {1, 2, 3}) {
    FuzzOptions o;
    o.backend = BackendKind::kHost;
    o.settings.runs = 20000;
    o.settings.seed = seed;
    o.settings.keep_going = true;
    o.settings.out_dir = (dir_ / ("findings" + std::to_string(seed))).string();
    o.json_path = (dir_ / ("fuzz" + std::to_string(seed) + ".json")).string();
    o.sarif_path = (dir_ / ("fuzz" + std::to_string(seed) + ".sarif")).string();
    o.suppressions_path = SLOTGUARD_SOURCE_DIR "/examples/plugins/rings_campaign.suppressions.json";
    o.setup.provider.kernel_lib = kExamples + "/libsg_rings_campaign.so";
    EXPECT_EQ(kExitFindings, RunFuzz(o, out_, err_)) << out_.str() << err_.str();
    ExpectTwoBugsAndTheKnownDifference(o.json_path, o.sarif_path, "seed " + std::to_string(seed) + ": " + out_.str());
    // Each reproducer replays as its command says: with the plugin.
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(o.json_path));
    for (const nlohmann::json& f : j["findings"])
      EXPECT_EQ("slotguard replay --backend host --kernel-lib " + o.setup.provider.kernel_lib + " " +
                    f["file"].get<std::string>(),
                f["replay_command"])
          << f.dump();
  }
}

// A campaign bounded by --time shrinks each new finding when it meets it,
// within its share of the budget: it reports what the same seed's --runs
// campaign reports, the same signatures, each minimized to the same shape.
// (Shrinking only when the deadline came cut it short at once: reproducers
// at their generated size, and one bug met in two shapes gave two
// signatures.) The budget is seconds; the shrinking this needs takes
// milliseconds, and nothing here is timed.
TEST_F(PluginTest, ATimedCampaignShrinksEachFindingAsTheRunsCampaignDoes) {
  auto campaign = [&](const std::string& name, int64_t runs, double seconds) {
    FuzzOptions o;
    o.backend = BackendKind::kHost;
    o.settings.runs = runs;
    o.settings.seconds = seconds;
    o.settings.seed = 1;
    o.settings.keep_going = true;
    o.settings.out_dir = (dir_ / (name + "-findings")).string();
    o.json_path = (dir_ / (name + ".json")).string();
    o.suppressions_path = SLOTGUARD_SOURCE_DIR "/examples/plugins/rings_campaign.suppressions.json";
    o.setup.provider.kernel_lib = kExamples + "/libsg_rings_campaign.so";
    out_.str("");
    EXPECT_EQ(kExitFindings, RunFuzz(o, out_, err_)) << out_.str() << err_.str();
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(o.json_path));
    std::map<std::string, std::string> shapes;  // signature -> its reproducer's shape
    for (const nlohmann::json& f : j["findings"]) shapes[f["signature"]] = f["shape"];
    return std::make_pair(shapes, out_.str());
  };
  const auto [timed, timed_out] = campaign("timed", -1, 4);
  const auto [runs, runs_out] = campaign("runs", 20000, 0);
  EXPECT_EQ(runs, timed) << timed_out << "\n--- the --runs campaign:\n" << runs_out;
  ASSERT_EQ(2u, runs.size()) << runs_out;
  for (const auto& [signature, shape] : timed) EXPECT_EQ("1 requests, 1 tokens, 1 groups", shape) << signature;
  EXPECT_EQ(std::string::npos, timed_out.find("cut short")) << timed_out;
}

TEST_F(PluginTest, FuzzRefusesFamiliesThePluginLacks) {
  FuzzOptions o;
  o.backend = BackendKind::kHost;
  o.settings.runs = 10;
  o.families = {"paged"};
  o.setup.provider.kernel_lib = kExamples + "/libsg_rings.so";
  EXPECT_EQ(kExitBadInput, RunFuzz(o, out_, err_));
  EXPECT_EQ("slotguard: error: --family paged: plugin example-rings (" + kExamples +
                "/libsg_rings.so) does not implement it; expected one of kpool_tail, qsa_ring\n",
            err_.str());
}

TEST_F(PluginTest, ACompiledKernelNeedsTheGpuBackendAndASpec) {
  CheckOptions o;
  o.backend = BackendKind::kHost;
  o.setup.provider.kernel_cubin = kExamples + "/kpool_tail_kernel.fatbin";
  o.setup.provider.kernel_spec = SLOTGUARD_SOURCE_DIR "/examples/cubin/kpool_tail_kernel.spec.json";
  EXPECT_EQ(kExitBadInput, RunCheck(o, out_, err_));
  EXPECT_EQ("slotguard: error: --kernel-cubin runs on the gpu backend; expected --backend gpu or auto\n", err_.str());
  ProviderSource source;
  source.kernel_cubin = "x.cubin";
  std::string err;
  EXPECT_EQ(nullptr, OpenProvider(source, &err));
  EXPECT_EQ("--kernel-cubin needs --kernel-spec SPEC.json beside it", err);
}

}  // namespace
}  // namespace slotguard
