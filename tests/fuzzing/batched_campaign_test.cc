// The batched campaign (a backend whose RunMany packs many scenarios: the
// GPU) overlaps generating, running and checking chunks of scenarios. It must
// check exactly the scenarios the one-at-a-time campaign checks, and stop at
// the same first finding, whatever chunk it falls in. A stand-in backend
// batches the host backend, so this runs without a GPU.
#include <algorithm>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "backend/backend.h"
#include "fuzzing/campaign.h"
#include "scenario/scenario_json.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

namespace fs = std::filesystem;

/// The host backend, claiming to batch (or not); counts RunMany calls. With
/// a token threshold, every scenario of at least that many tokens gets an
/// out-of-range slot in its first output (a stand-in kernel bug keyed to
/// the scenario's content, so Run and RunMany agree). With `record`, keeps
/// every scenario it ran (as JSON: a campaign's shrinking runs thousands).
class StandInBackend : public Backend {
 public:
  StandInBackend(bool batches, int64_t bug_from_tokens, bool record = false)
      : batches_(batches), bug_from_tokens_(bug_from_tokens), record_(record) {}
  const char* name() const override { return "host"; }
  bool Batches() const override { return batches_; }
  bool Run(const Scenario& s, std::vector<GroupOutputs>* outputs, std::string* err) override {
    if (record_) {
      std::lock_guard<std::mutex> lock(mu_);
      seen.insert(WriteScenarioJson(s));
    }
    if (!host_->Run(s, outputs, err)) return false;
    if (bug_from_tokens_ > 0 && s.batch.num_tokens >= bug_from_tokens_ && !outputs->empty())
      (*outputs)[0].engine[0][0] = -7;
    return true;
  }
  bool RunReplays(const GraphSequence&, std::vector<std::vector<GroupOutputs>>*, std::string* err) override {
    *err = "not used";
    return false;
  }
  bool RunMany(const std::vector<const Scenario*>& scenarios, std::vector<std::vector<GroupOutputs>>* outputs,
               std::string* err, int threads) override {
    ++run_many_calls;
    return Backend::RunMany(scenarios, outputs, err, threads);
  }
  int run_many_calls = 0;
  std::multiset<std::string> seen;  // every scenario run, as JSON

 private:
  std::mutex mu_;
  std::unique_ptr<Backend> host_ = MakeHostBackend();
  bool batches_;
  int64_t bug_from_tokens_;
  bool record_;
};

/// The first scenario of the seed's stream (below options.runs) the
/// stand-in bug of StandInBackend(_, tokens) fires on, found without any
/// campaign; -1 when none.
int64_t FirstStandInFinding(const CampaignOptions& options, int64_t tokens) {
  for (int64_t i = 0; i < options.settings.runs; ++i) {
    const Scenario s = CampaignScenario(options, i, nullptr);
    if (s.batch.num_tokens >= tokens && !s.groups.empty()) return i;
  }
  return -1;
}

CampaignOptions Options(const std::string& name) {
  CampaignOptions o;
  o.settings.seed = 3;
  o.settings.seconds = 0;
  o.batch_chunk = 100;
  o.settings.out_dir = FreshScratchPath(name);
  return o;
}

TEST(BatchedCampaignTest, ChecksTheSameScenariosAsOneAtATime) {
  CampaignOptions o = Options("same");
  o.settings.runs = 1234;  // 13 chunks, the last one partial
  o.settings.jobs = 3;
  StandInBackend batched(true, 0), single(false, 0);
  CampaignResult a, b;
  std::string err;
  std::ostringstream progress;
  ASSERT_TRUE(RunCampaign(o, batched, progress, &a, &err)) << err;
  ASSERT_TRUE(RunCampaign(o, single, progress, &b, &err)) << err;
  EXPECT_EQ(13, batched.run_many_calls);
  EXPECT_EQ(0, single.run_many_calls);
  EXPECT_FALSE(a.Found());
  EXPECT_EQ(1234, a.scenarios);
  EXPECT_EQ(b.scenarios, a.scenarios);
  EXPECT_EQ(b.tokens, a.tokens);
  EXPECT_EQ(b.classes, a.classes);
  EXPECT_GT(a.kernel_seconds + a.check_seconds + a.generate_seconds, 0);
}

// --keep-going: both schedulers account the same findings in stream order,
// so they report the same signatures, counts and reproducers.
TEST(BatchedCampaignTest, KeepGoingFindsWhatOneAtATimeFinds) {
  CampaignOptions o = Options("keep_going");
  o.settings.runs = 600;
  o.settings.jobs = 3;
  o.settings.keep_going = true;
  std::vector<std::string> found[2];
  for (bool batches : {true, false}) {
    CampaignOptions run = o;
    run.settings.out_dir += batches ? "_batched" : "_single";
    fs::remove_all(run.settings.out_dir);
    StandInBackend backend(batches, 300);  // a few percent of the scenarios
    CampaignResult r;
    std::string err;
    std::ostringstream progress;
    ASSERT_TRUE(RunCampaign(run, backend, progress, &r, &err)) << err;
    EXPECT_EQ(600, r.scenarios);
    EXPECT_GT(r.finding_scenarios, 1);
    for (const CampaignFinding& f : r.findings)
      found[batches].push_back(f.signature.Text() + " count " + std::to_string(f.count) + " at " +
                               std::to_string(f.finding_index) + ": " + WriteScenarioJson(f.minimized));
    found[batches].push_back("finding scenarios " + std::to_string(r.finding_scenarios) + ", unattributed " +
                             std::to_string(r.unattributed));
  }
  EXPECT_GT(found[0].size(), 1u);
  EXPECT_EQ(found[0], found[1]);
}

// --shard I/N: N campaigns split the seed's stream. Two shards of 300
// check exactly the 600 scenarios of the whole campaign, none twice,
// batched or one at a time.
TEST(ShardedCampaignTest, TwoShardsCheckExactlyTheWholeStream) {
  for (bool batches : {true, false}) {
    CampaignOptions whole = Options("shards");
    whole.settings.runs = 600;
    whole.settings.jobs = 2;
    StandInBackend all(batches, 0, /*record=*/true);
    CampaignResult r;
    std::string err;
    std::ostringstream progress;
    ASSERT_TRUE(RunCampaign(whole, all, progress, &r, &err)) << err;
    ASSERT_EQ(600u, all.seen.size());
    std::multiset<std::string> together;
    for (int64_t shard : {0, 1}) {
      CampaignOptions part = whole;
      part.settings.runs = 300;
      part.settings.shard = shard;
      part.settings.shards = 2;
      StandInBackend backend(batches, 0, /*record=*/true);
      CampaignResult shard_result;
      ASSERT_TRUE(RunCampaign(part, backend, progress, &shard_result, &err)) << err;
      EXPECT_EQ(300, shard_result.scenarios);
      together.insert(backend.seen.begin(), backend.seen.end());
    }
    EXPECT_EQ(all.seen, together) << (batches ? "batched" : "one at a time");
  }
}

// A shard names its finding by its index in the whole stream: the shard
// that holds the whole campaign's first finding finds it at the same index;
// the other finds a later one of its own parity.
TEST(ShardedCampaignTest, AShardsFindingIsNamedByItsIndexInTheWholeStream) {
  const int64_t kTokens = 300;
  CampaignOptions whole = Options("shard_finding");
  whole.settings.runs = 4000;
  const int64_t first = FirstStandInFinding(whole, kTokens);  // in the whole stream
  ASSERT_GE(first, 0);
  for (int64_t shard : {0, 1}) {
    CampaignOptions part = whole;
    part.settings.shard = shard;
    part.settings.shards = 2;
    part.settings.out_dir += "_" + std::to_string(shard);
    fs::remove_all(part.settings.out_dir);
    StandInBackend backend(true, kTokens);
    CampaignResult r;
    std::string err;
    std::ostringstream progress;
    ASSERT_TRUE(RunCampaign(part, backend, progress, &r, &err)) << err;
    ASSERT_TRUE(r.Found());
    EXPECT_EQ(shard, r.findings.at(0).finding_index % 2);
    if (shard == first % 2) {
      EXPECT_EQ(first, r.findings.at(0).finding_index);
    } else {
      EXPECT_GT(r.findings.at(0).finding_index, first);
    }
    EXPECT_EQ(r.findings.at(0).finding_index / 2 + 1, r.scenarios) << "this shard's scenarios up to its finding";
    int64_t tokens = 0;
    for (int64_t k = 0; k < r.scenarios; ++k) {
      const Scenario s = CampaignScenario(part, StreamIndex(part, k), nullptr);
      tokens += s.batch.num_tokens * static_cast<int64_t>(s.groups.size());
    }
    EXPECT_EQ(tokens, r.tokens) << "the token-groups of those scenarios, not of the rest of their chunk";
  }
}

TEST(BatchedCampaignTest, StopsAtTheFirstFindingInALaterChunk) {
  // The stand-in bug fires on scenarios of >= 1000 tokens (long requests,
  // large batches: a few in a thousand), in the third chunk for this seed:
  // find the first such scenario independently of any campaign. (At 5000
  // tokens the shape lists' draws put it past 5000 scenarios, and the two
  // campaigns took minutes.)
  const int64_t kTokens = 1000;
  CampaignOptions o = Options("later");
  o.settings.runs = 20000;
  const int64_t expected = FirstStandInFinding(o, kTokens);
  ASSERT_GT(expected, 2 * o.batch_chunk) << "the seed must put the finding past the first chunks";
  std::string files[2];
  for (bool batches : {true, false}) {
    CampaignOptions run = o;
    run.settings.out_dir += batches ? "_batched" : "_single";
    fs::remove_all(run.settings.out_dir);
    StandInBackend backend(batches, kTokens);
    CampaignResult r;
    std::string err;
    std::ostringstream progress;
    ASSERT_TRUE(RunCampaign(run, backend, progress, &r, &err)) << err;
    ASSERT_TRUE(r.Found());
    EXPECT_EQ(expected, r.findings.at(0).finding_index);
    EXPECT_EQ(expected + 1, r.scenarios) << "every scenario before the finding, and the finding";
    EXPECT_FALSE(r.findings.at(0).invariant.empty());
    Scenario reproducer;
    ASSERT_TRUE(LoadScenarioFile(r.findings.at(0).file, LoadLimits(), &reproducer, &err)) << err;
    EXPECT_GE(reproducer.batch.num_tokens, kTokens);
    files[batches] = WriteScenarioJson(reproducer);
  }
  EXPECT_EQ(files[0], files[1]);
}

}  // namespace
}  // namespace slotguard
