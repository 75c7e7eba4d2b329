// Suppressions (docs/suppressions.md): the file's errors, what an entry
// matches, and check and fuzz with one: suppressed findings counted and
// listed, not failures; stale entries reported; a campaign never shrinks a
// finding into a suppressed class.
#include "suppressions/suppressions.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "scenario/scenario_json.h"
#include "testing/json_schema.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

namespace fs = std::filesystem;

std::string Temp(const std::string& name) { return ScratchPath(name); }

std::string Write(const std::string& name, const std::string& text) {
  const std::string path = Temp(name);
  std::ofstream(path) << text;
  return path;
}

std::string LoadError(const std::string& text) {
  const std::string path = Write("supp.json", text);
  Suppressions s;
  std::string err;
  EXPECT_FALSE(LoadSuppressions(path, &s, &err));
  return err.substr(err.find(':') == std::string::npos ? 0 : path.size());
}

TEST(SuppressionsFileTest, ReadsEveryCondition) {
  const std::string path = Write("all.json", R"({"slotguard_suppressions": 1, "suppressions": [
      {"id": "a", "reason": "r", "families": ["kpool_tail"], "variants": ["prefix"], "invariants": ["null_block"],
       "blame": "kernel", "implementation": "vllm", "files": "scenarios/*.json", "num_reqs": 0,
       "num_tokens": {"min": 1, "max": 8}, "num_groups": {"max": 1}, "signature": "0123456789abcdef"}]})");
  Suppressions s;
  std::string err;
  ASSERT_TRUE(LoadSuppressions(path, &s, &err)) << err;
  ASSERT_EQ(1u, s.entries.size());
  const Suppression& e = s.entries[0];
  EXPECT_EQ("/suppressions/0", e.pointer);
  EXPECT_EQ(std::vector<std::string>{"kpool_tail"}, e.families);
  EXPECT_EQ("kernel", e.blame);
  EXPECT_TRUE(e.num_reqs.set);
  EXPECT_EQ(0, e.num_reqs.min);
  EXPECT_EQ(0, e.num_reqs.max);
  EXPECT_EQ(1, e.num_tokens.min);
  EXPECT_EQ(8, e.num_tokens.max);
  EXPECT_EQ(1, e.num_groups.max);
  EXPECT_EQ("0123456789abcdef", e.signature);
}

TEST(SuppressionsFileTest, EachErrorNamesThePointerAndWhatWasExpected) {
  const std::string head = R"({"slotguard_suppressions": 1, "suppressions": [)";
  EXPECT_EQ(":/suppressions/0/reason: missing required key; expected why this difference is accepted",
            LoadError(head + R"({"id": "a", "families": ["paged"]}]})"));
  EXPECT_EQ(":/suppressions/0/families/0: unknown family 'kpool_tial', did you mean 'kpool_tail'?; expected one of "
            "paged, kpool_tail, qsa_ring, qsa_compressed, compressor_ring, dflash, dsv4_compressed, eagle_step, "
            "eagle_step_chain, flashinfer_append, flashinfer_batch_indices, lmcache_vllm_adapter, sglang_mamba, sglang_out_cache_loc, trtllm_paged, "
            "vllm_encoder_only, vllm_extract_hidden_states, vllm_gather_block_tables, vllm_gdn, vllm_hisparse_compressed, vllm_lightning, vllm_mamba, vllm_mamba_copy, vllm_mamba_postcopy, "
            "vllm_offload_store, vllm_parallel_drafting, vllm_sliding_window",
            LoadError(head + R"({"id": "a", "reason": "r", "families": ["kpool_tial"]}]})"));
  EXPECT_NE(std::string::npos, LoadError(head + R"({"id": "a", "reason": "r"}]})")
                                   .find(":/suppressions/0: no condition: it would suppress every finding"));
  EXPECT_NE(std::string::npos,
            LoadError(head + R"({"id": "a", "reason": "r", "signature": "xyz"}]})").find(":/suppressions/0/signature: not a signature id"));
  EXPECT_NE(std::string::npos,
            LoadError(head + R"({"id": "a", "reason": "r", "blame": "k"}, {"id": "a", "reason": "r", "blame": "kernel"}]})")
                .find(":/suppressions/0/blame: unknown blame 'k'"));
  EXPECT_NE(std::string::npos,
            LoadError(head + R"({"id": "a", "reason": "r", "blame": "kernel"}, {"id": "a", "reason": "r", "blame": "batch"}]})")
                .find(":/suppressions/1/id: id given twice"));
  EXPECT_NE(std::string::npos,
            LoadError(head + R"({"id": "a", "reason": "r", "num_reqs": {"min": 3, "max": 1}}]})").find(":/suppressions/0/num_reqs: min is above max"));
  EXPECT_NE(std::string::npos,
            LoadError(head + R"({"id": "a", "reason": " ", "blame": "batch"}]})").find(":/suppressions/0/reason: empty reason"));
  // A reason of 1000 characters is one line, whatever their bytes; 1001 or
  // a bidirectional override is not.
  std::string e_acute;
  for (int i = 0; i < 1000; ++i) e_acute += "\xc3\xa9";
  {
    Suppressions s;
    std::string err;
    EXPECT_TRUE(LoadSuppressions(Write("long.json", head + R"({"id": "a", "reason": ")" + e_acute + R"(", "blame": "batch"}]})"),
                                 &s, &err))
        << err;
  }
  EXPECT_NE(std::string::npos, LoadError(head + R"({"id": "a", "reason": ")" + e_acute + R"(x", "blame": "batch"}]})")
                                   .find(":/suppressions/0/reason: not one printable line; expected at most 1000 characters"));
  EXPECT_NE(std::string::npos, LoadError(head + R"({"id": "a", "reason": "fine\u202eenif", "blame": "batch"}]})")
                                   .find(":/suppressions/0/reason: not one printable line"));
  EXPECT_NE(std::string::npos, LoadError(R"({"suppressions": []})").find("missing required key"));
  EXPECT_NE(std::string::npos, LoadError(R"({"slotguard_suppressions": 2, "suppressions": []})").find("/slotguard_suppressions"));
  EXPECT_NE(std::string::npos, LoadError("[").find("line 1"));
}

FindingSignature Sig(std::vector<std::string> families, std::vector<std::string> invariants, bool kernel) {
  FindingSignature s;
  s.implementation = "slotguard";
  s.families = std::move(families);
  s.variants = {"fixed"};
  s.invariants = std::move(invariants);
  s.blames_kernel = kernel;
  return s;
}

TEST(SuppressionMatchTest, EveryPartOfTheFindingMustBeCovered) {
  Suppressions s;
  Suppression e;
  e.id = "kpool";
  e.families = {"kpool_tail"};
  e.invariants = {"differential", "own_block"};
  e.num_reqs.set = true;
  e.num_reqs.min = e.num_reqs.max = 0;
  s.entries.push_back(e);
  Scenario empty;
  empty.batch.query_start_loc = {0};
  Scenario one;
  one.batch.query_start_loc = {0, 1};
  one.batch.num_tokens = 1;
  FindingSignature sig = Sig({"kpool_tail"}, {"differential"}, true);
  SuppressionSubject subject{&sig, &empty, ""};
  EXPECT_EQ(0, MatchSuppression(s, subject)) << "a subset of its invariants, its family, an empty batch";
  subject.scenario = &one;
  EXPECT_EQ(-1, MatchSuppression(s, subject)) << "one request is not num_reqs 0";
  subject.scenario = &empty;
  sig = Sig({"kpool_tail", "paged"}, {"differential"}, true);
  EXPECT_EQ(-1, MatchSuppression(s, subject)) << "a paged group with findings too";
  sig = Sig({"kpool_tail"}, {"differential", "null_block"}, true);
  EXPECT_EQ(-1, MatchSuppression(s, subject)) << "an invariant the entry does not name fired";
  // A signature entry matches only once the shape is known (after shrinking).
  Suppressions by_sig;
  Suppression e2;
  e2.id = "sig";
  sig = Sig({"kpool_tail"}, {"differential"}, true);
  sig.shape = "0 requests, 0 tokens, 1 groups";
  e2.signature = sig.Id();
  by_sig.entries.push_back(e2);
  EXPECT_EQ(0, MatchSuppression(by_sig, subject));
  FindingSignature key = sig.Key();
  subject.signature = &key;
  EXPECT_EQ(-1, MatchSuppression(by_sig, subject));
  // files: a glob over the scenario file; never in a campaign (no file).
  Suppressions by_file;
  Suppression e3;
  e3.id = "files";
  e3.files = "scenarios/known/*.json";
  by_file.entries.push_back(e3);
  subject.signature = &sig;
  subject.file = "scenarios/known/a.json";
  EXPECT_EQ(0, MatchSuppression(by_file, subject));
  subject.file = "./scenarios/other/../known/a.json";
  EXPECT_EQ(0, MatchSuppression(by_file, subject)) << "normalized";
  subject.file = (fs::current_path() / "scenarios/known/a.json").string();
  EXPECT_EQ(0, MatchSuppression(by_file, subject)) << "relative to the working directory";
  subject.file = "scenarios/other/a.json";
  EXPECT_EQ(-1, MatchSuppression(by_file, subject));
  subject.file = "";
  EXPECT_EQ(-1, MatchSuppression(by_file, subject));
}

// A kpool_tail request on the null block with a live token: the fixed
// kernel pads it (-1); "prefix" writes slot 0 * 4 + 0 = 0, in block 0.
constexpr char kNullRequest[] = R"({"slotguard": 1, "name": "null-request", "num_blocks": 8,
  "batch": {"query_start_loc": [0, 1, 2], "positions": [0, 0]},
  "groups": [{"name": "tail", "kernel": "kpool_tail", "kpool": 4, "block_table": [[3], [0]]}],
  "expect": {"verdict": "pass", "slot_mapping": {"tail": [12, -1]}}})";

TEST(CheckSuppressionsTest, ACoveredScenarioHoldsAsSuppressedAndAStaleEntryIsReported) {
  const std::string dir = Temp("check_supp");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir + "/null-request.json") << kNullRequest;
  const std::string supp = Write("check_supp.json", R"({"slotguard_suppressions": 1, "suppressions": [
      {"id": "kpool-prefix", "reason": "the engine still ships the prefix kernel", "families": ["kpool_tail"],
       "variants": ["prefix"]},
      {"id": "never", "reason": "a qsa_ring difference", "families": ["qsa_ring"]}]})");
  CheckOptions o;
  o.paths = {dir};
  o.backend = BackendKind::kHost;
  o.variant = "prefix";
  o.json_path = Temp("check_supp_report.json");
  o.junit_path = Temp("check_supp_report.xml");
  o.sarif_path = Temp("check_supp_report.sarif");
  {
    std::ostringstream out, err;
    EXPECT_EQ(kExitFindings, RunCheck(o, out, err)) << "without the file, prefix fails: " << out.str();
  }
  o.suppressions_path = supp;
  std::ostringstream out, err;
  ASSERT_EQ(kExitHolds, RunCheck(o, out, err)) << out.str() << err.str();
  const std::string text = out.str();
  EXPECT_NE(std::string::npos, text.find("supp  " + dir + "/null-request.json (null-request) [variant prefix]: "
                                         "suppressed by 'kpool-prefix' (the engine still ships the prefix kernel): "
                                         "unexpected findings"))
      << text;
  EXPECT_NE(std::string::npos, text.find("check: suppressed 1 scenario run by 'kpool-prefix'")) << text;
  EXPECT_NE(std::string::npos, text.find("check: stale suppression 'never' (" + supp +
                                         ":/suppressions/1): it matched nothing in this run"))
      << text;
  EXPECT_NE(std::string::npos, text.find("(0 hold, 0 fail, 1 suppressed)")) << text;
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(o.json_path));
  EXPECT_EQ("suppressed", j["scenarios"][0]["outcome"]);
  EXPECT_EQ("kpool-prefix", j["scenarios"][0]["suppressed_by"]);
  EXPECT_EQ(16u, j["scenarios"][0]["signature"].get<std::string>().size());
  EXPECT_EQ(1, j["summary"]["suppressed"]);
  EXPECT_TRUE(j["all_hold"]);
  EXPECT_EQ(true, j["suppressions"][1]["stale"]);
  std::ifstream junit(o.junit_path);
  const std::string xml((std::istreambuf_iterator<char>(junit)), std::istreambuf_iterator<char>());
  EXPECT_NE(std::string::npos, xml.find("failures=\"0\" errors=\"0\" skipped=\"1\"")) << xml;
  const nlohmann::json sarif = nlohmann::json::parse(std::ifstream(o.sarif_path));
  std::string errors;
  for (const std::string& e :
       Errors(ReadJson(SLOTGUARD_SOURCE_DIR "/tests/report/fixtures/sarif-2.1.0-required.schema.json"), sarif))
    errors += e + "\n";
  EXPECT_TRUE(errors.empty()) << errors;
  const nlohmann::json& results = sarif["runs"][0]["results"];
  ASSERT_FALSE(results.empty());
  for (const nlohmann::json& r : results) {
    EXPECT_EQ("note", r["level"]) << "GitHub reads no SARIF suppressions: a known difference is a note";
    ASSERT_TRUE(r.contains("suppressions")) << r.dump();
    EXPECT_EQ("external", r["suppressions"][0]["kind"]);
    EXPECT_NE(std::string::npos, r["suppressions"][0]["justification"].get<std::string>().find("kpool-prefix"));
  }
}

TEST(CheckSuppressionsTest, AMissingExpectedFindingIsNeverSuppressed) {
  const std::string dir = Temp("check_supp_missing");
  fs::remove_all(dir);
  fs::create_directories(dir);
  nlohmann::json s = nlohmann::json::parse(kNullRequest);
  s["expect"] = {{"verdict", "finding"}, {"findings", {"null_block"}}};  // the fixed kernel gives none
  std::ofstream(dir + "/s.json") << s.dump();
  CheckOptions o;
  o.paths = {dir};
  o.backend = BackendKind::kHost;
  o.suppressions_path = Write("supp_missing.json", R"({"slotguard_suppressions": 1, "suppressions": [
      {"id": "all-kpool", "reason": "r", "families": ["kpool_tail"]}]})");
  std::ostringstream out, err;
  EXPECT_EQ(kExitFindings, RunCheck(o, out, err)) << out.str();
}

TEST(CheckSuppressionsTest, ABadFileIsOneLineAndExitTwo) {
  CheckOptions o;
  o.backend = BackendKind::kHost;
  o.suppressions_path = Write("supp_bad.json", R"({"slotguard_suppressions": 1, "suppressions": [{"id": 3}]})");
  std::ostringstream out, err;
  EXPECT_EQ(kExitBadInput, RunCheck(o, out, err));
  EXPECT_EQ("slotguard: error: " + o.suppressions_path + ":/suppressions/0/id: wrong type; expected a name, got 3\n",
            err.str());
}

}  // namespace
}  // namespace slotguard
