// Kernel spec 2 on the GPU: one compiled fixture kernel per feature
// (tests/plugin/fixtures/*.cu, built to tests/fixtures/ beside their specs):
// a formula argument, scratch buffers, the request_of_token buffer, one
// launch over every group with group arrays, specializations with the skip
// of a group none fits, and a launch precondition. Every test asserts the
// kernel's outputs: equal to the reference run through the GPU backend, or
// launched directly and compared (and checked by every invariant).
// Skipped without a device.
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <cuda_runtime.h>  // before backend/cuda_check.h: its typed cudaMalloc
#include <gtest/gtest.h>

#include "backend/backend.h"
#include "backend/device_batch.h"
#include "backend/isolated_backend.h"
#include "cli/commands.h"
#include "plan/scenario_plan.h"
#include "plugin/abi_provider.h"
#include "plugin/mapping_call.h"
#include "plugin/open_provider.h"
#include "reference/reference.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"
#include "testing/paged_sweep.h"
#include "testing/persistent_table.h"
#include "testing/ring_sweep.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = SLOTGUARD_FIXTURES_DIR;
const std::string kScenarios = SLOTGUARD_SOURCE_DIR "/scenarios";

/// The curated scenarios with a group of `family` that runs its fixed kernel.
std::vector<Scenario> Curated(Family family) {
  std::vector<Scenario> out;
  for (const auto& entry : fs::recursive_directory_iterator(kScenarios)) {
    if (entry.path().extension() != ".json") continue;
    Scenario s;
    std::string err;
    EXPECT_TRUE(LoadScenarioFile(entry.path().string(), LoadLimits(), &s, &err)) << err;
    for (const Group& g : s.groups)
      if (g.family == family && g.variant == FixedVariant(family)) {
        out.push_back(s);
        break;
      }
  }
  EXPECT_FALSE(out.empty());
  return out;
}

/// Ring sweeps (one group of every family), per-request and persistent
/// tables, in the three table layouts.
std::vector<Scenario> RingSweeps(int32_t capacity) {
  std::vector<Scenario> out;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    testing::RingSweepCase c;
    c.num_reqs = 1 + static_cast<int32_t>(seed * 7 % 40);
    c.capacity = capacity;
    c.max_query = seed % 5 == 0 ? 300 : 12;  // some requests past one 256-token program
    c.seed = seed;
    Scenario s = testing::MakeRingSweepScenario(c);
    if (seed % 2 == 0) s = testing::ToPersistentTable(s, seed);
    s.table_layout = seed % 3 == 0 ? TableLayoutKind::kTight : seed % 3 == 1 ? TableLayoutKind::kStrided
                                                                           : TableLayoutKind::kPadded;
    out.push_back(std::move(s));
  }
  return out;
}

class CubinSpec2GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    backend_ = MakeGpuBackend(&why);
    if (!backend_) GTEST_SKIP() << why;
    SetWorkerExecutable(SLOTGUARD_BINARY);
  }

  static std::shared_ptr<MappingProvider> Open(const std::string& cubin, const std::string& spec) {
    std::string err;
    std::shared_ptr<MappingProvider> p = OpenCubinKernel(kFixtures + "/" + cubin, kFixtures + "/" + spec, &err);
    EXPECT_TRUE(p) << err;
    return p;
  }

  /// Runs `s` on the GPU backend with `provider`: each group it runs ran
  /// there (no flat twin) and equals the reference. Returns those groups.
  int ExpectMatchesReference(const Scenario& s, const std::shared_ptr<MappingProvider>& provider) {
    backend_->set_provider(provider);
    ScenarioRun run;
    std::string err;
    EXPECT_TRUE(RunScenario(s, *backend_, 8, &run, &err)) << s.name << ": " << err;
    int provided = 0;
    for (size_t g = 0; g < s.groups.size() && g < run.kernel.size(); ++g) {
      if (!provider->Runs(s.groups[g].family, s.groups[g].variant)) continue;
      ++provided;
      EXPECT_EQ("", run.kernel[g].fault) << s.name;
      EXPECT_TRUE(run.kernel[g].flat.empty()) << s.name << ": slotguard's own kernel ran " << s.groups[g].name;
      EXPECT_EQ(run.reference[g], run.kernel[g].engine) << s.name << " group " << s.groups[g].name;
    }
    return provided;
  }

  /// `check` over `paths` in worker processes, as the CLI runs it.
  int Check(const std::string& cubin, const std::string& spec, std::vector<std::string> paths, bool graph = false) {
    CheckOptions o;
    o.paths = std::move(paths);
    o.backend = BackendKind::kGpu;
    o.quiet = true;
    o.setup.provider.kernel_cubin = kFixtures + "/" + cubin;
    o.setup.provider.kernel_spec = kFixtures + "/" + spec;
    o.setup.cuda_graph = graph;
    out_.str("");
    err_.str("");
    return RunCheck(o, out_, err_);
  }

  std::unique_ptr<Backend> backend_;
  std::ostringstream out_, err_;
};

// A grid past CUDA's limits: 2^30 x 2^30 x 16 blocks wrapped to 0 in the
// int64 product, the kernel was silently not launched and its untouched
// outputs judged as its findings. Constant, it is a spec error before
// anything runs (exit 2); from a formula, the launch is refused and the
// scenario's no_fault names the spec's pointer (never a silent skip).
TEST_F(CubinSpec2GpuTest, AGridPastCudasLimitsIsASpecError) {
  const fs::path dir = ScratchDir();
  std::ifstream in(kFixtures + "/formula_arg_kpool.spec.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string grid = R"j("grid": ["max(num_reqs, 1) + cdiv(num_tokens - num_actual_tokens, 256)"])j";
  ASSERT_NE(std::string::npos, text.find(grid));
  const std::string constant = (dir / "constant.spec.json").string();
  std::ofstream(constant) << std::string(text).replace(text.find(grid), grid.size(),
                                                       R"("grid": [1073741824, 1073741824, 16])");
  CheckOptions o;
  o.paths = {kScenarios + "/rings/fused-1-of-1.json"};
  o.backend = BackendKind::kGpu;
  o.setup.provider.kernel_cubin = kFixtures + "/formula_arg_kpool.fatbin";
  o.setup.provider.kernel_spec = constant;
  EXPECT_EQ(kExitBadInput, RunCheck(o, out_, err_));
  EXPECT_EQ("slotguard: error: " + constant + ":/grid/1: '1073741824' is 1073741824; expected 0 <= grid y <= 65535 "
            "(CUDA's limit)\n", err_.str());
  const std::string formula = (dir / "formula.spec.json").string();
  std::ofstream(formula) << std::string(text).replace(
      text.find(grid), grid.size(), R"("grid": ["num_tokens + 1", "num_tokens * 1073741824", "16"])");
  o.setup.provider.kernel_spec = formula;
  out_.str("");
  err_.str("");
  EXPECT_EQ(kExitFindings, RunCheck(o, out_, err_)) << out_.str() << err_.str();
  EXPECT_NE(std::string::npos, out_.str().find("no_fault")) << out_.str();
  EXPECT_NE(std::string::npos, out_.str().find(formula + ":/grid/1: 'num_tokens * 1073741824' is ")) << out_.str();
}

// {"value": FORMULA}: the kernel takes its request programs, its padding
// tokens and its ring (as kpool * 2 + 1) only through formulas.
TEST_F(CubinSpec2GpuTest, AFormulaArgumentHolds) {
  const auto provider = Open("formula_arg_kpool.fatbin", "formula_arg_kpool.spec.json");
  ASSERT_TRUE(provider);
  int provided = 0;
  for (const Scenario& s : Curated(Family::kKpoolTail)) provided += ExpectMatchesReference(s, provider);
  for (int32_t capacity : {1, 4, 7}) for (const Scenario& s : RingSweeps(capacity)) provided += ExpectMatchesReference(s, provider);
  EXPECT_GT(provided, 80);
  EXPECT_EQ(kExitHolds, Check("formula_arg_kpool.fatbin", "formula_arg_kpool.spec.json", {kScenarios}))
      << out_.str() << err_.str();
}

// {"scratch": ...}: kpool_tail through a token_to_req scratch it writes
// first (eager and captured in a CUDA graph); and a probe that copies its
// scratch out: 0xFF bytes in each of eight launches queued on one stream
// before one synchronization, though each launch dirties its scratch.
TEST_F(CubinSpec2GpuTest, AScratchBufferHoldsAndStartsAsFFBytes) {
  const auto provider = Open("scratch_kernels.fatbin", "scratch_kernels.spec.json");
  ASSERT_TRUE(provider);
  int provided = 0;
  for (const Scenario& s : Curated(Family::kKpoolTail)) provided += ExpectMatchesReference(s, provider);
  for (const Scenario& s : RingSweeps(4)) provided += ExpectMatchesReference(s, provider);
  EXPECT_GT(provided, 30);
  EXPECT_EQ(kExitHolds, Check("scratch_kernels.fatbin", "scratch_kernels.spec.json", {kScenarios}, /*graph=*/true))
      << out_.str() << err_.str();

  const auto probe = Open("scratch_kernels.fatbin", "scratch_probe.spec.json");
  ASSERT_TRUE(probe);
  cudaStream_t stream;
  ASSERT_EQ(cudaSuccess, cudaStreamCreate(&stream));
  constexpr int kLaunches = 8;
  const int64_t n = 1000;
  std::vector<DeviceBuffer<int64_t>> outs(kLaunches);
  std::string err;
  for (int i = 0; i < kLaunches; ++i) {
    ASSERT_TRUE(outs[i].Allocate(n, &err)) << err;
    ASSERT_EQ(cudaSuccess, cudaMemsetAsync(outs[i].get(), 0, n * sizeof(int64_t), stream));
    sg_mapping_call call{};
    call.abi_version = SLOTGUARD_PLUGIN_ABI_VERSION;
    call.family = "kpool_tail";
    call.variant = "fixed";
    call.num_tokens = n;
    call.slot_mapping = outs[i].get();
    call.kpool_tail.kpool = 4;
    call.stream = stream;
    ASSERT_TRUE(static_cast<AbiProvider&>(*probe).Launch(call, true, &err)) << err;
  }
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  for (int i = 0; i < kLaunches; ++i) {
    std::vector<int64_t> host(n, 0);
    ASSERT_EQ(cudaSuccess, cudaMemcpy(host.data(), outs[i].get(), n * sizeof(int64_t), cudaMemcpyDeviceToHost));
    EXPECT_EQ(std::vector<int64_t>(n, -1), host) << "launch " << i;  // 0xFFFFFFFFFFFFFFFF
  }
  cudaStreamDestroy(stream);
}

// {"buffer": "request_of_token"}: a compressor_ring kernel that finds each
// token's request only through it (both outputs checked).
TEST_F(CubinSpec2GpuTest, RequestOfTokenHolds) {
  const auto provider = Open("request_of_token_compressor.fatbin", "request_of_token_compressor.spec.json");
  ASSERT_TRUE(provider);
  int provided = 0;
  for (const Scenario& s : Curated(Family::kCompressorRing)) provided += ExpectMatchesReference(s, provider);
  for (int32_t capacity : {2, 4, 8}) for (const Scenario& s : RingSweeps(capacity)) provided += ExpectMatchesReference(s, provider);
  EXPECT_GT(provided, 70);
  EXPECT_EQ(kExitHolds, Check("request_of_token_compressor.fatbin", "request_of_token_compressor.spec.json",
                              {kScenarios}))
      << out_.str() << err_.str();
}

/// Adds a paged group to a paged sweep scenario: manager blocks of
/// `block_size` tokens, `bpk` kernel blocks each, fresh ids for live requests.
void AddPagedGroup(const std::string& name, int32_t block_size, int32_t bpk, int32_t max_context, Scenario* s) {
  Group g = s->groups[0];
  g.name = name;
  SetParam(&g, "block_size", block_size);
  SetParam(&g, "kernel_block_size", block_size / bpk);
  const int32_t reqs = s->batch.num_reqs();
  const int32_t width = reqs ? (max_context / block_size + 2) * bpk : 0;
  g.table.rows = reqs;
  g.table.width = width;
  g.table.entries.assign(static_cast<size_t>(width) * reqs, 0);
  int32_t next = s->num_blocks;
  for (int32_t r = 0; r < reqs; ++r) {
    if (s->batch.is_dummy(r)) continue;
    for (int32_t col = 0; col < width; col += bpk) {
      const int32_t manager = next++;
      for (int32_t k = 0; k < bpk; ++k) g.table.entries[static_cast<size_t>(r) * width + col + k] = manager * bpk + k;
    }
  }
  s->num_blocks = next + 1;
  s->groups.push_back(g);
}

/// Four paged groups on one batch: block 16, block 32, hybrid 64 of 16, and a disabled one.
Scenario MultiGroupScenario(uint64_t seed, testing::PagedSweepCase::Dcp dcp) {
  testing::PagedSweepCase c;
  c.num_reqs = 1 + static_cast<int32_t>(seed * 11 % 50);
  c.max_query = seed % 4 == 0 ? 300 : 30;
  c.dcp = dcp;
  c.seed = seed;
  Scenario s = testing::MakePagedSweepScenario(c);
  const int32_t max_context = 3 * c.max_query;
  AddPagedGroup("swa", 32, 1, max_context, &s);
  AddPagedGroup("hybrid", 64, 4, max_context, &s);
  AddPagedGroup("off", 16, 1, max_context, &s);
  SetParam(&s.groups.back(), "enabled", 0);
  if (seed % 2 == 0) s = testing::ToPersistentTable(s, seed);
  s.table_layout = seed % 3 == 0 ? TableLayoutKind::kTight : seed % 3 == 1 ? TableLayoutKind::kStrided
                                                                         : TableLayoutKind::kPadded;
  s.name = "multi-group " + std::to_string(seed);
  return s;
}

/// Why `provider` does not take group `g` of `s` ("" when it does not
/// run it), as the plan asks it.
std::string SkipOf(const MappingProvider& provider, const Scenario& s, const Group& g) {
  PlanOptions options;
  options.provider = &provider;
  options.lay_out_tables = false;
  ScenarioPlan plan;
  BuildPlan(s, options, &plan);
  const size_t group = static_cast<size_t>(&g - s.groups.data());
  const size_t step = static_cast<size_t>(plan.step_of_group[group]);
  return plan.steps[step].runner == StepRunner::kProvider ? provider.SkipReason(plan, step) : "";
}

/// What an executor does for a provider that takes whole scenarios: every
/// step `provider` runs in one LaunchScenario call, on device memory laid
/// out as the plan says; the outputs, [group][token] (empty for other groups).
std::vector<std::vector<int64_t>> LaunchWholeScenario(MappingProvider& provider, const Scenario& s) {
  std::vector<std::vector<int64_t>> outputs(s.groups.size());
  const size_t n = static_cast<size_t>(s.batch.num_tokens);
  cudaStream_t stream;
  EXPECT_EQ(cudaSuccess, cudaStreamCreate(&stream));
  std::string err;
  DeviceBatch batch;
  EXPECT_TRUE(batch.Upload(s.batch, stream, &err)) << err;
  PlanOptions options;
  options.provider = &provider;
  ScenarioPlan plan;
  BuildPlan(s, options, &plan);
  std::vector<DeviceBuffer<int32_t>> device_tables(s.groups.size());
  std::vector<DeviceBuffer<int64_t>> device_outputs(s.groups.size());
  std::vector<sg_mapping_call> calls;
  for (const PlanStep& step : plan.steps) {
    const size_t i = step.group;
    const Group& g = s.groups[i];
    if (step.runner != StepRunner::kProvider) continue;
    EXPECT_TRUE(device_tables[i].Upload(step.table.memory.data(), step.table.memory.size(), stream, &err)) << err;
    EXPECT_TRUE(device_outputs[i].Allocate(n, &err)) << err;
    EXPECT_EQ(cudaSuccess, cudaMemsetAsync(device_outputs[i].get(), 0, n * sizeof(int64_t), stream));
    calls.push_back(MakeMappingCall(g, TableReadBatch(batch.view, step.table.gathered),
                                    step.table.View(device_tables[i].get()),
                                    MappingOutputs{device_outputs[i].get(), nullptr}, nullptr, stream));
  }
  EXPECT_TRUE(static_cast<AbiProvider&>(provider).LaunchScenario(calls, true, &err)) << s.name << ": " << err;
  EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  for (size_t i = 0; i < s.groups.size(); ++i) {
    if (!device_outputs[i].get()) continue;
    outputs[i].resize(n);
    EXPECT_EQ(cudaSuccess, cudaMemcpy(outputs[i].data(), device_outputs[i].get(), n * sizeof(int64_t),
                                      cudaMemcpyDeviceToHost));
  }
  cudaStreamDestroy(stream);
  return outputs;
}

// "launch": "scenario" with group arrays: vLLM v2's one launch over
// (num_groups, num_reqs + 1) maps four paged groups (block sizes 16 and 32,
// hybrid kernel blocks, a disabled group) in one LaunchScenario call, per
// request and persistent tables, every layout, with and without DCP: each
// output equals the reference and no invariant fires. The launch takes one
// DCP placement, as the engine passes it: a scenario whose groups disagree
// on it is skipped with the reason, not launched. The curated paged
// scenarios it takes equal the reference in one launch too, and hold
// through `check`, eager and captured (one group per call until the
// backends call LaunchScenario).
TEST_F(CubinSpec2GpuTest, OneLaunchOverEveryGroup) {
  const std::string spec = "v2_paged_groups.spec.json";
  const auto provider = Open("v2_paged_groups.fatbin", spec);
  ASSERT_TRUE(provider);
  EXPECT_TRUE(provider->takes_whole_scenarios());
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    using Dcp = testing::PagedSweepCase::Dcp;
    const Dcp dcp = seed % 5 == 0 ? Dcp{2, 1, 1} : seed % 7 == 0 ? Dcp{4, 3, 2} : Dcp{};
    const Scenario s = MultiGroupScenario(seed, dcp);
    for (const Group& g : s.groups) EXPECT_EQ("", SkipOf(*provider, s, g)) << s.name;
    const std::vector<std::vector<int64_t>> outputs = LaunchWholeScenario(*provider, s);
    ScenarioRun run;
    run.kernel.resize(s.groups.size());
    for (size_t g = 0; g < s.groups.size(); ++g) {
      EXPECT_EQ(ReferenceOutputs(s, s.groups[g])[0], outputs[g]) << s.name << " group " << s.groups[g].name;
      run.kernel[g].engine = {outputs[g]};
      run.kernel[g].read_past_row.assign(static_cast<size_t>(s.batch.num_tokens), 0);
    }
    CheckKernelOutputs(s, 8, &run);
    for (size_t g = 0; g < s.groups.size(); ++g)
      EXPECT_EQ(0, run.findings[g].total())
          << s.name << " group " << s.groups[g].name << ": "
          << (run.findings[g].kept().empty() ? "" : run.findings[g].kept()[0].invariant + " " +
                                                        run.findings[g].kept()[0].detail);
  }

  Scenario mixed = MultiGroupScenario(3, testing::PagedSweepCase::Dcp{});
  SetParam(&mixed.groups[0], "dcp_world", 2);
  SetParam(&mixed.groups[0], "dcp_rank", 1);
  SetParam(&mixed.groups[0], "dcp_interleave", 1);
  const std::string why = "kernel compute_slot_mappings (spec " + kFixtures + "/" + spec +
                          "): one launch over every group takes one 'dcp_world' (/params/13), and the groups differ "
                          "(2 in group 'attn', 1 in group 'swa'); expected the same value in every group, or a "
                          "group_array";
  for (const Group& g : mixed.groups) EXPECT_EQ(why, SkipOf(*provider, mixed, g));

  std::vector<std::string> taken;
  for (const auto& entry : fs::recursive_directory_iterator(kScenarios + "/paged")) {
    if (entry.path().extension() != ".json") continue;
    Scenario s;
    std::string err;
    ASSERT_TRUE(LoadScenarioFile(entry.path().string(), LoadLimits(), &s, &err)) << err;
    std::string skip;
    for (const Group& g : s.groups) skip += SkipOf(*provider, s, g);
    if (!skip.empty()) {  // groups on different DCP ranks
      EXPECT_NE(std::string::npos, skip.find("one launch over every group takes one 'dcp_")) << skip;
      continue;
    }
    taken.push_back(entry.path().string());
    const std::vector<std::vector<int64_t>> outputs = LaunchWholeScenario(*provider, s);
    for (size_t g = 0; g < s.groups.size(); ++g) {
      if (!provider->Runs(s.groups[g].family, s.groups[g].variant)) continue;
      EXPECT_EQ(ReferenceOutputs(s, s.groups[g])[0], outputs[g]) << s.name << " group " << s.groups[g].name;
    }
  }
  EXPECT_GE(taken.size(), 10u);
  EXPECT_EQ(kExitHolds, Check("v2_paged_groups.fatbin", spec, taken)) << out_.str() << err_.str();
  EXPECT_EQ(kExitHolds, Check("v2_paged_groups.fatbin", spec, taken, /*graph=*/true)) << out_.str() << err_.str();
}

// "specializations": the ring baked into two builds of one qsa_ring kernel,
// ring 4 (the --kernel-cubin file) and ring 16 (a fatbin named relative to
// the spec, another symbol). Ring-4 and ring-16 groups run their build and
// equal the reference; a ring-8 group fits neither: skipped with the reason,
// and never launched.
TEST_F(CubinSpec2GpuTest, SpecializationsRunRing4And16AndSkipRing8) {
  const std::string spec = "qsa_ring_baked.spec.json";
  const auto provider = Open("qsa_ring_ring4.fatbin", spec);
  ASSERT_TRUE(provider);
  int provided = 0;
  for (int32_t ring : {4, 16})
    for (const Scenario& s : RingSweeps(ring)) {
      for (const Group& g : s.groups) EXPECT_EQ("", SkipOf(*provider, s, g)) << s.name;
      provided += ExpectMatchesReference(s, provider);
    }
  for (const Scenario& s : Curated(Family::kQsaRing)) {
    bool fits = true;
    for (const Group& g : s.groups) fits = fits && SkipOf(*provider, s, g).empty();
    if (fits) provided += ExpectMatchesReference(s, provider);
  }
  EXPECT_GT(provided, 50);

  const Scenario ring8 = RingSweeps(8)[0];
  const std::string why = "kernel qsa_ring_ring4 (spec " + kFixtures + "/" + spec +
                          "): no specialization fits ring 8 (specializations: ring == 4, ring == 16)";
  for (const Group& g : ring8.groups)
    EXPECT_EQ(g.family == Family::kQsaRing ? why : "", SkipOf(*provider, ring8, g)) << g.name;
  for (const Group& g : ring8.groups) {
    if (g.family != Family::kQsaRing) continue;
    std::string err;
    EXPECT_FALSE(static_cast<AbiProvider&>(*provider).Launch(MakeMappingCall(g, HostMappingBatch(ring8.batch), TableLayout{}, MappingOutputs{},
                                                  nullptr, nullptr),
                                  true, &err));
    EXPECT_EQ("not launched: " + why, err);
  }
}

// "precondition": ["num_reqs >= 1"]: a kpool_tail kernel with no
// zero-request branch holds every batch with requests; an empty batch is
// skipped (the engine's launcher routes it elsewhere), never a finding.
TEST_F(CubinSpec2GpuTest, APreconditionSkipsAnEmptyBatch) {
  const std::string spec = "kpool_needs_requests.spec.json";
  const auto provider = Open("kpool_needs_requests.fatbin", spec);
  ASSERT_TRUE(provider);
  int provided = 0;
  for (const Scenario& s : Curated(Family::kKpoolTail)) provided += ExpectMatchesReference(s, provider);
  for (const Scenario& s : RingSweeps(4)) provided += ExpectMatchesReference(s, provider);
  EXPECT_GT(provided, 30);
  EXPECT_EQ(kExitHolds, Check("kpool_needs_requests.fatbin", spec, {kScenarios})) << out_.str() << err_.str();

  Scenario empty;
  std::string err;
  ASSERT_TRUE(ParseScenario(R"({"slotguard": 1, "name": "empty-batch", "num_blocks": 4,
      "batch": {"query_start_loc": [0], "num_tokens": 4, "num_actual_tokens": 2, "slot_mapping_in": [7, 8, 9, 10]},
      "groups": [{"name": "tail", "kernel": "kpool_tail", "kpool": 4, "block_table": []}]})",
                            "empty.json", LoadLimits(), &empty, &err))
      << err;
  EXPECT_EQ("kernel kpool_tail_needs_requests (spec " + kFixtures + "/" + spec +
                "): precondition 'num_reqs >= 1' does not hold (num_reqs 0): the engine's launcher would route this "
                "batch elsewhere",
            SkipOf(*provider, empty, empty.groups[0]));
}

}  // namespace
}  // namespace slotguard
