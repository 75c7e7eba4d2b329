// Bounded proofs end to end (prove/prove_run.h): the reduction loses no
// finding of the full space, the count before reduction is the full
// space's size, shards split a scope exactly, every historical variant of
// every built-in family is found at `small`, and a run cut short says which
// batches it checked.
#include <algorithm>
#include <filesystem>
#include <regex>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "backend/backend.h"
#include "cli/commands.h"
#include "prove/prove_run.h"
#include "prove/scope_file.h"
#include "registry/families.h"
#include "report/prove_report.h"
#include "scenario/scenario_json.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

/// A scope small enough that its full space (every request order, every
/// naming of the real blocks) is enumerated in seconds, with every
/// batch-level dimension the reduction has to respect: request order
/// against num_actual_tokens and a permuted persistent table, real blocks
/// reused by a stale row, ids past int32, dummies on each kind of null row.
Scope ReductionScope(bool with_examples, bool two_requests = true) {
  Scope s;
  std::string err;
  const std::string text = std::string(R"({"slotguard_scope": 1, "name": "reduction", "requests": )") +
                           (two_requests ? "[0, 1, 2]" : "[0, 1]") + R"(,
      "tokens": [0, 1, 2], "padding": [0, 1], "boundary_offsets": [-1, 0], "widths": [0, 1, 2],
      "num_actual": ["real_tokens", "num_tokens", "before_last"], "slot_mapping_in": ["pad", "recognisable"],
      "null_entries": ["zero", "minus_one", "hybrid"], "tables": ["per_request", "persistent_permuted"],
      "stale_rows": ["reused"], "block_ids": ["small", "past_int32"], "links": ["present", "absent"],
      "params": )" + (with_examples ? R"(["min", "example"]})" : R"(["min"]})");
  EXPECT_TRUE(ParseScope(text, "reduction.json", &s, &err)) << err;
  return s;
}

struct Proof {
  CampaignResult result;
  ScopeClaim claim;
  std::set<std::string> signatures;
};

Proof Prove(const Scope& scope, Family family, const std::string& variant, bool reduce, Backend& backend,
            int64_t shard = 0, int64_t shards = 1, double seconds = 0) {
  ProveRunOptions o;
  o.scope = scope;
  o.enumeration.families = {family};
  o.enumeration.reduce = reduce;
  o.campaign.settings.variant = variant;
  o.campaign.settings.shard = shard;
  o.campaign.settings.shards = shards;
  o.campaign.settings.seconds = seconds;
  o.campaign.settings.out_dir = FreshScratchPath("prove");
  Proof p;
  std::ostringstream progress;
  std::string err;
  bool bad_input = false;
  EXPECT_TRUE(ProveScope(o, backend, progress, &p.result, &p.claim, &err, &bad_input)) << err;
  for (const CampaignFinding& f : p.result.findings) p.signatures.insert(f.signature.Id());
  return p;
}

/// The full space of a family at the reduction scope: with the examples
/// when it stays small, else at the minima alone.
Scope ScopeFor(Family family, bool two_requests = true) {
  Enumeration full;
  EnumerationOptions o;
  o.families = {family};
  o.reduce = false;
  std::string err;
  const Scope with = ReductionScope(true, two_requests);
  if (full.Build(with, o, &err) && full.Count() <= 200000) return with;
  return ReductionScope(false, two_requests);
}

// The reduction (requests as a multiset where their order cannot matter,
// real blocks named by first appearance) checks each class of batches once.
// A reduction that merged two batches a kernel tells apart would lose the
// finding of one of them: the reduced run must find every signature the
// full enumeration finds, for every historical variant of every family.
TEST(ProveTest, TheReducedRunFindsEverySignatureTheFullSpaceFinds) {
  std::unique_ptr<Backend> host = MakeHostBackend();
  int variants = 0;
  for (Variant v : NonFixedVariants()) {
    const VariantInfo& info = GetVariant(v);
    if (!GetFamily(info.family).builtin) continue;
    Scope scope = ScopeFor(info.family);
    Proof full = Prove(scope, info.family, info.name, false, *host);
    if (full.signatures.empty()) {
      // A variant that differs only at its parameters' examples, where two
      // requests make the space too large (eagle_step_chain's engine
      // variant: its chain wraps at max_model_len): one request, examples.
      scope = ScopeFor(info.family, /*two_requests=*/false);
      full = Prove(scope, info.family, info.name, false, *host);
    }
    const Proof reduced = Prove(scope, info.family, info.name, true, *host);
    const std::string what = std::string(GetFamily(info.family).name) + "/" + info.name;
    EXPECT_LT(reduced.claim.batches, full.claim.batches) << what << ": the reduction reduced nothing";
    if (full.signatures.empty()) {
      ADD_FAILURE() << what << ": the full space finds nothing, so this scope shows nothing of the reduction";
      continue;
    }
    for (const std::string& sig : full.signatures)
      EXPECT_EQ(1u, reduced.signatures.count(sig)) << what << ": signature " << sig
                                                    << " of the full space is not found by the reduced run";
    ++variants;
  }
  EXPECT_GE(variants, 13);
}

// The dimensions the shape lists added (issue 28's missing ones: blocks
// allocated ahead, num_actual_tokens strictly inside the padding,
// persistent tables of exactly R rows or read rotated, stale rows mixing
// two requests' blocks): the reduction loses no finding of their full
// space either, and its count before reduction is the full space's size.
TEST(ProveTest, TheReductionHoldsOnTheShapeListsDimensions) {
  Scope scope;
  std::string err;
  ASSERT_TRUE(ParseScope(R"({"slotguard_scope": 1, "name": "shapes", "requests": [0, 1, 2], "tokens": [0, 1],
      "padding": [0, 2], "boundary_offsets": [0], "widths": [1], "num_actual": ["real_tokens", "inside"],
      "tables": ["persistent_exact", "persistent_rotated"], "stale_rows": ["mixed"], "ahead": [1],
      "params": ["min"]})",
                         "shapes.json", &scope, &err))
      << err;
  std::unique_ptr<Backend> host = MakeHostBackend();
  int variants = 0;
  for (Variant v : NonFixedVariants()) {
    const VariantInfo& info = GetVariant(v);
    if (!GetFamily(info.family).builtin) continue;
    Enumeration full, reduced;
    EnumerationOptions o;
    o.families = {info.family};
    o.reduce = false;
    if (!full.Build(scope, o, &err) || full.Count() > 100000) continue;
    o.reduce = true;
    ASSERT_TRUE(reduced.Build(scope, o, &err)) << err;
    const std::string what = std::string(GetFamily(info.family).name) + "/" + info.name;
    EXPECT_EQ(static_cast<long double>(full.Count()), reduced.CountBeforeReduction()) << what;
    const Proof full_run = Prove(scope, info.family, info.name, false, *host);
    const Proof reduced_run = Prove(scope, info.family, info.name, true, *host);
    for (const std::string& sig : full_run.signatures)
      EXPECT_EQ(1u, reduced_run.signatures.count(sig)) << what << ": signature " << sig
                                                        << " of the full space is not found by the reduced run";
    ++variants;
  }
  EXPECT_GE(variants, 5);
}

// The size before reduction the claim states is counted (a DP over request
// sequences and labelings), not enumerated: it must be the full space's.
TEST(ProveTest, TheCountBeforeReductionIsTheFullSpacesSize) {
  for (const FamilyInfo& info : AllFamilies()) {
    if (!info.builtin) continue;
    const Scope scope = ScopeFor(info.family);
    for (bool inconsistent : {false, true}) {
      EnumerationOptions o;
      o.families = {info.family};
      o.inconsistent = inconsistent;
      Enumeration reduced, full;
      std::string err;
      ASSERT_TRUE(reduced.Build(scope, o, &err)) << info.name << ": " << err;
      o.reduce = false;
      if (!full.Build(scope, o, &err)) continue;  // past kMaxFullSpace (inconsistent)
      EXPECT_EQ(static_cast<long double>(full.Count()), reduced.CountBeforeReduction())
          << info.name << (inconsistent ? " --inconsistent" : "");
      EXPECT_LE(reduced.Count(), full.Count()) << info.name;
    }
  }
}

/// The host backend, recording every batch it is given.
class RecordingBackend : public Backend {
 public:
  RecordingBackend() : host_(MakeHostBackend()) {}
  const char* name() const override { return "host"; }
  bool Run(const Scenario& scenario, std::vector<GroupOutputs>* outputs, std::string* err) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++seen_[WriteScenarioJson(scenario)];
    }
    return host_->Run(scenario, outputs, err);
  }
  bool RunReplays(const GraphSequence& replays, std::vector<std::vector<GroupOutputs>>* outputs,
                  std::string* err) override {
    return host_->RunReplays(replays, outputs, err);
  }
  std::map<std::string, int> seen_;

 private:
  std::unique_ptr<Backend> host_;
  std::mutex mutex_;
};

// --shard I/N: the shards' batches, together, are the whole scope's, each
// once (the union of the shards is the whole, and they are disjoint).
TEST(ProveTest, ShardsSplitTheScopeExactly) {
  Family family;
  std::string err;
  ASSERT_TRUE(FindFamily("qsa_compressed", &family, &err)) << err;
  const Scope scope = ReductionScope(false);
  RecordingBackend whole;
  const Proof all = Prove(scope, family, "", true, whole);
  ASSERT_TRUE(all.claim.complete());
  int64_t batches = 0;
  for (const auto& [text, n] : whole.seen_) batches += n;
  ASSERT_EQ(all.claim.batches, batches);
  for (int64_t shards : {2, 3, 7}) {
    std::map<std::string, int> together;
    int64_t covered = 0;
    for (int64_t shard = 0; shard < shards; ++shard) {
      RecordingBackend one;
      const Proof part = Prove(scope, family, "", true, one, shard, shards);
      EXPECT_TRUE(part.claim.complete());
      EXPECT_EQ(all.claim.batches, part.claim.batches);  // each shard states the whole scope
      covered += part.claim.covered;
      for (const auto& [text, n] : one.seen_) together[text] += n;
    }
    EXPECT_EQ(all.claim.batches, covered) << shards << " shards";
    EXPECT_TRUE(together == whole.seen_) << shards << " shards: not the whole scope's batches, each once";
  }
}

// The shares ShardShare gives, configuration by configuration, are the
// indices i with i % N == I, counted by hand.
TEST(ProveTest, ShardSharesCountTheIndicesOfTheShard) {
  for (int64_t shards : {1, 2, 5})
    for (int64_t shard = 0; shard < shards; ++shard)
      for (int64_t first : {0, 1, 3, 7})
        for (int64_t end = first; end < first + 12; ++end) {
          int64_t n = 0;
          for (int64_t i = first; i < end; ++i) n += i % shards == shard;
          EXPECT_EQ(n, ShardShare(first, end, shard, shards)) << first << ".." << end << " " << shard << "/" << shards;
        }
}

// The PR gate's claim: every historical variant of every built-in family
// (the kernels' and the described engines') is found at `small`.
TEST(ProveTest, EveryHistoricalVariantIsFoundAtSmall) {
  Scope small;
  std::string err;
  ASSERT_TRUE(LoadScope("small", &small, &err)) << err;
  std::unique_ptr<Backend> host = MakeHostBackend();
  int variants = 0;
  for (Variant v : NonFixedVariants()) {
    const VariantInfo& info = GetVariant(v);
    if (!GetFamily(info.family).builtin) continue;
    const Proof p = Prove(small, info.family, info.name, true, *host);
    EXPECT_FALSE(p.signatures.empty()) << GetFamily(info.family).name << "/" << info.name
                                       << " is not found at small (" << p.claim.batches << " batches)";
    EXPECT_TRUE(p.claim.complete());
    ++variants;
  }
  EXPECT_GE(variants, 13);
}

// A fixed family holds at small: no finding at all.
TEST(ProveTest, EveryFixedFamilyHoldsAtSmall) {
  Scope small;
  std::string err;
  ASSERT_TRUE(LoadScope("small", &small, &err)) << err;
  std::unique_ptr<Backend> host = MakeHostBackend();
  for (const FamilyInfo& info : AllFamilies()) {
    if (!info.builtin) continue;
    const Proof p = Prove(small, info.family, "", true, *host);
    EXPECT_TRUE(p.signatures.empty()) << info.name << ": " << *p.signatures.begin();
    EXPECT_EQ(p.claim.batches, p.result.scenarios) << info.name;
  }
}

// --time: a run stopped before its end covers exactly its first batches,
// and the claim names the first one it did not check.
TEST(ProveTest, ARunCutShortSaysWhichBatchesItChecked) {
  Family family;
  std::string err;
  ASSERT_TRUE(FindFamily("paged", &family, &err)) << err;
  Scope small;
  ASSERT_TRUE(LoadScope("small", &small, &err)) << err;
  std::unique_ptr<Backend> host = MakeHostBackend();
  const Proof p = Prove(small, family, "", true, *host, 1, 2, 1e-9);
  EXPECT_FALSE(p.claim.complete());
  EXPECT_LT(p.claim.covered, p.claim.shard_batches);
  EXPECT_EQ(1 + 2 * p.claim.covered, p.claim.FirstUncovered());
  int64_t covered = 0, batches = 0;
  for (const ConfigCoverage& k : p.claim.coverage) {
    covered += k.covered;
    batches += k.batches;
  }
  EXPECT_EQ(p.claim.covered, covered);
  EXPECT_EQ(p.claim.shard_batches, batches);
  const std::string text = CoverageText(p.claim);
  EXPECT_NE(std::string::npos, text.find(std::to_string(p.claim.FirstUncovered()))) << text;
}


// The command: a scope file's mistake is one line (the file, the JSON
// pointer, what was expected, a did-you-mean), exit 2, before anything runs.
TEST(ProveCommandTest, ABadScopeFileIsOneLineAndExit2) {
  const std::string path = ScratchPath("bad-scope.json");
  std::ofstream(path) << R"({"slotguard_scope": 1, "name": "bad", "requests": [1], "tokens": [1], "widhts": [2]})";
  ProveOptions o;
  o.scope = path;
  o.backend = BackendKind::kHost;
  o.settings.out_dir = FreshScratchPath("bad-out");
  std::ostringstream out, err;
  EXPECT_EQ(kExitBadInput, RunProve(o, out, err));
  const std::string line = err.str();
  EXPECT_EQ(1, std::count(line.begin(), line.end(), '\n')) << line;
  EXPECT_NE(std::string::npos, line.find(path + ":/widhts: unknown key 'widhts', did you mean 'widths'?; expected one of"))
      << line;
  EXPECT_EQ("", out.str());
  o.scope = "meduim";
  err.str("");
  EXPECT_EQ(kExitBadInput, RunProve(o, out, err));
  EXPECT_NE(std::string::npos, err.str().find("unknown scope 'meduim', did you mean 'medium'?")) << err.str();
}

// The reports state the scope as a claim: the summary line, the JSON
// report's "scope" and the SARIF run's properties; a finding is reported
// as fuzz reports it (a signature, a reproducer that replays).
TEST(ProveCommandTest, TheReportsStateTheScopeAsAClaim) {
  ProveOptions o;
  o.scope = "small";
  o.families = {"kpool_tail"};
  o.settings.variant = "prefix";
  o.backend = BackendKind::kHost;
  o.settings.out_dir = FreshScratchPath("claim-out");
  o.json_path = ScratchPath("claim.json");
  o.sarif_path = ScratchPath("claim.sarif");
  std::ostringstream out, err;
  ASSERT_EQ(kExitFindings, RunProve(o, out, err)) << out.str() << err.str();
  const std::string text = out.str();
  const size_t summary = text.rfind("slotguard: prove: ");
  ASSERT_NE(std::string::npos, summary) << text;
  EXPECT_NE(std::string::npos, text.find("of scope small", summary)) << text;
  EXPECT_NE(std::string::npos, text.find("replay one with: slotguard replay", summary)) << text;
  nlohmann::json report = nlohmann::json::parse(std::ifstream(o.json_path));
  const nlohmann::json& scope = report["scope"];
  EXPECT_TRUE(std::regex_match(report.value("finished", ""),
                               std::regex("20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]Z")))
      << report.value("finished", "(none)");
  EXPECT_EQ("small", scope["name"]);
  EXPECT_EQ(nlohmann::json::array({"kpool_tail"}), scope["families"]);
  EXPECT_EQ("slotguard", scope["implementation"]);
  EXPECT_GT(scope["batches_after_reduction"].get<int64_t>(), 0);
  EXPECT_TRUE(scope["batches_before_reduction"].is_number());
  EXPECT_GE(scope["batches_before_reduction"].get<double>(), scope["batches_after_reduction"].get<double>());
  EXPECT_EQ(true, scope["complete"]);
  EXPECT_FALSE(scope["what"].get<std::string>().empty());
  ASSERT_FALSE(report["findings"].empty());
  EXPECT_TRUE(std::filesystem::exists(report["findings"][0]["file"].get<std::string>()));
  nlohmann::json sarif = nlohmann::json::parse(std::ifstream(o.sarif_path));
  EXPECT_EQ(scope, sarif["runs"][0]["properties"]["scope"]);
  EXPECT_FALSE(sarif["runs"][0]["results"].empty());
}


// The count before reduction in JSON: exact while it is, a number while a
// double holds it, then the count in words, never an infinity (null).
TEST(ProveCommandTest, TheCountBeforeReductionSurvivesJson) {
  ScopeClaim c;
  c.before = 15292;
  EXPECT_EQ(15292, ClaimJson(c)["batches_before_reduction"].get<int64_t>());
  c.before = 1e300L;
  EXPECT_DOUBLE_EQ(1e300, ClaimJson(c)["batches_before_reduction"].get<double>());
  c.before = 3.09e509L;
  EXPECT_EQ("3.09e+509", ClaimJson(c)["batches_before_reduction"].get<std::string>());
  c.before = -1;
  EXPECT_TRUE(ClaimJson(c)["batches_before_reduction"].is_null());
}

}  // namespace
}  // namespace slotguard
