// A scenario's verdict does not depend on the backend: the host backend
// instruments every block-table read, the GPU backend sees a read past a
// row only in its outputs (plan/table_memory.h MarkOutputReadsPastRow).
// Here the GPU's evidence is the host backend's own outputs judged as the
// GPU judges them (the kernels are the same source): every curated
// scenario, in every table layout, gets the same verdict both ways. The
// GPU itself: tests/kernels/layout_verdicts_gpu_test.cc.
#include <gtest/gtest.h>

#include "plan/table_memory.h"
#include "testing/layout_verdicts.h"

namespace slotguard {
namespace {

/// The host backend with only the GPU's evidence of reads past a row.
class OutputEvidenceBackend : public Backend {
 public:
  const char* name() const override { return "host"; }
  bool Run(const Scenario& scenario, std::vector<GroupOutputs>* outputs, std::string* err) override {
    if (!host_->Run(scenario, outputs, err)) return false;
    for (size_t g = 0; g < outputs->size() && g < scenario.groups.size(); ++g) {
      GroupOutputs& out = (*outputs)[g];
      if (!out.fault.empty() || !out.skipped.empty()) continue;
      out.read_past_row.assign(static_cast<size_t>(scenario.batch.num_tokens), 0);
      MarkOutputReadsPastRow(scenario, scenario.groups[g], &out);
    }
    return true;
  }
  bool RunReplays(const GraphSequence&, std::vector<std::vector<GroupOutputs>>*, std::string* err) override {
    *err = "not here";
    return false;
  }

 private:
  std::unique_ptr<Backend> host_ = MakeHostBackend();
};

// paged/mutants/unguarded-past-row.json expects row_bounds: in the strided
// layout its read past the row gave a real-looking block id, and only the
// instrumented host saw it (the GPU failed the scenario, the host held it).
TEST(LayoutVerdictsTest, OutputEvidenceGivesTheInstrumentedVerdictInEveryLayout) {
  std::unique_ptr<Backend> host = MakeHostBackend();
  OutputEvidenceBackend outputs_only;
  std::map<std::string, std::string> host_verdicts, output_verdicts;
  const std::map<std::string, bool> instrumented = testing::LayoutVerdicts(*host, &host_verdicts);
  const std::map<std::string, bool> seen = testing::LayoutVerdicts(outputs_only, &output_verdicts);
  ASSERT_EQ(instrumented.size(), seen.size());
  EXPECT_GT(instrumented.size(), 100u);
  for (const auto& [key, holds] : instrumented)
    EXPECT_EQ(holds, seen.at(key)) << key << "\n  instrumented: " << host_verdicts[key]
                                   << "\n  outputs only: " << output_verdicts[key];
  EXPECT_TRUE(seen.at("paged-unguarded-past-row [strided]")) << output_verdicts["paged-unguarded-past-row [strided]"];
}

// The fillers are recognised where a correct kernel never puts them: a
// slot_mapping_in copied through from a filler block is no read past a row.
TEST(LayoutVerdictsTest, ACorrectKernelHasNoReadPastItsRowInAnyLayout) {
  OutputEvidenceBackend outputs_only;
  for (Scenario s : CuratedScenarios())
    for (TableLayoutKind kind : {TableLayoutKind::kPadded, TableLayoutKind::kTight, TableLayoutKind::kStrided}) {
      s.table_layout = kind;
      for (Group& g : s.groups) g.variant = FixedVariant(g.family);
      std::vector<GroupOutputs> outputs;
      std::string err;
      ASSERT_TRUE(outputs_only.Run(s, &outputs, &err)) << err;
      for (size_t g = 0; g < outputs.size(); ++g)
        for (size_t t = 0; t < outputs[g].read_past_row.size(); ++t)
          EXPECT_EQ(0, outputs[g].read_past_row[t]) << s.name << " [" << TableLayoutName(kind) << "] group "
                                                    << s.groups[g].name << " token " << t;
    }
}

}  // namespace
}  // namespace slotguard
