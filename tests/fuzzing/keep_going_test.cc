// fuzz --keep-going: every distinct finding of the budget, one smallest
// reproducer and a count per signature, the same whatever the jobs; with
// suppressions: known classes counted, not failures, never shrunk into.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backend/backend.h"
#include "cli/commands.h"
#include "fuzzing/campaign.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

namespace fs = std::filesystem;

/// Two planted bugs: "prefix" on kpool_tail and on qsa_ring, each writing
/// the null block for a request whose entry is 0.
CampaignOptions TwoBugs(const std::string& name) {
  CampaignOptions o;
  o.generator.families = {Family::kKpoolTail, Family::kQsaRing};
  o.settings.variant = "prefix";
  o.settings.seed = 7;
  o.settings.runs = 3000;
  o.settings.seconds = 0;
  o.settings.keep_going = true;
  o.settings.out_dir = FreshScratchPath(name);
  return o;
}

CampaignResult RunHost(const CampaignOptions& o) {
  std::unique_ptr<Backend> host = MakeHostBackend();
  CampaignResult result;
  std::string err;
  std::ostringstream progress;
  EXPECT_TRUE(RunCampaign(o, *host, progress, &result, &err)) << err;
  return result;
}

std::set<std::string> FamiliesOf(const CampaignResult& r, bool suppressed) {
  std::set<std::string> families;
  for (const CampaignFinding& f : r.findings)
    if ((f.suppressed_by >= 0) == suppressed)
      for (const std::string& family : f.signature.families) families.insert(family);
  return families;
}

TEST(KeepGoingTest, FindsBothBugsWithOneReproducerEach) {
  const CampaignOptions o = TwoBugs("both");
  const CampaignResult r = RunHost(o);
  EXPECT_EQ(3000, r.scenarios) << "the whole budget";
  ASSERT_TRUE(r.Found());
  // The single-family findings shrink to one signature per bug.
  std::set<std::string> single;
  for (const CampaignFinding& f : r.findings) {
    ASSERT_EQ(1u, f.signature.families.size()) << f.signature.Text();
    EXPECT_TRUE(single.insert(f.signature.families[0]).second) << "one signature per family: " << f.signature.Text();
    EXPECT_TRUE(f.signature.blames_kernel);
    EXPECT_EQ(std::vector<std::string>{"prefix"}, f.signature.variants);
    EXPECT_GE(f.count, f.shrunk);
    EXPECT_GE(f.shrunk, 1);
    // Each reproducer is a file that `check` gives the same signature.
    Scenario s;
    std::string err;
    ASSERT_TRUE(LoadScenarioFile(f.file, LoadLimits(), &s, &err)) << err;
    std::unique_ptr<Backend> host = MakeHostBackend();
    const ScenarioReport report = CheckScenario(s, f.file, *host, 8);
    EXPECT_FALSE(report.holds);
    EXPECT_EQ(f.signature.Id(), report.signature.Id()) << f.signature.Text() << " vs " << report.signature.Text();
  }
  EXPECT_EQ((std::set<std::string>{"kpool_tail", "qsa_ring"}), single);
  int64_t counted = r.unattributed;
  for (const CampaignFinding& f : r.findings) counted += f.count;
  EXPECT_EQ(r.finding_scenarios, counted) << "every finding is in one signature's count or unattributed";
  // Without --keep-going the campaign stops at its first finding.
  CampaignOptions first = o;
  first.settings.keep_going = false;
  first.settings.out_dir = FreshScratchPath("first");
  const CampaignResult one = RunHost(first);
  ASSERT_EQ(1u, one.findings.size());
  EXPECT_LT(one.scenarios, 3000);
  EXPECT_EQ(1, one.findings[0].count);
}

// One signature per bug, whatever shape shrinking leaves a reproducer in:
// two planted bugs (prefix on qsa_ring and on compressor_ring, whose
// reproducers shrink to different sizes from different starts) give exactly
// two signatures, one per family, on every seed. Without this, a signature
// that named the minimized shape gave one per local minimum (four for the
// compressor ring's one bug).
TEST(KeepGoingTest, TwoBugsGiveExactlyTwoSignaturesOnEverySeed) {
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    CampaignOptions o = TwoBugs("two_" + std::to_string(seed));
    o.generator.families = {Family::kQsaRing, Family::kCompressorRing};
    o.settings.seed = seed;
    o.settings.runs = 2000;
    const CampaignResult r = RunHost(o);
    std::set<std::string> ids, families, shapes;
    for (const CampaignFinding& f : r.findings) {
      ids.insert(f.signature.Id());
      for (const std::string& family : f.signature.families) families.insert(family);
      shapes.insert(f.signature.shape);
    }
    EXPECT_EQ(2u, ids.size()) << "seed " << seed;
    EXPECT_EQ(2u, r.findings.size()) << "seed " << seed;
    EXPECT_EQ((std::set<std::string>{"compressor_ring", "qsa_ring"}), families) << "seed " << seed;
    int64_t counted = r.unattributed;  // a scenario where both bugs fire shrinks to either
    for (const CampaignFinding& f : r.findings) counted += f.count;
    EXPECT_EQ(r.finding_scenarios, counted) << "seed " << seed;
  }
}

TEST(KeepGoingTest, TheSameFindingsWhateverTheJobs) {
  std::vector<std::string> seen[2];
  for (int jobs : {1, 3}) {
    CampaignOptions o = TwoBugs("jobs" + std::to_string(jobs));
    o.settings.jobs = jobs;
    const CampaignResult r = RunHost(o);
    for (const CampaignFinding& f : r.findings)
      seen[jobs == 3].push_back(f.signature.Id() + " " + std::to_string(f.finding_index) + " " +
                                std::to_string(f.count) + " " + WriteScenarioJson(f.minimized));
  }
  EXPECT_FALSE(seen[0].empty());
  EXPECT_EQ(seen[0], seen[1]);
}

std::string SuppressionsFile(const std::string& name, const std::string& entries) {
  const std::string path = ScratchPath(name);
  std::ofstream(path) << R"({"slotguard_suppressions": 1, "suppressions": [)" << entries << "]}";
  return path;
}

TEST(KeepGoingTest, ASuppressedBugIsCountedAndTheOtherStillFails) {
  CampaignOptions o = TwoBugs("suppressed");
  Suppressions s;
  std::string err;
  ASSERT_TRUE(LoadSuppressions(SuppressionsFile("kpool.json", R"(
      {"id": "kpool-prefix", "reason": "known", "families": ["kpool_tail"]},
      {"id": "stale", "reason": "fixed long ago", "families": ["paged"]})"),
                               &s, &err))
      << err;
  o.suppressions = &s;
  const CampaignResult r = RunHost(o);
  ASSERT_TRUE(r.Found());
  EXPECT_EQ(std::set<std::string>{"qsa_ring"}, FamiliesOf(r, false));
  ASSERT_EQ(2u, r.suppression_matches.size());
  EXPECT_GT(r.suppression_matches[0], 0);
  EXPECT_EQ(r.suppressed_scenarios, r.suppression_matches[0]) << "all before shrinking: a family entry";
  EXPECT_EQ(0, r.suppression_matches[1]) << "stale";
}

TEST(KeepGoingTest, ASignatureEntrySuppressesThatSignatureOnly) {
  const CampaignResult plain = RunHost(TwoBugs("sig_plain"));
  std::string kpool;
  for (const CampaignFinding& f : plain.findings)
    if (f.signature.families == std::vector<std::string>{"kpool_tail"}) kpool = f.signature.Id();
  ASSERT_FALSE(kpool.empty());
  CampaignOptions o = TwoBugs("sig");
  Suppressions s;
  std::string err;
  ASSERT_TRUE(LoadSuppressions(SuppressionsFile("sig.json", R"({"id": "k", "reason": "known", "signature": ")" +
                                                                 kpool + "\"}"),
                               &s, &err))
      << err;
  o.suppressions = &s;
  const CampaignResult r = RunHost(o);
  EXPECT_EQ(std::set<std::string>{"qsa_ring"}, FamiliesOf(r, false));
  EXPECT_EQ(std::set<std::string>{"kpool_tail"}, FamiliesOf(r, true));
  for (const CampaignFinding& f : r.findings)
    if (f.suppressed_by >= 0) {
      EXPECT_TRUE(f.file.empty()) << "no reproducer for a known difference";
      EXPECT_EQ(f.count, r.suppression_matches[0]);
    }
}

// Without --keep-going, a campaign whose first finding's signature is
// suppressed goes on past it (that key then known) to the other bug; with
// both signatures suppressed it spends its whole budget and passes.
TEST(KeepGoingTest, WithoutKeepGoingASuppressedSignatureIsLookedPast) {
  const CampaignResult plain = RunHost(TwoBugs("resume_plain"));
  std::map<std::string, std::string> id_of;  // family -> signature id
  for (const CampaignFinding& f : plain.findings) id_of[f.signature.families.at(0)] = f.signature.Id();
  ASSERT_EQ(2u, id_of.size());
  CampaignOptions first = TwoBugs("resume_first");
  first.settings.keep_going = false;
  const CampaignResult unsuppressed = RunHost(first);
  ASSERT_EQ(1u, unsuppressed.findings.size());
  const std::string first_family = unsuppressed.findings[0].signature.families.at(0);
  const std::string other_family = first_family == "kpool_tail" ? "qsa_ring" : "kpool_tail";
  Suppressions s;
  std::string err;
  ASSERT_TRUE(LoadSuppressions(SuppressionsFile("resume.json", R"({"id": "first", "reason": "known", "signature": ")" +
                                                                    id_of[first_family] + "\"}"),
                               &s, &err))
      << err;
  CampaignOptions o = TwoBugs("resume");
  o.settings.keep_going = false;
  o.suppressions = &s;
  const CampaignResult r = RunHost(o);
  ASSERT_TRUE(r.Found());
  EXPECT_EQ(other_family, r.FirstFound()->signature.families.at(0));
  EXPECT_LT(r.scenarios, 3000) << "it stopped at the other bug";
  ASSERT_TRUE(LoadSuppressions(SuppressionsFile("resume_both.json", R"({"id": "a", "reason": "known", "signature": ")" +
                                                                         id_of["kpool_tail"] +
                                                                         R"("}, {"id": "b", "reason": "known", "signature": ")" +
                                                                         id_of["qsa_ring"] + "\"}"),
                               &s, &err))
      << err;
  const CampaignResult both = RunHost(o);
  EXPECT_FALSE(both.Found());
  EXPECT_EQ(3000, both.scenarios) << "the whole budget";
  EXPECT_GT(both.suppression_matches[0], 0);
  EXPECT_GT(both.suppression_matches[1], 0);
}

// Several keys (sets of invariants) of one bug shrink to the same
// signature. Without --keep-going, each key is shrunk once: a later key whose
// finding joins a suppressed signature an earlier key gave is known from
// then on too, not shrunk again at each of its findings. Every finding is
// counted, against its signature and the entry that covers it, as with
// --keep-going, and the tallies are of exactly the scenarios checked,
// whatever the jobs.
TEST(KeepGoingTest, WithoutKeepGoingEachKeyIsShrunkOnceAndTalliesAreExact) {
  CampaignOptions o;
  o.generator.families = {Family::kPaged};
  o.settings.variant = "unguarded";
  o.settings.seed = 1;
  o.settings.runs = 2000;
  o.settings.seconds = 0;
  o.settings.keep_going = true;
  o.settings.out_dir = FreshScratchPath("keys_plain");
  const CampaignResult plain = RunHost(o);
  ASSERT_TRUE(plain.Found());
  std::string entries;
  for (const CampaignFinding& f : plain.findings)
    entries += std::string(entries.empty() ? "" : ",") + R"({"id": "s)" + f.signature.Id() +
               R"(", "reason": "known", "signature": ")" + f.signature.Id() + "\"}";
  Suppressions s;
  std::string err;
  ASSERT_TRUE(LoadSuppressions(SuppressionsFile("keys.json", entries), &s, &err)) << err;
  o.suppressions = &s;
  o.settings.out_dir = FreshScratchPath("keys_known");
  const CampaignResult known = RunHost(o);
  ASSERT_FALSE(known.Found());
  int64_t keep_going_shrinks = 0;
  for (const CampaignFinding& f : known.findings) keep_going_shrinks += f.shrunk;
  o.settings.keep_going = false;
  for (int jobs : {1, 3}) {
    o.settings.jobs = jobs;
    o.settings.out_dir = FreshScratchPath("keys_once_" + std::to_string(jobs));
    const CampaignResult r = RunHost(o);
    EXPECT_FALSE(r.Found()) << "jobs " << jobs;
    EXPECT_EQ(2000, r.scenarios) << "the whole budget";
    int64_t shrinks = 0;
    for (const CampaignFinding& f : r.findings) shrinks += f.shrunk;
    EXPECT_LE(shrinks, keep_going_shrinks) << "a key once (keep-going shrinks up to 4 of each)";
    EXPECT_EQ(known.finding_scenarios, r.finding_scenarios);
    EXPECT_EQ(known.suppression_matches, r.suppression_matches) << "every finding against its entry";
    ASSERT_EQ(0, known.unattributed) << "the seed's keys each shrink to one signature";
    std::map<std::string, int64_t> counts, known_counts;
    for (const CampaignFinding& f : r.findings) counts[f.signature.Id()] = f.count;
    for (const CampaignFinding& f : known.findings) known_counts[f.signature.Id()] = f.count;
    EXPECT_EQ(known_counts, counts) << "each signature's count, as --keep-going counts it";
    EXPECT_EQ(known.tokens, r.tokens) << "jobs " << jobs;
    EXPECT_EQ(known.classes, r.classes) << "jobs " << jobs;
  }
}

// A campaign that stops at a finding tallies the scenarios up to it, not
// those its workers ran past it.
TEST(KeepGoingTest, AStoppedCampaignTalliesExactlyItsScenarios) {
  CampaignOptions o = TwoBugs("stopped");
  o.settings.keep_going = false;
  o.settings.jobs = 4;
  const CampaignResult r = RunHost(o);
  ASSERT_TRUE(r.Found());
  int64_t tokens = 0;
  Classification classes;
  for (int64_t i = 0; i < r.scenarios; ++i) {
    const Scenario s = CampaignScenario(o, StreamIndex(o, i), &classes);
    tokens += s.batch.num_tokens * static_cast<int64_t>(s.groups.size());
  }
  EXPECT_EQ(tokens, r.tokens);
  EXPECT_EQ(classes, r.classes);
}

TEST(KeepGoingTest, NeverShrinksIntoASuppressedClass) {
  // One- and zero-request batches are "known": the kpool_tail bug is still
  // found, and its reproducer keeps two requests rather than slip into the
  // class (which would hide it behind the suppression).
  CampaignOptions o = TwoBugs("slip");
  o.generator.families = {Family::kKpoolTail};
  Suppressions s;
  std::string err;
  ASSERT_TRUE(LoadSuppressions(SuppressionsFile("slip.json", R"(
      {"id": "small", "reason": "the launcher batches at least two requests", "num_reqs": {"max": 1}})"),
                               &s, &err))
      << err;
  o.suppressions = &s;
  const CampaignResult r = RunHost(o);
  ASSERT_TRUE(r.Found());
  for (const CampaignFinding& f : r.findings) {
    EXPECT_EQ(2, f.minimized.batch.num_reqs()) << f.signature.Text();
    EXPECT_LT(f.suppressed_by, 0);
  }
  EXPECT_GT(r.suppressed_scenarios, 0);
}

TEST(KeepGoingTest, TheCommandListsEveryFindingAndExitsZeroWhenAllAreSuppressed) {
  FuzzOptions o;
  o.backend = BackendKind::kHost;
  o.families = {"kpool_tail", "qsa_ring"};
  o.settings.variant = "prefix";
  o.settings.seed = 7;
  o.settings.runs = 3000;
  o.settings.keep_going = true;
  o.settings.out_dir = FreshScratchPath("cli");
  o.json_path = ScratchPath("keep_going.json");
  {
    std::ostringstream out, err;
    ASSERT_EQ(kExitFindings, RunFuzz(o, out, err)) << out.str() << err.str();
    EXPECT_NE(std::string::npos, out.str().find("fuzz: finding 1 of 2, signature ")) << out.str();
    EXPECT_NE(std::string::npos, out.str().find("fuzz: finding 2 of 2, signature ")) << out.str();
    EXPECT_NE(std::string::npos, out.str().find("slotguard: fuzz: 2 distinct findings in 3000 scenarios")) << out.str();
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(o.json_path));
    EXPECT_EQ(2, j["distinct_findings"]);
    EXPECT_EQ(2u, j["findings"].size());
    EXPECT_TRUE(j["found"]);
  }
  o.suppressions_path = SuppressionsFile("both.json", R"(
      {"id": "prefix", "reason": "both still ship the prefix kernel", "variants": ["prefix"]})");
  std::ostringstream out, err;
  ASSERT_EQ(kExitHolds, RunFuzz(o, out, err)) << out.str() << err.str();
  EXPECT_NE(std::string::npos, out.str().find("fuzz: suppressed ")) << out.str();
  EXPECT_NE(std::string::npos, out.str().find(" suppressed findings, backend host")) << out.str();
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(o.json_path));
  EXPECT_FALSE(j["found"]);
  EXPECT_EQ(0, j["distinct_findings"]);
  EXPECT_GT(j["suppressed_findings"].get<int64_t>(), 0);
  EXPECT_EQ(false, j["suppressions"][0]["stale"]);
}

}  // namespace
}  // namespace slotguard
