// --kernel-lib and --kernel-cubin on the GPU: the example plugins' device
// entry points, a device trap isolated to its scenarios, and the compiled
// kernel launched from its spec. Skipped without a device.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "setup/backend_setup.h"
#include "backend/gpu_device.h"
#include "backend/isolated_backend.h"
#include "cli/commands.h"
#include "fuzzing/campaign.h"
#include "testing/scenario_fixtures.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

namespace fs = std::filesystem;

const std::string kExamples = SLOTGUARD_EXAMPLES_DIR;
const std::string kScenarios = SLOTGUARD_SOURCE_DIR "/scenarios";

size_t CuratedFileCount() {
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kScenarios))
    files += entry.path().extension() == ".json";
  return files;
}
const std::string kSpec = SLOTGUARD_SOURCE_DIR "/examples/cubin/kpool_tail_kernel.spec.json";

class PluginGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!GpuUsable(&why)) GTEST_SKIP() << why;
    SetWorkerExecutable(SLOTGUARD_BINARY);
    dir_ = ScratchDir() / "plugin";
    fs::remove_all(dir_);
  }
  int Check(RunSetup setup, bool graph = false, std::vector<std::string> paths = {kScenarios}) {
    CheckOptions o;
    o.paths = std::move(paths);
    o.backend = BackendKind::kGpu;
    o.quiet = true;
    o.setup = setup;
    o.setup.cuda_graph = graph;
    out_.str("");
    err_.str("");
    return RunCheck(o, out_, err_);
  }
  int Fuzz(const std::string& lib, int64_t runs) {
    FuzzOptions o;
    o.backend = BackendKind::kGpu;
    o.settings.runs = runs;
    o.settings.seed = 1;
    o.settings.jobs = 4;
    o.settings.out_dir = (dir_ / "findings").string();
    o.setup.provider.kernel_lib = lib;
    out_.str("");
    err_.str("");
    return RunFuzz(o, out_, err_);
  }
  static RunSetup Lib(const std::string& name) {
    RunSetup s;
    s.provider.kernel_lib = kExamples + "/" + name;
    return s;
  }
  fs::path dir_;
  std::ostringstream out_, err_;
};

TEST_F(PluginGpuTest, TheCorrectPluginHoldsEagerAndThroughGraphReplays) {
  EXPECT_EQ(kExitHolds, Check(Lib("libsg_rings.so"))) << out_.str() << err_.str();
  EXPECT_NE(std::string::npos, out_.str().find("backend gpu on ")) << out_.str();
  EXPECT_EQ(kExitHolds, Check(Lib("libsg_rings.so"), /*graph=*/true)) << out_.str() << err_.str();
  EXPECT_EQ(kExitHolds, Check(Lib("libsg_minimal_kpool_tail.so"), true)) << out_.str() << err_.str();
}

TEST_F(PluginGpuTest, FuzzOnTheGpuPassesTheCorrectPluginAndFindsTheBuggyOne) {
  EXPECT_EQ(kExitHolds, Fuzz(kExamples + "/libsg_rings.so", 3000)) << out_.str() << err_.str();
  EXPECT_EQ(kExitFindings, Fuzz(kExamples + "/libsg_rings_buggy.so", 20000)) << out_.str() << err_.str();
}

// The GPU twin of PluginTest's keep-going campaign over the campaign plugin.
TEST_F(PluginGpuTest, AKeepGoingCampaignReportsBothPlantedBugsAndSuppressesTheKnownDifference) {
  FuzzOptions o;
  o.backend = BackendKind::kGpu;
  o.settings.runs = 20000;
  o.settings.seed = 1;
  o.settings.jobs = 4;
  o.settings.keep_going = true;
  fs::create_directories(dir_);  // --json and --sarif are written only into a folder that exists
  o.settings.out_dir = (dir_ / "findings").string();
  const std::string json_path = (dir_ / "fuzz.json").string(), sarif_path = (dir_ / "fuzz.sarif").string();
  o.json_path = json_path;
  o.sarif_path = sarif_path;
  o.suppressions_path = SLOTGUARD_SOURCE_DIR "/examples/plugins/rings_campaign.suppressions.json";
  o.setup.provider.kernel_lib = kExamples + "/libsg_rings_campaign.so";
  out_.str("");
  err_.str("");
  EXPECT_EQ(kExitFindings, RunFuzz(o, out_, err_)) << out_.str() << err_.str();
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(json_path));
  EXPECT_EQ(2, j["distinct_findings"]) << out_.str();
  EXPECT_GT(j["suppressions"][0]["matched"].get<int64_t>(), 0) << out_.str();
  EXPECT_NE(std::string::npos, j["backend"].get<std::string>().find("gpu")) << j["backend"];
}

TEST_F(PluginGpuTest, ADeviceTrapCostsOnlyItsScenarios) {
  EXPECT_EQ(kExitFindings, Check(Lib("libsg_asserting_paged.so"))) << out_.str() << err_.str();
  EXPECT_NE(std::string::npos, out_.str().find(": no_fault: ")) << out_.str();
  EXPECT_NE(std::string::npos, out_.str().find("slotguard: " + std::to_string(CuratedFileCount()) + " scenario runs (")) << out_.str();
  EXPECT_EQ("", err_.str());
  EXPECT_EQ(kExitHolds, Check(Lib("libsg_asserting_paged.so"), false, {kScenarios + "/paged/decode.json"}))
      << out_.str();
}

// A device trap surfaces at a synchronization after the launches: it is the
// no_fault of the last group whose provider call started before it (here
// the only provided one, the second), not of the scenario's first group.
TEST_F(PluginGpuTest, ADeviceTrapIsTheNoFaultOfTheLastProvidedGroupLaunched) {
  const std::string file = SLOTGUARD_SOURCE_DIR "/tests/plugin/fixtures/crash-in-second-group.json";
  EXPECT_EQ(kExitFindings, Check(Lib("libsg_asserting_paged.so"), false, {file})) << err_.str();
  EXPECT_NE(std::string::npos, out_.str().find("group plugin_paged: no_fault: a kernel faulted: ")) << out_.str();
  EXPECT_EQ(std::string::npos, out_.str().find("group own_kpool: no_fault")) << out_.str();
}

// The chunked path (gpu_provider_chunks.cu): many scenarios' calls on a few
// streams, one synchronization, give what one scenario at a time gives.
TEST_F(PluginGpuTest, AChunkOfCallsGivesWhatOneScenarioAtATimeGives) {
  RunSetup setup = Lib("libsg_rings.so");
  setup.isolate = 0;
  std::string problem;
  bool environment;
  std::unique_ptr<Backend> backend = OpenBackend(BackendKind::kGpu, setup, &problem, &environment);
  ASSERT_TRUE(backend) << problem;
  CampaignOptions o;
  o.generator.families = backend->provider()->families();
  std::vector<Scenario> scenarios;
  for (int64_t i = 0; i < 600; ++i) scenarios.push_back(CampaignScenario(o, i, nullptr));
  std::vector<const Scenario*> pointers;
  for (const Scenario& s : scenarios) pointers.push_back(&s);
  std::vector<std::vector<GroupOutputs>> many;
  std::string err;
  ASSERT_TRUE(backend->RunMany(pointers, &many, &err, 4)) << err;
  ASSERT_EQ(scenarios.size(), many.size());
  for (size_t i = 0; i < scenarios.size(); ++i) {
    std::vector<GroupOutputs> one;
    ASSERT_TRUE(backend->Run(scenarios[i], &one, &err)) << err;
    ASSERT_EQ(one.size(), many[i].size());
    for (size_t g = 0; g < one.size(); ++g) {
      EXPECT_EQ(one[g].engine, many[i][g].engine) << scenarios[i].name << " group " << g;
      EXPECT_EQ(one[g].flat, many[i][g].flat) << scenarios[i].name << " group " << g;
      EXPECT_EQ(one[g].read_past_row, many[i][g].read_past_row) << scenarios[i].name << " group " << g;
    }
  }
}

// A device trap in a chunk (worker processes): the chunk is bisected, and
// exactly the scenarios that trap on their own are faulted.
TEST_F(PluginGpuTest, ATrapInAChunkCostsOnlyItsScenarios) {
  RunSetup setup = Lib("libsg_asserting_paged.so");
  std::string problem;
  bool environment;
  std::unique_ptr<Backend> backend = OpenBackend(BackendKind::kGpu, setup, &problem, &environment);
  ASSERT_TRUE(backend) << problem;
  ASSERT_TRUE(backend->Batches());
  const std::vector<Scenario> scenarios = CuratedScenarios();
  std::vector<const Scenario*> pointers;
  for (const Scenario& s : scenarios) pointers.push_back(&s);
  std::vector<std::vector<GroupOutputs>> many;
  std::string err;
  ASSERT_TRUE(backend->RunMany(pointers, &many, &err, 4)) << err;
  ASSERT_EQ(scenarios.size(), many.size());
  size_t faulted = 0;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    std::vector<GroupOutputs> one;
    ASSERT_TRUE(backend->Run(scenarios[i], &one, &err)) << err;
    EXPECT_EQ(one[0].fault.empty(), many[i][0].fault.empty()) << scenarios[i].name << ": " << many[i][0].fault;
    faulted += !many[i][0].fault.empty();
  }
  EXPECT_GT(faulted, 0u) << "the asserting plugin traps on some curated scenario";
  EXPECT_LT(faulted, scenarios.size());
}

TEST_F(PluginGpuTest, TheCompiledKernelHoldsFromItsSpec) {
  RunSetup s;
  s.provider.kernel_cubin = kExamples + "/kpool_tail_kernel.fatbin";
  s.provider.kernel_spec = kSpec;
  EXPECT_EQ(kExitHolds, Check(s)) << out_.str() << err_.str();
  EXPECT_NE(std::string::npos, out_.str().find("kernels from kernel kpool_tail_map (")) << out_.str();
  EXPECT_EQ(kExitHolds, Check(s, /*graph=*/true)) << out_.str() << err_.str();
}

TEST_F(PluginGpuTest, AWrongSymbolIsBadInput) {
  fs::create_directories(dir_);
  const std::string spec = (dir_ / "wrong.spec.json").string();
  std::ofstream(spec) << R"({"slotguard_kernel_spec": 1, "family": "kpool_tail", "symbol": "no_such_kernel",
                             "params": [], "grid": [1], "block": [32]})";
  RunSetup s;
  s.provider.kernel_cubin = kExamples + "/kpool_tail_kernel.fatbin";
  s.provider.kernel_spec = spec;
  EXPECT_EQ(kExitBadInput, Check(s));
  EXPECT_EQ(0u, err_.str().find("slotguard: error: " + spec + ":/symbol: no kernel 'no_such_kernel' in ")) << err_.str();
}

}  // namespace
}  // namespace slotguard
