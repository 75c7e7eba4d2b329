// A campaign's budget as a deadline and a stop: a stop asked from outside
// (SIGINT, SIGTERM) or --time's deadline ends the campaign at the next
// scenario (one at a time) or after the chunk on the backend (batched),
// cuts a shrink short keeping the smallest reproducer found, and the
// checkpoints show what was found before it is shrunk.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "backend/backend.h"
#include "fuzzing/campaign.h"
#include "fuzzing/shrink.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"
#include "testing/scratch_dir.h"
#include "util/output_file.h"

namespace slotguard {
namespace {

namespace fs = std::filesystem;

/// The host backend, batching or not, that counts its scenarios and, from
/// the `stop_at`-th on, raises the stop flag (as SIGTERM's handler does);
/// each scenario takes `sleep_ms` more.
class CountingBackend : public Backend {
 public:
  CountingBackend(bool batches, int64_t stop_at, std::atomic<int>* stop, int sleep_ms = 0)
      : batches_(batches), stop_at_(stop_at), stop_(stop), sleep_ms_(sleep_ms) {}
  const char* name() const override { return "host"; }
  bool Batches() const override { return batches_; }
  bool Run(const Scenario& s, std::vector<GroupOutputs>* outputs, std::string* err) override {
    if (++runs == stop_at_) *stop_ = SIGTERM;
    if (sleep_ms_) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms_));
    return host_->Run(s, outputs, err);
  }
  bool RunReplays(const GraphSequence&, std::vector<std::vector<GroupOutputs>>*, std::string* err) override {
    *err = "not used";
    return false;
  }
  bool RunMany(const std::vector<const Scenario*>& scenarios, std::vector<std::vector<GroupOutputs>>* outputs,
               std::string* err, int threads) override {
    chunks.push_back(static_cast<int64_t>(scenarios.size()));
    return Backend::RunMany(scenarios, outputs, err, threads);
  }
  std::atomic<int64_t> runs{0};
  std::vector<int64_t> chunks;  // RunMany's sizes

 private:
  std::unique_ptr<Backend> host_ = MakeHostBackend();
  bool batches_;
  int64_t stop_at_;
  std::atomic<int>* stop_;
  int sleep_ms_;
};

CampaignOptions Options(const std::string& name, std::atomic<int>* stop) {
  CampaignOptions o;
  o.settings.seed = 5;
  o.settings.seconds = 0;  // no deadline: only the stop ends these
  o.settings.out_dir = FreshScratchPath(name);
  o.stop = stop;
  return o;
}

TEST(CampaignStopTest, AStopEndsTheCampaignAtTheNextScenario) {
  std::atomic<int> stop{0};
  CampaignOptions o = Options("next_scenario", &stop);  // unbounded: only the stop ends it
  CountingBackend backend(false, 100, &stop);
  CampaignResult r;
  std::string err;
  std::ostringstream progress;
  ASSERT_TRUE(RunCampaign(o, backend, progress, &r, &err)) << err;
  EXPECT_EQ(100, r.scenarios) << "the 100th raised the stop; the 101st was not run";
  EXPECT_EQ(100, backend.runs.load());
  EXPECT_EQ(SIGTERM, r.stop_signal);
  EXPECT_FALSE(r.deadline_reached);
  EXPECT_NE(std::string::npos, progress.str().find("fuzz: stopped by SIGTERM after 100 scenarios")) << progress.str();
}

// Batched: the chunk on the backend when the stop comes is checked and
// counted; the chunk generated behind it is dropped, never run.
TEST(CampaignStopTest, ABatchedCampaignStopsAfterTheChunkOnTheBackend) {
  std::atomic<int> stop{0};
  CampaignOptions o = Options("batched", &stop);
  o.batch_chunk = 50;
  CountingBackend backend(true, 120, &stop);  // during the third chunk of 50
  CampaignResult r;
  std::string err;
  std::ostringstream progress;
  ASSERT_TRUE(RunCampaign(o, backend, progress, &r, &err)) << err;
  ASSERT_EQ(3u, backend.chunks.size());
  EXPECT_EQ(150, r.scenarios);
  EXPECT_EQ(150, backend.runs.load());
  EXPECT_EQ(SIGTERM, r.stop_signal);
}

/// The counting backend, batching, whose second chunk comes back with
/// scenarios [10, 20) not run and the stop raised: what a provider's
/// messages in flight leave when the stop comes between them.
class GappingBackend : public CountingBackend {
 public:
  explicit GappingBackend(std::atomic<int>* stop) : CountingBackend(true, -1, stop), stop_(stop) {}
  bool RunMany(const std::vector<const Scenario*>& scenarios, std::vector<std::vector<GroupOutputs>>* outputs,
               std::string* err, int threads) override {
    if (!CountingBackend::RunMany(scenarios, outputs, err, threads)) return false;
    if (chunks.size() == 2) {
      for (size_t i = 10; i < 20; ++i) MarkNotRun("not run", (*outputs)[i].size(), &(*outputs)[i]);
      *stop_ = SIGTERM;
    }
    return true;
  }

 private:
  std::atomic<int>* stop_;
};

// A chunk with a gap of scenarios the stop left not run: the campaign
// counts the prefix before the gap (a count of scenarios is always "the
// first N"), and keeps the findings of the scenarios after it that ran.
TEST(CampaignStopTest, AGapTheStopLeftCountsThePrefixAndKeepsEveryFinding) {
  std::atomic<int> stop{0};
  CampaignOptions o = Options("gap", &stop);
  o.batch_chunk = 50;
  o.generator.families = {Family::kKpoolTail};
  o.settings.variant = "prefix";  // a planted bug: findings all along the stream
  o.settings.keep_going = true;
  GappingBackend backend(&stop);
  CampaignResult r;
  std::string err;
  std::ostringstream progress;
  ASSERT_TRUE(RunCampaign(o, backend, progress, &r, &err)) << err;
  ASSERT_EQ(2u, backend.chunks.size());
  ASSERT_EQ(50, backend.chunks[0]);
  EXPECT_EQ(60, r.scenarios);
  // Each scenario that ran, alone: the findings the campaign must have kept.
  std::unique_ptr<Backend> host = MakeHostBackend();
  int64_t expected = 0, after_gap = 0, tokens = 0;
  Classification classes;
  for (int64_t i = 0; i < 100; ++i) {
    const Scenario s = CampaignScenario(o, i, i < 60 ? &classes : nullptr);
    if (i < 60) tokens += s.batch.num_tokens * static_cast<int64_t>(s.groups.size());
    if (i >= 60 && i < 70) continue;  // not run
    ScenarioRun run;
    ASSERT_TRUE(RunScenario(s, *host, 1, &run, &err)) << err;
    const bool found = !FiredInvariants(run).empty();
    expected += found;
    after_gap += found && i >= 70;
  }
  ASSERT_GT(after_gap, 0) << "the test needs a finding past the gap";
  EXPECT_EQ(expected, r.finding_scenarios);
  EXPECT_EQ(tokens, r.tokens) << "the tallies are the counted prefix's";
  EXPECT_EQ(classes, r.classes);
}

// --time is a deadline checked before every scenario: one of 20 ms per
// scenario ends near its half second, not after a chunk of 2048 (41 s).
TEST(CampaignStopTest, TheDeadlineIsCheckedWithinAChunk) {
  std::atomic<int> stop{0};
  CampaignOptions o = Options("deadline", &stop);
  o.settings.seconds = 0.5;
  CountingBackend backend(false, -1, &stop, /*sleep_ms=*/20);
  CampaignResult r;
  std::string err;
  std::ostringstream progress;
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(RunCampaign(o, backend, progress, &r, &err)) << err;
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.deadline_reached);
  EXPECT_EQ(0, r.stop_signal);
  EXPECT_LT(took, 10.0) << r.scenarios << " scenarios";
  EXPECT_EQ(r.scenarios, backend.runs.load()) << "every scenario run is counted";
}

// The stop comes while the finding is being shrunk: the shrink ends there,
// its reproducer is the smallest found so far (still firing, written), and
// the campaign says so.
TEST(CampaignStopTest, AShrinkCutShortKeepsTheSmallestReproducerAndSaysSo) {
  std::atomic<int> stop{0};
  CampaignOptions o = Options("full_shrink", &stop);
  o.generator.families = {Family::kKpoolTail};
  o.settings.variant = "prefix";
  CountingBackend whole(false, -1, &stop);
  CampaignResult full;
  std::string err;
  std::ostringstream progress;
  ASSERT_TRUE(RunCampaign(o, whole, progress, &full, &err)) << err;
  ASSERT_TRUE(full.Found());
  const CampaignFinding& shrunk = full.findings[0];
  EXPECT_FALSE(shrunk.shrink_cut_short);
  // Again, stopped at the 2nd shrink candidate that runs: after the scan,
  // the finding's own run and one candidate.
  o.settings.out_dir = FreshScratchPath("cut_short");
  CountingBackend cut(false, shrunk.finding_index + 1 + 3, &stop);
  CampaignResult r;
  progress.str("");
  ASSERT_TRUE(RunCampaign(o, cut, progress, &r, &err)) << err;
  ASSERT_TRUE(r.Found());
  const CampaignFinding& f = r.findings[0];
  EXPECT_TRUE(f.shrink_cut_short);
  EXPECT_EQ(SIGTERM, r.stop_signal);
  EXPECT_EQ(shrunk.finding_index, f.finding_index);
  EXPECT_NE(std::string::npos, progress.str().find("was cut short by SIGTERM")) << progress.str();
  ASSERT_TRUE(f.written()) << f.reproducer_error;
  Scenario reproducer;
  ASSERT_TRUE(LoadScenarioFile(f.file, LoadLimits(), &reproducer, &err)) << err;
  ScenarioRun run;
  std::unique_ptr<Backend> host = MakeHostBackend();
  ASSERT_TRUE(RunScenario(reproducer, *host, 1, &run, &err)) << err;
  EXPECT_TRUE(FiredInvariants(run).count(f.invariant)) << f.invariant;
  EXPECT_LE(reproducer.batch.num_tokens, f.original.batch.num_tokens);
  EXPECT_GE(reproducer.batch.num_tokens, shrunk.minimized.batch.num_tokens);
}

// Before it shrinks, a campaign checkpoints what it found: the finding
// unshrunk, as its first scenario, no reproducer yet.
TEST(CampaignStopTest, ACheckpointBeforeShrinkingShowsTheFindingUnshrunk) {
  std::atomic<int> stop{0};
  CampaignOptions o = Options("checkpoint", &stop);
  o.generator.families = {Family::kKpoolTail};
  o.settings.variant = "prefix";
  std::vector<CampaignResult> checkpoints;
  o.checkpoint = [&](const CampaignResult& snapshot) { checkpoints.push_back(snapshot); };
  CountingBackend backend(false, -1, &stop);
  CampaignResult r;
  std::string err;
  std::ostringstream progress;
  ASSERT_TRUE(RunCampaign(o, backend, progress, &r, &err)) << err;
  ASSERT_TRUE(r.Found());
  ASSERT_EQ(1u, checkpoints.size()) << "none due in a minute: only the one before shrinking";
  const CampaignResult& c = checkpoints[0];
  EXPECT_EQ(r.scenarios, c.scenarios);
  ASSERT_EQ(1u, c.findings.size());
  EXPECT_EQ(r.findings[0].finding_index, c.findings[0].finding_index);
  EXPECT_EQ(0, c.findings[0].shrunk);
  EXPECT_FALSE(c.findings[0].written());
  EXPECT_EQ(ScenarioShape(r.findings[0].original), c.findings[0].signature.shape) << "the unshrunk scenario's";
  EXPECT_EQ(r.findings[0].original, c.findings[0].minimized);
  // Due at every chunk: one per chunk of a longer campaign, and the last.
  checkpoints.clear();
  o.settings.variant.clear();
  o.settings.runs = 3000;
  o.checkpoint_seconds = 0;
  CampaignResult clean;
  ASSERT_TRUE(RunCampaign(o, backend, progress, &clean, &err)) << err;
  EXPECT_GE(checkpoints.size(), 3u);
  EXPECT_EQ(3000, checkpoints.back().scenarios);
}

/// The host backend whose runs `fault_at` to `fault_at + more` (from 1) are
/// a crash of its implementation: a fault of its history, not of those
/// scenarios.
class FlakyBackend : public CountingBackend {
 public:
  FlakyBackend(int64_t fault_at, std::atomic<int>* stop, int64_t more = 0)
      : CountingBackend(false, -1, stop), fault_at_(fault_at), more_(more) {}
  bool Run(const Scenario& s, std::vector<GroupOutputs>* outputs, std::string* err) override {
    if (!CountingBackend::Run(s, outputs, err)) return false;
    const int64_t n = runs.load();
    if (n >= fault_at_ && n <= fault_at_ + more_)
      MarkFaulted("killed by SIGSEGV (Segmentation fault) on call " + std::to_string(n), s.groups.size(), outputs, 0);
    return true;
  }

 private:
  int64_t fault_at_, more_;
};

// A finding whose scenario fires nothing when run again is not shrunk
// (there is nothing to keep firing: every candidate would be run for
// nothing): it is kept as generated, with the invariants the campaign saw,
// written, and said.
TEST(CampaignStopTest, AFindingThatDoesNotRecurIsKeptUnshrunkAndSaid) {
  std::atomic<int> stop{0};
  CampaignOptions o = Options("no_recur", &stop);
  o.generator.families = {Family::kKpoolTail};
  FlakyBackend backend(30, &stop);
  CampaignResult r;
  std::string err;
  std::ostringstream progress;
  ASSERT_TRUE(RunCampaign(o, backend, progress, &r, &err)) << err;
  ASSERT_TRUE(r.Found());
  const CampaignFinding& f = r.findings[0];
  EXPECT_EQ(29, f.finding_index);
  EXPECT_FALSE(f.recurred);
  EXPECT_EQ("no_fault", f.invariant);
  EXPECT_EQ(std::vector<std::string>{"no_fault"}, f.fired);
  EXPECT_EQ(ScenarioShape(f.original), f.signature.shape);
  EXPECT_LE(backend.runs.load(), 30 + 2) << "its run again, the reproducer's run: no shrink candidates";
  EXPECT_NE(std::string::npos, progress.str().find("fuzz: the finding of scenario 29 (kpool_tail/fixed: no_fault"))
      << progress.str();
  ASSERT_TRUE(f.written()) << f.reproducer_error;
  Scenario reproducer;
  ASSERT_TRUE(LoadScenarioFile(f.file, LoadLimits(), &reproducer, &err)) << err;
  EXPECT_EQ(f.original.batch.num_tokens, reproducer.batch.num_tokens);
}

TEST(CampaignStopTest, AnAtomicWriteReplacesTheWholeFileAndLeavesNothingBeside) {
  const std::string path = ScratchPath("summary.json");
  std::string why;
  ASSERT_TRUE(WriteOutputFileAtomically(path, "first, longer text\n", &why)) << why;
  ASSERT_TRUE(WriteOutputFileAtomically(path, "second\n", &why)) << why;
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ("second\n", text);
  int files = 0;
  for (const auto& entry : fs::directory_iterator(ScratchDir())) files += entry.is_regular_file();
  EXPECT_EQ(1, files) << "no temporary file left";
}

// A fault that recurs for a while (its scenario run again, the first
// shrink candidates) and then no more: the candidates kept fired it when they
// ran, but the minimized reproducer fires nothing when run again. It is kept
// as generated and said, as one that never recurred, never reported as a
// finding that fires nothing.
TEST(CampaignStopTest, AFindingWhoseReproducerStopsFiringIsKeptUnshrunk) {
  std::atomic<int> stop{0};
  CampaignOptions o = Options("stops_recurring", &stop);
  o.generator.families = {Family::kKpoolTail};
  FlakyBackend backend(30, &stop, /*more=*/4);
  CampaignResult r;
  std::string err;
  std::ostringstream progress;
  ASSERT_TRUE(RunCampaign(o, backend, progress, &r, &err)) << err;
  ASSERT_TRUE(r.Found());
  const CampaignFinding& f = r.findings[0];
  EXPECT_EQ(29, f.finding_index);
  EXPECT_FALSE(f.recurred);
  EXPECT_EQ(std::vector<std::string>{"no_fault"}, f.fired);
  EXPECT_EQ(ScenarioShape(f.original), f.signature.shape);
  EXPECT_NE(std::string::npos, f.signature.Text().find("kpool_tail")) << f.signature.Text();
  EXPECT_GT(backend.runs.load(), 30 + 2) << "it was shrunk for a while";
  EXPECT_NE(std::string::npos, progress.str().find("did not recur when its minimized reproducer ran again"))
      << progress.str();
}

}  // namespace
}  // namespace slotguard
