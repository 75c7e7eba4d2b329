// A reproducer reproduces and stays green once fixed: it records the
// implementation it was found with (its replay command names it), and its
// advice fits the case: for the kernel checked, keep the file as it is (it
// holds once the kernel is fixed) or pin the reference's output; an
// expected finding only for a historical variant forced on purpose.
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backend/backend.h"
#include "fuzzing/campaign.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

/// The kernel being checked, with a bug: the host backend, but the first
/// token of a batch of at least 3 requests maps to slot 5 (keyed to the
/// scenario's content, as a real kernel's bug is).
class BuggyKernel : public Backend {
 public:
  const char* name() const override { return "host"; }
  bool Run(const Scenario& s, std::vector<GroupOutputs>* outputs, std::string* err) override {
    if (!host_->Run(s, outputs, err)) return false;
    if (s.batch.num_reqs() >= 3 && s.batch.num_tokens > 0 && !outputs->empty()) (*outputs)[0].engine[0][0] = 5;
    return true;
  }
  bool RunReplays(const GraphSequence&, std::vector<std::vector<GroupOutputs>>*, std::string* err) override {
    *err = "not used";
    return false;
  }

 private:
  std::unique_ptr<Backend> host_ = MakeHostBackend();
};

CampaignOptions Options(const std::string& name) {
  CampaignOptions o;
  o.generator.families = {Family::kPaged};
  o.settings.seed = 5;
  o.settings.runs = 500;
  o.settings.seconds = 0;
  o.settings.out_dir = FreshScratchPath(name);
  o.implementation = "provider stand-in";
  o.found_by.present = true;
  o.found_by.backend = "host";
  o.found_by.kernel_cmd = "python3 stand_in.py";
  return o;
}

bool Holds(const nlohmann::json& doc, Backend& backend) {
  Scenario s;
  std::string err;
  EXPECT_TRUE(ParseScenario(doc.dump(), "r.json", LoadLimits(), &s, &err)) << err;
  return CheckScenario(s, "r.json", backend, 8).holds;
}

TEST(ReproducerTest, TheKernelsOwnBugStaysGreenOnceFixedAndItsPinHolds) {
  const CampaignOptions o = Options("own");
  BuggyKernel buggy;
  CampaignResult r;
  std::string err;
  std::ostringstream progress;
  ASSERT_TRUE(RunCampaign(o, buggy, progress, &r, &err)) << err;
  ASSERT_TRUE(r.Found());
  const CampaignFinding& f = r.findings.at(0);
  // It records how it was found, and its replay command reproduces with it.
  EXPECT_EQ("slotguard replay --backend host --kernel-cmd 'python3 stand_in.py' " + f.file, f.replay_command);
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(f.file));
  EXPECT_EQ(nlohmann::json::parse(R"({"backend": "host", "kernel_cmd": "python3 stand_in.py"})"), doc["found_by"]);
  EXPECT_FALSE(doc.contains("expect"));
  // The advice: keep it as it is, never an expected finding.
  const std::string description = doc["description"];
  EXPECT_NE(std::string::npos, description.find("keep this file as it is")) << description;
  EXPECT_EQ(std::string::npos, description.find("Add \"expect\": {\"verdict\": \"finding\"")) << description;
  // As it is: it fails on the buggy kernel and holds on the fixed one.
  std::unique_ptr<Backend> fixed = MakeHostBackend();
  EXPECT_FALSE(Holds(doc, buggy));
  EXPECT_TRUE(Holds(doc, *fixed)) << "a fixed kernel's reproducer stays green";
  // With the pin the description gives: the same.
  std::smatch pin;
  ASSERT_TRUE(std::regex_search(description, pin, std::regex("\"expect\": (\\{\"slot_mapping\": .*\\})\\.")))
      << description;
  doc["expect"] = nlohmann::json::parse(pin[1].str());
  EXPECT_FALSE(Holds(doc, buggy));
  EXPECT_TRUE(Holds(doc, *fixed));
  // The advice that fits a forced variant would turn the fixed kernel's gate red.
  doc["expect"] = {{"verdict", "finding"}};
  EXPECT_FALSE(Holds(doc, *fixed));
}

TEST(ReproducerTest, AForcedVariantIsKeptAsAnExpectedFinding) {
  CampaignOptions o = Options("variant");
  o.generator.families = {Family::kKpoolTail};
  o.settings.variant = "prefix";
  o.implementation = "slotguard";
  o.found_by = FoundBy();
  o.found_by.present = true;
  o.found_by.backend = "host";
  std::unique_ptr<Backend> host = MakeHostBackend();
  CampaignResult r;
  std::string err;
  std::ostringstream progress;
  ASSERT_TRUE(RunCampaign(o, *host, progress, &r, &err)) << err;
  ASSERT_TRUE(r.Found());
  const CampaignFinding& f = r.findings.at(0);
  EXPECT_EQ("slotguard replay --backend host " + f.file, f.replay_command);
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(f.file));
  const std::string description = doc["description"];
  const std::string advice =
      "add \"expect\": {\"verdict\": \"finding\", \"findings\": [\"" + f.invariant + "\"]}: the file then holds";
  EXPECT_NE(std::string::npos, description.find(advice)) << description;
  EXPECT_FALSE(Holds(doc, *host));
  doc["expect"] = {{"verdict", "finding"}, {"findings", {f.invariant}}};
  EXPECT_TRUE(Holds(doc, *host)) << "it holds while the variant is caught";
}

}  // namespace
}  // namespace slotguard
