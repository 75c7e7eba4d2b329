// Fault isolation (backend/isolated_backend.h): the real worker gives what
// the in-process backend gives; a worker that dies or hangs becomes a
// no_fault finding for that scenario, and the next scenario still runs.
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

#include <algorithm>

#include <gtest/gtest.h>

#include "backend/isolated_backend.h"
#include "backend/worker_protocol.h"
#include "registry/families.h"
#include "runner/graph_replays.h"
#include "runner/scenario_run.h"
#include "testing/scenario_fixtures.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

namespace fs = std::filesystem;

std::vector<Scenario> Curated() { return CuratedScenarios(); }

std::unique_ptr<Backend> Isolated(const std::string& exe, double timeout = 60) {
  SetWorkerExecutable(exe);
  IsolationOptions o;
  o.backend_name = "host";
  o.worker_args = {"__worker", "--backend", "host"};
  o.timeout_seconds = timeout;
  return MakeIsolatedBackend(o);
}

// A stand-in worker: a shell script.
std::string Script(const std::string& name, const std::string& body) {
  const fs::path p = ScratchDir() / (name + ".sh");
  std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
  chmod(p.c_str(), 0755);
  return p.string();
}

TEST(WorkerProtocolTest, ScenariosCrossThePipeWhole) {
  // Everything the kernels read survives the trip (not the description,
  // the expectation or the graph key: the worker only runs kernels, and a
  // CUDA-graph sequence comes with its steps, GraphSequence).
  for (Scenario s : Curated()) {
    WireBuffer wire;
    PutScenario(s, &wire);
    Scenario back;
    ASSERT_TRUE(GetScenario(&wire, &back)) << s.name;
    s.description.clear();
    s.expect = Expect();
    s.graph = GraphOptions();
    EXPECT_TRUE(s == back) << s.name;
  }
  WireBuffer truncated;
  PutScenario(Curated()[0], &truncated);
  truncated.bytes.resize(truncated.bytes.size() / 2);
  Scenario back;
  EXPECT_FALSE(GetScenario(&truncated, &back));
}

TEST(IsolatedBackendTest, TheWorkerGivesWhatTheHostBackendGives) {
  std::unique_ptr<Backend> isolated = Isolated(SLOTGUARD_BINARY);
  std::unique_ptr<Backend> host = MakeHostBackend();
  for (Backend* b : {isolated.get(), host.get()}) b->set_writers(WriterOptions{32});
  for (const Scenario& s : Curated()) {
    std::vector<GroupOutputs> a, b;
    std::string err;
    ASSERT_TRUE(isolated->Run(s, &a, &err)) << s.name << ": " << err;
    ASSERT_TRUE(host->Run(s, &b, &err)) << err;
    ASSERT_EQ(b.size(), a.size()) << s.name;
    for (size_t g = 0; g < a.size(); ++g) {
      EXPECT_EQ("", a[g].fault) << s.name;
      EXPECT_EQ(b[g].engine, a[g].engine) << s.name;
      EXPECT_EQ(b[g].flat, a[g].flat) << s.name;
      EXPECT_EQ(b[g].read_past_row, a[g].read_past_row) << s.name;
      EXPECT_EQ(b[g].cache, a[g].cache) << s.name;
    }
  }
}

TEST(IsolatedBackendTest, GraphReplaysGoThroughTheWorkerToo) {
  std::unique_ptr<Backend> isolated = Isolated(SLOTGUARD_BINARY);
  isolated->set_writers(WriterOptions{64});
  for (const Scenario& s : Curated()) {
    const ScenarioReport report = CheckScenario(s, s.name, *isolated, 8, /*cuda_graph=*/true);
    EXPECT_TRUE(report.holds) << s.name << ": " << report.verdict;
  }
}

TEST(IsolatedBackendTest, TheZeroingTravelsInTheWorkersRequest) {
  // Every step's pools through the worker as on the host backend, the
  // eager warm-up and the memset of block 0 included.
  std::unique_ptr<Backend> isolated = Isolated(SLOTGUARD_BINARY);
  std::unique_ptr<Backend> host = MakeHostBackend();
  for (Backend* b : {isolated.get(), host.get()}) b->set_writers(WriterOptions{64});
  std::vector<Scenario> prefixed;  // a few whose dummy batch writes block 0
  for (Scenario s : Curated())
    if (prefixed.size() < 3 && s.num_blocks <= 64 && ForceVariant("prefix", &s)) prefixed.push_back(s);
  ASSERT_FALSE(prefixed.empty());
  for (ZeroNull zero : {ZeroNull::kBeforeCapture, ZeroNull::kAfterCapture})
    for (Scenario s : prefixed) {
      const GraphSequence sequence = GraphSequenceOf(GraphReplays(PadToCaptureSize(s)), zero);
      std::vector<std::vector<GroupOutputs>> a, b;
      std::string err;
      ASSERT_TRUE(isolated->RunReplays(sequence, &a, &err)) << s.name << ": " << err;
      ASSERT_TRUE(host->RunReplays(sequence, &b, &err)) << err;
      ASSERT_EQ(b.size(), a.size()) << s.name;
      for (size_t k = 0; k < a.size(); ++k)
        for (size_t g = 0; g < a[k].size(); ++g) EXPECT_EQ(b[k][g].cache, a[k][g].cache) << s.name << " step " << k;
    }
}

TEST(IsolatedBackendTest, ACrashIsAFindingAndTheNextScenarioRuns) {
  std::unique_ptr<Backend> crashing = Isolated(Script("segv", "kill -SEGV $$"));
  const std::vector<Scenario> scenarios = Curated();
  for (int i = 0; i < 2; ++i) {  // each scenario gets a fresh worker
    const ScenarioReport report = CheckScenario(scenarios[i], "f.json", *crashing, 8);
    EXPECT_EQ(ScenarioStatus::kChecked, report.status) << report.error;
    EXPECT_FALSE(report.holds);
    EXPECT_EQ((std::set<std::string>{"no_fault"}), report.fired);
    ASSERT_EQ(1u, report.groups[0].findings.size());
    EXPECT_EQ("the worker process killed by SIGSEGV (Segmentation fault)", report.groups[0].findings[0].detail);
  }
}

TEST(IsolatedBackendTest, AnExitIsAFinding) {
  std::unique_ptr<Backend> exiting = Isolated(Script("exit", "exit 7"));
  std::vector<GroupOutputs> out;
  std::string err;
  ASSERT_TRUE(exiting->Run(Curated()[0], &out, &err)) << err;
  ASSERT_FALSE(out.empty());
  EXPECT_EQ("the worker process exited with status 7", out[0].fault);
}

TEST(IsolatedBackendTest, AHangIsKilledAtTheTimeout) {
  std::unique_ptr<Backend> hanging = Isolated(Script("hang", "exec sleep 30"), /*timeout=*/0.3);
  std::vector<GroupOutputs> out;
  std::string err;
  ASSERT_TRUE(hanging->Run(Curated()[0], &out, &err)) << err;
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(0u, out[0].fault.find("timed out after")) << out[0].fault;
}

// A chunk that hangs is rerun one scenario at a time (one worker each), not
// bisected: 1 + n worker starts, each hang costing one --timeout, and the
// warm spare the pool starts after the last loss (it may be killed before
// it writes its line, when the backend closes first).
TEST(IsolatedBackendTest, AHangInAChunkCostsOneTimeoutPerScenarioNotPerLevel) {
  const std::string starts = ScratchPath("hang_starts");
  fs::remove(starts);
  std::unique_ptr<Backend> hanging = Isolated(Script("hang_count", "echo x >> " + starts + "; exec sleep 30"), 0.3);
  const std::vector<Scenario> scenarios = Curated();
  std::vector<const Scenario*> pointers = {&scenarios[0], &scenarios[1], &scenarios[2], &scenarios[3]};
  std::vector<std::vector<GroupOutputs>> out;
  std::string err;
  ASSERT_TRUE(hanging->RunMany(pointers, &out, &err, 1)) << err;
  ASSERT_EQ(4u, out.size());
  for (const auto& groups : out) EXPECT_EQ(0u, groups.at(0).fault.find("timed out after")) << groups.at(0).fault;
  std::ifstream in(starts);
  int lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  EXPECT_TRUE(lines == 5 || lines == 6)
      << lines << " starts; expected the chunk's worker, then one per scenario, and maybe the spare after the last "
      << "(bisection would start 7, and its spare)";
}

TEST(IsolatedBackendTest, ManyScenariosWithAFaultAreAttributedOneByOne) {
  std::unique_ptr<Backend> crashing = Isolated(Script("segv_many", "kill -SEGV $$"));
  const std::vector<Scenario> scenarios = Curated();
  std::vector<const Scenario*> pointers = {&scenarios[0], &scenarios[1], &scenarios[2]};
  std::vector<std::vector<GroupOutputs>> out;
  std::string err;
  ASSERT_TRUE(crashing->RunMany(pointers, &out, &err, 1)) << err;
  ASSERT_EQ(3u, out.size());
  for (const auto& groups : out) EXPECT_NE("", groups.at(0).fault);
}

// A chunk split over several workers at once gives, in order, what the
// host backend gives scenario by scenario.
TEST(IsolatedBackendTest, AChunkSplitOverWorkersKeepsItsOrder) {
  std::unique_ptr<Backend> isolated = Isolated(SLOTGUARD_BINARY);
  std::vector<Scenario> scenarios;
  while (scenarios.size() < 1200)
    for (const Scenario& s : Curated()) scenarios.push_back(s);
  std::vector<const Scenario*> pointers;
  for (const Scenario& s : scenarios) pointers.push_back(&s);
  std::vector<std::vector<GroupOutputs>> out;
  std::string err;
  ASSERT_TRUE(isolated->RunMany(pointers, &out, &err, 4)) << err;
  ASSERT_EQ(scenarios.size(), out.size());
  std::unique_ptr<Backend> host = MakeHostBackend();
  for (size_t i = 0; i < scenarios.size(); i += 37) {
    std::vector<GroupOutputs> expected;
    ASSERT_TRUE(host->Run(scenarios[i], &expected, &err)) << err;
    ASSERT_EQ(expected.size(), out[i].size());
    for (size_t g = 0; g < expected.size(); ++g) EXPECT_EQ(expected[g].engine, out[i][g].engine) << i;
  }
}

}  // namespace
}  // namespace slotguard
