// --kernel-cmd end to end with a provider written from the protocol page
// alone (fixtures/fixture_provider.cc): a correct provider holds, and each
// way a provider goes wrong costs its scenario (naming the group), not the
// run: a crash, a hang, a malformed reply (each with a restart), an error
// reply, a skip; a bad handshake is a one-line error, exit 2.
#include <sys/wait.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "setup/backend_setup.h"
#include "fuzzing/campaign.h"
#include "registry/invariants.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"
#include "testing/scenario_fixtures.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

std::string Fixture(const std::string& args) { return std::string(SLOTGUARD_FIXTURE_PROVIDER) + " " + args; }

std::unique_ptr<Backend> Open(const std::string& args, std::string* problem, double timeout = 30) {
  RunSetup setup;
  setup.provider.kernel_cmd = Fixture(args);
  setup.timeout_seconds = timeout;
  bool environment = false;
  return OpenBackend(BackendKind::kHost, setup, problem, &environment);
}

// kpool_tail scenarios from the campaign's generator, and a token count
// that a few of them (not all) have.
std::vector<Scenario> KpoolScenarios(int64_t* trigger, size_t* hits) {
  CampaignOptions o;
  o.generator.families = {Family::kKpoolTail};
  o.settings.seed = 7;
  std::vector<Scenario> out;
  for (int64_t i = 0; i < 60; ++i) out.push_back(CampaignScenario(o, i, nullptr));
  std::map<int64_t, size_t> count;
  for (const Scenario& s : out) count[s.batch.num_tokens]++;
  if (!trigger) return out;
  *trigger = -1;
  for (const auto& [tokens, n] : count)
    if (n >= 1 && n <= 3 && tokens > 0) {
      *trigger = tokens;
      *hits = n;
      break;
    }
  return out;
}

std::set<std::string> Fired(const Scenario& s, std::vector<GroupOutputs> outputs) {
  ScenarioRun run;
  run.kernel = std::move(outputs);
  CheckKernelOutputs(s, 1, &run);
  std::set<std::string> fired;
  for (const FindingSink& sink : run.findings)
    for (const auto& [name, count] : sink.counts()) fired.insert(name);
  return fired;
}

/// Whether `pid` is a zombie (dead, not yet reaped by its new parent).
bool Zombie(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';
}

/// Whether process `pid` is gone (or a zombie) within `seconds`: a SIGKILL
/// sent to a process group is delivered asynchronously, so a child killed
/// with its provider may still run for a moment after the call returns.
bool GoneWithin(int pid, double seconds) {
  for (double waited = 0; waited < seconds; waited += 0.01) {
    if (kill(pid, 0) != 0 || Zombie(pid)) return true;
    usleep(10000);
  }
  return kill(pid, 0) != 0 || Zombie(pid);
}

int Starts(const std::string& path) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

TEST(ProviderBackendTest, ACorrectProviderHoldsEveryCuratedScenario) {
  std::string problem;
  std::unique_ptr<Backend> backend = Open("serve", &problem);
  ASSERT_TRUE(backend) << problem;
  EXPECT_EQ("host with provider fixture-serve (" + Fixture("serve") + ") for kpool_tail", backend->Describe());
  int kpool_groups = 0;
  for (const Scenario& s : CuratedScenarios()) {
    for (const Group& g : s.groups) kpool_groups += g.family == Family::kKpoolTail;
    const ScenarioReport report = CheckScenario(s, s.name, *backend, 4);
    EXPECT_EQ(ScenarioStatus::kChecked, report.status) << s.name << ": " << report.error;
    EXPECT_TRUE(report.holds) << s.name << ": " << report.verdict;
  }
  EXPECT_GT(kpool_groups, 5) << "the curated scenarios must exercise the provider";
}

// Each failure mode: the triggering scenarios carry `expect` in their
// fault (or skip), every other scenario holds, and a restart happened when
// `restarts`.
void ExpectFailuresLandOnTheirScenarios(const std::string& mode, const std::string& expect, bool skipped,
                                        bool restarts, double timeout = 30) {
  int64_t trigger;
  size_t hits = 0;
  const std::vector<Scenario> scenarios = KpoolScenarios(&trigger, &hits);
  ASSERT_GT(trigger, 0) << "no token count shared by at most 3 scenarios";
  const std::string starts = ScratchPath("starts-" + mode);
  std::remove(starts.c_str());
  setenv("FIXTURE_STARTS", starts.c_str(), 1);
  std::string problem;
  std::unique_ptr<Backend> backend = Open(mode + " " + std::to_string(trigger), &problem, timeout);
  ASSERT_TRUE(backend) << problem;
  std::vector<const Scenario*> pointers;
  for (const Scenario& s : scenarios) pointers.push_back(&s);
  std::vector<std::vector<GroupOutputs>> outputs;
  std::string err;
  ASSERT_TRUE(backend->RunMany(pointers, &outputs, &err, 2)) << err;
  ASSERT_EQ(scenarios.size(), outputs.size());
  size_t failed = 0;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const GroupOutputs& first = outputs[i][0];
    if (scenarios[i].batch.num_tokens == trigger) {
      ++failed;
      const std::string& text = skipped ? first.skipped : first.fault;
      EXPECT_NE(std::string::npos, text.find(expect)) << text;
      if (!skipped) {
        EXPECT_NE(std::string::npos, text.find(" (kpool_tail)")) << "names the group: " << text;
      }
      continue;
    }
    EXPECT_TRUE(first.fault.empty() && first.skipped.empty()) << scenarios[i].name << ": " << first.fault;
    EXPECT_TRUE(Fired(scenarios[i], outputs[i]).empty()) << scenarios[i].name;
  }
  EXPECT_EQ(hits, failed);
  unsetenv("FIXTURE_STARTS");
  if (restarts) {
    EXPECT_GT(Starts(starts), 1) << "the provider was restarted";
  }
}

TEST(ProviderBackendTest, ACrashCostsOnlyItsScenario) {
  ExpectFailuresLandOnTheirScenarios("crash", "killed by SIGSEGV (Segmentation fault) while running group", false,
                                     true);
}

TEST(ProviderBackendTest, AHangTimesOutAndCostsOnlyItsScenario) {
  ExpectFailuresLandOnTheirScenarios("hang", "timed out after 1 s (--timeout); the provider was killed", false,
                                     true, 1);
}

TEST(ProviderBackendTest, AMalformedReplyCostsOnlyItsScenario) {
  ExpectFailuresLandOnTheirScenarios("garbage", "answered a malformed RESULTS (too few output bytes", false, true);
}

TEST(ProviderBackendTest, AnErrorReplyIsAFaultNamingTheGroup) {
  ExpectFailuresLandOnTheirScenarios("error", "(kpool_tail) failed: ValueError: planted", false,
                                     false);
}

TEST(ProviderBackendTest, ASkipIsReportedAsSkipped) {
  ExpectFailuresLandOnTheirScenarios("skip", "skips it: not this one", true, false);
}

TEST(ProviderBackendTest, AProviderThatClosesItsReplyPipeCostsOnlyItsScenario) {
  // It exits once slotguard closes its request pipe.
  ExpectFailuresLandOnTheirScenarios("close-reply", "exited with status 0 while running group", false, true);
}

TEST(ProviderBackendTest, TextOnTheReplyPipeCostsOnlyItsScenario) {
  ExpectFailuresLandOnTheirScenarios("text", "stopped answering in frames and was killed while running group", false,
                                     true);
}

// A reply that belongs to no request in flight is never taken as another
// scenario's answer: it costs the scenario that drew it (a restart and a
// no_fault naming the provider), and every other scenario holds.
TEST(ProviderBackendTest, AnExtraReplyCostsOnlyItsScenario) {
  ExpectFailuresLandOnTheirScenarios("extra-reply", "answered more than it was asked (a frame after RESULTS", false,
                                     true);
}

TEST(ProviderBackendTest, AReplyToAnotherRunCostsOnlyItsScenario) {
  ExpectFailuresLandOnTheirScenarios("stale-reply", "answered a malformed RESULTS (the answer to RUN ", false, true);
}

TEST(ProviderBackendTest, ControlAndNonUtf8BytesInAMessageBecomeOnePrintableLine) {
  ExpectFailuresLandOnTheirScenarios("error-bytes", "(kpool_tail) failed: bad ?  byte", false, false);
}

// A provider that stops reading: slotguard's writes do not block past
// --timeout (a request bigger than the pipe's buffer included).
TEST(ProviderBackendTest, AProviderThatStopsReadingTimesOut) {
  int64_t trigger;
  size_t hits = 0;
  std::vector<Scenario> scenarios = KpoolScenarios(&trigger, &hits);
  scenarios.resize(2);
  scenarios[1].batch.positions.resize(100000, 0);  // past a pipe's 64 KiB
  scenarios[1].batch.slot_mapping_in.resize(100000, -1);
  scenarios[1].batch.num_tokens = 100000;
  std::string problem;
  std::unique_ptr<Backend> backend = Open("deaf", &problem, 1);
  ASSERT_TRUE(backend) << problem;
  std::vector<const Scenario*> pointers = {&scenarios[0], &scenarios[1]};
  std::vector<std::vector<GroupOutputs>> outputs;
  std::string err;
  ASSERT_TRUE(backend->RunMany(pointers, &outputs, &err, 1)) << err;
  for (const std::vector<GroupOutputs>& o : outputs)
    EXPECT_NE(std::string::npos, o[0].fault.find("timed out after 1 s (--timeout)")) << o[0].fault;
}

// The same output storage across chunks, as a campaign reuses it: a skip
// of one chunk must not stick to the next.
TEST(ProviderBackendTest, ASkipDoesNotOutliveItsChunk) {
  int64_t trigger;
  size_t hits = 0;
  const std::vector<Scenario> scenarios = KpoolScenarios(&trigger, &hits);
  std::string problem;
  std::unique_ptr<Backend> backend = Open("skip " + std::to_string(trigger), &problem);
  ASSERT_TRUE(backend) << problem;
  std::vector<const Scenario*> with, without;
  for (const Scenario& s : scenarios) (s.batch.num_tokens == trigger ? with : without).push_back(&s);
  ASSERT_FALSE(with.empty());
  ASSERT_GE(without.size(), with.size());
  std::vector<const Scenario*> second(without.begin(), without.begin() + with.size());
  std::vector<std::vector<GroupOutputs>> outputs;
  std::string err;
  ASSERT_TRUE(backend->RunMany(with, &outputs, &err, 1)) << err;
  for (const auto& o : outputs) EXPECT_FALSE(o[0].skipped.empty());
  ASSERT_TRUE(backend->RunMany(second, &outputs, &err, 1)) << err;
  for (const auto& o : outputs) EXPECT_TRUE(o[0].skipped.empty()) << o[0].skipped;
}

TEST(ProviderBackendTest, AFaultIsANoFaultFinding) {
  Scenario s = CuratedScenarios()[0];
  std::vector<GroupOutputs> outputs;
  MarkFaulted("the provider exited", s.groups.size(), &outputs);
  EXPECT_EQ(std::set<std::string>{kInvariantNoFault}, Fired(s, outputs));
  MarkSkipped("not this one", s.groups.size(), &outputs);
  EXPECT_TRUE(Fired(s, outputs).empty()) << "a skipped scenario has no finding";
}

// A provider's name and error text are its own words: each at most 200
// characters in what slotguard prints (a 64 KiB one was a 65K-character line).
TEST(ProviderBackendTest, LongNamesAndMessagesAreElided) {
  int64_t trigger;
  size_t hits = 0;
  const std::vector<Scenario> scenarios = KpoolScenarios(&trigger, &hits);
  std::string problem;
  std::unique_ptr<Backend> backend = Open("long-texts " + std::to_string(trigger), &problem);
  ASSERT_TRUE(backend) << problem;
  EXPECT_EQ("provider " + std::string(200, 'N') + "...(65535 bytes) (" + Fixture("long-texts " + std::to_string(trigger)) +
                ")",
            backend->provider()->name());
  for (const Scenario& s : scenarios) {
    if (s.batch.num_tokens != trigger) continue;
    std::vector<GroupOutputs> outputs;
    std::string err;
    ASSERT_TRUE(backend->Run(s, &outputs, &err)) << err;
    const std::string& fault = outputs[0].fault;
    EXPECT_NE(std::string::npos, fault.find("failed: " + std::string(200, 'E') + "...(65536 bytes)")) << fault.size();
    EXPECT_LT(fault.size(), 700u);
    return;
  }
  FAIL() << "no scenario with " << trigger << " tokens";
}

// A provider dies while a child it started holds the reply pipe: its group
// is killed at once, so slotguard sees the end (the provider exited) now,
// not by waiting out --timeout (3 tiny scenarios at --timeout 5 took 30 s,
// each reported as timed out).
TEST(ProviderBackendTest, AProviderThatDiesWhileAChildHoldsItsPipeCostsNoTimeout) {
  int64_t trigger;
  size_t hits = 0;
  const std::vector<Scenario> scenarios = KpoolScenarios(&trigger, &hits);
  const std::string children = (ScratchDir() / "children").string();
  setenv("FIXTURE_CHILDREN", children.c_str(), 1);
  std::string problem;
  std::unique_ptr<Backend> backend = Open("die-holding " + std::to_string(trigger), &problem, 5);
  ASSERT_TRUE(backend) << problem;
  std::vector<const Scenario*> pointers;
  for (const Scenario& s : scenarios) pointers.push_back(&s);
  std::vector<std::vector<GroupOutputs>> outputs;
  std::string err;
  ASSERT_TRUE(backend->RunMany(pointers, &outputs, &err, 1)) << err;
  unsetenv("FIXTURE_CHILDREN");
  size_t faulted = 0;
  for (size_t i = 0; i < scenarios.size(); ++i)
    if (scenarios[i].batch.num_tokens == trigger) {
      ++faulted;
      EXPECT_NE(std::string::npos, outputs[i][0].fault.find("exited with status 1 while running group"))
          << outputs[i][0].fault;
    }
  EXPECT_EQ(hits, faulted);
  // Every holder died with its provider.
  std::ifstream in(children);
  int holders = 0;
  for (int pid; in >> pid; ++holders) EXPECT_TRUE(GoneWithin(pid, 2)) << "holder " << pid << " lives";
  EXPECT_GT(holders, 0);
}

// Whatever a provider started dies with it: when the backend closes (the
// end of a run), its process group is killed, not only the provider (the
// warm spare's too, when it got as far as starting its holder).
TEST(ProviderBackendTest, AProvidersChildrenDoNotOutliveTheRun) {
  const std::string children = (ScratchDir() / "children").string();
  setenv("FIXTURE_CHILDREN", children.c_str(), 1);
  {
    std::string problem;
    std::unique_ptr<Backend> backend = Open("fork-holder", &problem);
    ASSERT_TRUE(backend) << problem;
    std::vector<GroupOutputs> outputs;
    std::string err;
    ASSERT_TRUE(backend->Run(CuratedScenarios()[0], &outputs, &err)) << err;
  }
  unsetenv("FIXTURE_CHILDREN");
  std::ifstream in(children);
  int holders = 0;
  for (int pid; in >> pid; ++holders) {
    EXPECT_TRUE(GoneWithin(pid, 2)) << "holder " << pid << " outlived the run";
  }
  EXPECT_GE(holders, 1);
  EXPECT_LE(holders, 2) << "the provider and its warm spare";
}

/// The lines of the test provider's FIXTURE_LOG that start with `what`.
std::vector<std::string> LogLines(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (line.rfind(what, 0) == 0) lines.push_back(line);
  return lines;
}

/// A fresh FIXTURE_LOG at scratch path `name`, set for the providers
/// started from now on; its path.
std::string FreshLog(const std::string& name) {
  const std::string log = ScratchPath(name);
  std::remove(log.c_str());
  setenv("FIXTURE_LOG", log.c_str(), 1);
  return log;
}

/// Runs the KpoolScenarios through the test provider in `mode` (its
/// trigger: a token count few of them have) as two messages; the outputs,
/// and with *log the provider's FIXTURE_LOG.
struct Lost {
  std::vector<Scenario> scenarios;
  std::vector<std::vector<GroupOutputs>> outputs;
  int64_t trigger = -1;
  size_t hits = 0;
  std::string log;
};
Lost RunLosing(const std::string& mode) {
  Lost r;
  r.scenarios = KpoolScenarios(&r.trigger, &r.hits);
  r.log = FreshLog("log-" + mode);
  std::string problem;
  std::unique_ptr<Backend> backend = Open(mode + " " + std::to_string(r.trigger), &problem);
  EXPECT_TRUE(backend) << problem;
  if (!backend) return r;
  std::vector<const Scenario*> pointers;
  for (const Scenario& s : r.scenarios) pointers.push_back(&s);
  std::string err;
  EXPECT_TRUE(backend->RunMany(pointers, &r.outputs, &err, 2)) << err;
  backend.reset();
  unsetenv("FIXTURE_LOG");
  return r;
}

/// Every trigger scenario has a fault holding `expect`; every other holds.
void ExpectFaultsOnTheTriggers(const Lost& r, const std::string& expect) {
  ASSERT_EQ(r.scenarios.size(), r.outputs.size());
  size_t faulted = 0;
  for (size_t i = 0; i < r.scenarios.size(); ++i) {
    const GroupOutputs& first = r.outputs[i][0];
    if (r.scenarios[i].batch.num_tokens == r.trigger) {
      ++faulted;
      EXPECT_NE(std::string::npos, first.fault.find(expect)) << first.fault;
      continue;
    }
    EXPECT_TRUE(first.fault.empty()) << r.scenarios[i].name << ": " << first.fault;
    EXPECT_TRUE(Fired(r.scenarios[i], r.outputs[i]).empty()) << r.scenarios[i].name;
  }
  EXPECT_EQ(r.hits, faulted);
}

// A provider that cannot say which record killed it: the lost message is
// bisected, each half sent again while it kills its process, down to the
// scenario; far fewer messages than one per scenario.
TEST(ProviderBackendTest, ACrashIsFoundByBisectingTheLostMessage) {
  const Lost r = RunLosing("crash");
  ExpectFaultsOnTheTriggers(r, "killed by SIGSEGV (Segmentation fault) while running group");
  const std::vector<std::string> runs = LogLines(r.log, "run ");
  const std::vector<std::string> crashes = LogLines(r.log, "crash");
  EXPECT_GE(crashes.size(), r.hits);
  EXPECT_LT(runs.size(), r.scenarios.size() / 2) << "one message per scenario would be " << r.scenarios.size();
  // What is sent again after a loss synchronizes after each call (flag 1).
  size_t synchronized = 0;
  for (const std::string& line : runs) synchronized += line.size() > 2 && line.substr(line.size() - 2) == " 1";
  EXPECT_EQ(runs.size() - 2, synchronized) << "all but the first two messages";
}

// Its progress page names the record that killed it: one death per
// trigger, and the rest of the message sent again at once, in one message.
TEST(ProviderBackendTest, ACrashTheProgressPageNamesCostsOneDeathAndOneMessage) {
  const Lost r = RunLosing("crash-progress");
  ExpectFaultsOnTheTriggers(r, "killed by SIGSEGV (Segmentation fault) while running group");
  const size_t crashes = LogLines(r.log, "crash").size();
  EXPECT_EQ(r.hits, crashes) << "each trigger kills one process, once";
  // The two messages, then per death at most two more: the scenarios
  // before the one named, and those after it.
  EXPECT_LE(LogLines(r.log, "run ").size(), 2 + 2 * crashes);
}

/// The records the test provider's FIXTURE_LOG says it was sent.
size_t RecordsSent(const std::string& log) {
  size_t records = 0;
  for (const std::string& line : LogLines(log, "run ")) records += std::stoul(line.substr(4));
  return records;
}

// A provider that dies on its 10th call, whatever the scenario: the call
// its page names has the fault, the scenarios that ran before it in the
// dead process are sent again apart from the rest. At most two deaths per 9
// scenarios (the process that ran those 9 again dies on the first call of
// the rest); sending the rest again together, each death cost one
// scenario: about one death per scenario.
/// Runs the KpoolScenarios through the test provider in `mode` ("crash-nth
/// 10", "lose-nth 10") on one thread; the deaths its FIXTURE_LOG counts
/// ("crash" lines) or, with `lost_calls`, the error replies.
void ExpectOneScenarioPerDeath(const std::string& mode, const std::string& fault, bool lost_calls) {
  const std::vector<Scenario> scenarios = KpoolScenarios(nullptr, nullptr);
  const std::string log = FreshLog("log-" + mode.substr(0, mode.find(' ')));
  std::string problem;
  std::unique_ptr<Backend> backend = Open(mode, &problem);
  ASSERT_TRUE(backend) << problem;
  std::vector<const Scenario*> pointers;
  for (const Scenario& s : scenarios) pointers.push_back(&s);
  std::vector<std::vector<GroupOutputs>> outputs;
  std::string err;
  ASSERT_TRUE(backend->RunMany(pointers, &outputs, &err, 1)) << err;
  backend.reset();
  unsetenv("FIXTURE_LOG");
  size_t faulted = 0;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    if (outputs[i][0].fault.empty()) {
      EXPECT_TRUE(Fired(scenarios[i], outputs[i]).empty()) << scenarios[i].name;
      continue;
    }
    ++faulted;
    EXPECT_NE(std::string::npos, outputs[i][0].fault.find(fault)) << outputs[i][0].fault;
  }
  const size_t deaths = lost_calls ? faulted : LogLines(log, "crash").size();
  EXPECT_EQ(deaths, faulted) << "each death, one scenario's fault";
  EXPECT_LE(deaths, 2 * scenarios.size() / 9 + 2) << "not one death per scenario";
  EXPECT_GE(deaths, 1u);
  EXPECT_GE(RecordsSent(log), scenarios.size());
}

TEST(ProviderBackendTest, AProviderThatDiesOnItsNthCallCostsOneScenarioPerDeath) {
  ExpectOneScenarioPerDeath("crash-nth 10", "killed by SIGSEGV", false);
}

// The same death answered for by the provider (python/slotguard's fork
// server: the call that broke its process an error, the rest "not run"):
// the scenarios before that call are sent again apart from those after it.
TEST(ProviderBackendTest, AnsweredDeathsOfAForkServerCostOneScenarioEach) {
  ExpectOneScenarioPerDeath("lose-nth 10", "the provider's process was killed by SIGSEGV in this call", true);
}

// A call breaks the device context: the provider answers "not run" for the
// message and exits; sent again synchronized, the call that faulted is
// named, its scenario gets the no_fault, and the rest are run elsewhere.
TEST(ProviderBackendTest, ADeviceFaultIsAttributedToTheCallThatRaisedIt) {
  const Lost r = RunLosing("device-fault");
  ExpectFaultsOnTheTriggers(r, "failed: device fault: RuntimeError: CUDA error: device-side assert triggered");
  EXPECT_TRUE(LogLines(r.log, "crash").empty());
}

// A campaign's stop asked between messages: the messages already sent are
// answered, the rest are never sent; their scenarios come back not run
// (a skip to anything but a campaign), never a finding.
TEST(ProviderBackendTest, AStopLeavesTheMessagesNotYetSentNotRun) {
  const std::vector<Scenario> scenarios = KpoolScenarios(nullptr, nullptr);
  const std::string log = FreshLog("log-stop");
  std::string problem;
  std::unique_ptr<Backend> backend = Open("serve", &problem);
  ASSERT_TRUE(backend) << problem;
  std::atomic<int> asked{0};
  backend->provider()->set_stop([&asked] { return asked++ >= 2; });  // two messages go, then the stop
  std::vector<const Scenario*> pointers;
  for (const Scenario& s : scenarios) pointers.push_back(&s);
  std::vector<std::vector<GroupOutputs>> outputs;
  std::string err;
  ASSERT_TRUE(backend->RunMany(pointers, &outputs, &err, 4)) << err;  // four messages of 15
  backend.reset();
  unsetenv("FIXTURE_LOG");
  EXPECT_EQ(2u, LogLines(log, "run ").size());
  size_t not_run = 0, calls = 0;  // a call per group
  for (size_t i = 0; i < scenarios.size(); ++i) {
    EXPECT_TRUE(outputs[i][0].fault.empty()) << outputs[i][0].fault;
    EXPECT_TRUE(Fired(scenarios[i], outputs[i]).empty()) << scenarios[i].name;
    if (!NotRun(outputs[i])) {
      calls += scenarios[i].groups.size();
      continue;
    }
    ++not_run;
    EXPECT_NE(std::string::npos, outputs[i][0].skipped.find("not run: the campaign stopped")) << outputs[i][0].skipped;
  }
  EXPECT_EQ(30u, not_run);
  EXPECT_EQ(calls, RecordsSent(log));
}

/// The host backend with a provider whose `stop_at`-th RunMany raises the
/// campaign's stop flag (as SIGTERM's handler does) before it starts.
class StoppingBackend : public Backend {
 public:
  StoppingBackend(std::unique_ptr<Backend> inner, int stop_at, std::atomic<int>* stop)
      : inner_(std::move(inner)), stop_at_(stop_at), stop_(stop) {
    set_provider(inner_->provider());
  }
  const char* name() const override { return inner_->name(); }
  bool Run(const Scenario& s, std::vector<GroupOutputs>* outputs, std::string* err) override {
    return inner_->Run(s, outputs, err);
  }
  bool RunReplays(const GraphSequence& r, std::vector<std::vector<GroupOutputs>>* o, std::string* err) override {
    return inner_->RunReplays(r, o, err);
  }
  bool RunMany(const std::vector<const Scenario*>& scenarios, std::vector<std::vector<GroupOutputs>>* outputs,
               std::string* err, int threads) override {
    if (static_cast<int>(chunks.size()) + 1 == stop_at_) *stop_ = SIGTERM;
    chunks.push_back(static_cast<int64_t>(scenarios.size()));
    return inner_->RunMany(scenarios, outputs, err, threads);
  }
  std::vector<int64_t> chunks;

 private:
  std::unique_ptr<Backend> inner_;
  int stop_at_;
  std::atomic<int>* stop_;
};

// The stop comes as a chunk goes to the provider: none of it is sent, and
// the campaign counts and tallies only what ran (the two chunks before).
TEST(ProviderBackendTest, ACampaignStoppedAsAChunkStartsCountsOnlyWhatRan) {
  const std::string log = FreshLog("log-campaign-stop");
  std::string problem;
  std::unique_ptr<Backend> inner = Open("serve", &problem);
  ASSERT_TRUE(inner) << problem;
  std::atomic<int> stop{0};
  StoppingBackend backend(std::move(inner), 3, &stop);
  CampaignOptions o;
  o.generator.families = {Family::kKpoolTail};
  o.settings.seed = 11;
  o.settings.out_dir = FreshScratchPath("campaign-stop");
  o.stop = &stop;
  CampaignResult r;
  std::ostringstream progress;
  std::string err;
  ASSERT_TRUE(RunCampaign(o, backend, progress, &r, &err)) << err;
  unsetenv("FIXTURE_LOG");
  ASSERT_EQ(3u, backend.chunks.size()) << progress.str();
  const int64_t ran = backend.chunks[0] + backend.chunks[1];
  EXPECT_EQ(ran, r.scenarios);
  EXPECT_EQ(SIGTERM, r.stop_signal);
  EXPECT_EQ(0, r.skipped) << r.first_skip;
  // The tallies are those of the scenarios that ran, not of the third chunk.
  int64_t tokens = 0;
  size_t calls = 0;  // a call per group
  Classification classes;
  for (int64_t i = 0; i < ran; ++i) {
    const Scenario s = CampaignScenario(o, i, &classes);
    tokens += s.batch.num_tokens * static_cast<int64_t>(s.groups.size());
    calls += s.groups.size();
  }
  EXPECT_EQ(calls, RecordsSent(log)) << "the third chunk was never sent";
  EXPECT_EQ(tokens, r.tokens);
  EXPECT_EQ(classes, r.classes);
}

// A scenario of no tokens, for every family the binary knows, through a
// provider of them all: each group has its family's outputs, all empty,
// and nothing fires (a family of two outputs was a no_fault: the second
// was counted only when its buffer pointer was set, and it is null for no
// tokens).
TEST(ProviderBackendTest, AScenarioOfNoTokensHoldsThroughAProviderInEveryFamily) {
  std::string problem;
  std::unique_ptr<Backend> backend = Open("all", &problem);
  ASSERT_TRUE(backend) << problem;
  size_t families = 0;
  for (const FamilyInfo& info : AllFamilies()) {
    CampaignOptions o;
    o.generator.families = {info.family};
    o.settings.seed = 11;
    Scenario s;
    for (int64_t i = 0; i < 50 && s.groups.empty(); ++i) {
      Scenario candidate = CampaignScenario(o, i, nullptr);
      Batch& b = candidate.batch;
      std::fill(b.query_start_loc.begin(), b.query_start_loc.end(), 0);
      b.positions.clear();
      b.slot_mapping_in.clear();
      b.num_actual_tokens = b.num_tokens = 0;
      std::string why;
      if (ParseScenario(WriteScenarioJson(candidate), "no-tokens", LoadLimits(), &s, &why)) break;
      s = Scenario();
    }
    ASSERT_FALSE(s.groups.empty()) << info.name << ": no scenario of no tokens loads";
    std::vector<GroupOutputs> outputs;
    std::string err;
    ASSERT_TRUE(backend->Run(s, &outputs, &err)) << err;
    ASSERT_EQ(s.groups.size(), outputs.size());
    bool per_request = false;
    for (size_t g = 0; g < s.groups.size(); ++g) {
      EXPECT_EQ("", outputs[g].fault) << info.name;
      EXPECT_EQ(static_cast<size_t>(OutputCount(s.groups[g])), outputs[g].engine.size()) << info.name;
      // A slot per token: none; per request (a state index, block
      // operations): its length all the same.
      const size_t length = static_cast<size_t>(OutputLength(s.groups[g], s.batch));
      per_request |= KindModelOf(s.groups[g]).per_request();
      EXPECT_EQ(KindModelOf(s.groups[g]).per_request() ? length : 0u, length) << info.name;
      for (const std::vector<int64_t>& o : outputs[g].engine) EXPECT_EQ(length, o.size()) << info.name;
    }
    if (per_request) continue;  // the test provider's PAD is no right state index
    EXPECT_TRUE(Fired(s, outputs).empty()) << info.name;
    ++families;
  }
  EXPECT_GE(families, 10u) << "the built-in and the engine slot-mapping families";
}

TEST(ProviderBackendTest, ABadHandshakeIsOneLineNamingTheCommand) {
  const std::pair<std::string, std::string> cases[] = {
      {"exit-now", "the provider exited with status 1 before WELCOME"},
      {"bad-version", "bad handshake: protocol version 1; expected 2"},
      {"unknown-family", "bad handshake: family: "},
      {"wrong-type", "bad handshake: message type 7; expected WELCOME (101)"},
      {"silent", "no WELCOME within 1 s (--timeout); the provider was killed"},
      {"huge-welcome", "the provider stopped answering in frames and was killed before WELCOME"},
      {"huge-name", "bad handshake: a provider name of 70000 bytes; expected at most 65536"},
  };
  for (const auto& [mode, expect] : cases) {
    std::string problem;
    EXPECT_FALSE(Open(mode, &problem, 1)) << mode;
    EXPECT_EQ(0u, problem.find("--kernel-cmd \"" + Fixture(mode) + "\": ")) << problem;
    EXPECT_NE(std::string::npos, problem.find(expect)) << problem;
    EXPECT_EQ(std::string::npos, problem.find('\n')) << problem;
  }
}

TEST(ProviderBackendTest, TheCliExitsTwoOnABadHandshake) {
  const std::string cmd = std::string(SLOTGUARD_BINARY) + " check --backend host --kernel-cmd '" +
                          Fixture("bad-version") + "' scenarios/ 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  const int status = pclose(pipe);
  EXPECT_EQ(2, WIFEXITED(status) ? WEXITSTATUS(status) : -1) << out;
  EXPECT_EQ(0u, out.find("slotguard: error: --kernel-cmd")) << out;
  EXPECT_EQ(1, std::count(out.begin(), out.end(), '\n')) << out;
}

}  // namespace
}  // namespace slotguard
