// The invariants of a gathered block table (a table producer,
// docs/table-producers.md): gathered_row fires on a live request's copied
// entry that is not its row's, pad_marker on a padded row that is not all
// pad; the entries past count are differential's alone.
#include <gtest/gtest.h>

#include "family/group_model.h"
#include "invariants/invariants.h"
#include "reference/reference.h"
#include "testing/make_group.h"
#include "testing/make_table.h"

namespace slotguard {
namespace {

class GatheredRowTest : public ::testing::Test {
 protected:
  // block_size 16. r0 reads persistent row 1, seq 20: 2 entries of [4, 6, 13];
  // r1 is a padded row (a dummy); r2 reads row 0, seq 5: 1 entry of [3, 11, 12].
  // Row 2 is stale. Reference [4, 6, 0, 0, 0, 0, 3, 0, 0].
  void SetUp() override {
    Batch& b = scenario_.batch;
    b.table_rows = TableRows::kIdxMapping;
    b.query_start_loc = {0, 1, 2, 3};
    b.seq_lens = {20, 1, 5};
    b.positions = {19, 0, 4};
    b.num_tokens = b.num_actual_tokens = 3;
    b.idx_mapping = {1, -1, 0};
    b.slot_mapping_in.assign(3, -1);
    scenario_.name = "gather";
    scenario_.num_blocks = 16;
    Family f = Family::kPaged;
    std::string err;
    ASSERT_TRUE(FindFamily("vllm_gather_block_tables", &f, &err)) << err;
    Group g = testing::MakeGroup(f, "gather", {{"block_size", 16}});
    g.table = testing::MakeTable(3, 3, {3, 11, 12, 4, 6, 13, 4, 6, 9});
    scenario_.groups = {g};
    Interpretation interpreted;
    ASSERT_TRUE(GroupReference(scenario_, scenario_.groups[0], nullptr, true, &interpreted, &err)) << err;
    reference_ = interpreted.slots[0];
    ASSERT_EQ((std::vector<int64_t>{4, 6, 0, 0, 0, 0, 3, 0, 0}), reference_);
    facts_ = interpreted.facts[0];
    kernel_ = reference_;
    requests_ = interpreted.owner;  // each element's request, as the runner hands it (scenario_run.cc)
    ASSERT_EQ((std::vector<int32_t>{0, 0, 0, 1, 1, 1, 2, 2, 2}), requests_);
  }

  std::vector<std::string> Fired() {
    GroupRun run;
    run.scenario = &scenario_;
    run.group = &scenario_.groups[0];
    run.request_of_token = &requests_;
    run.row_bounds_evidence = "test";
    SetAddressing(&run);
    run.outputs.push_back({"gather", &kernel_, &kernel_, &reference_, nullptr, &facts_});
    FindingSink sink(100);
    CheckMappingInvariants(run, &sink);
    std::vector<std::string> fired;
    // A per-request output's element: its request, and (a row of several) its column as the op.
    for (const Finding& f : sink.kept()) {
      fired.push_back(f.invariant + "@" + std::to_string(f.request) + ":" + std::to_string(f.op));
      details_.push_back(f.detail);
    }
    return fired;
  }

  Scenario scenario_;
  std::vector<int64_t> reference_, kernel_;
  std::vector<int32_t> requests_;
  std::vector<uint8_t> facts_;
  std::vector<std::string> details_;
};

using Names = std::vector<std::string>;

TEST_F(GatheredRowTest, TheEnginesGatherIsQuiet) { EXPECT_EQ(Names{}, Fired()); }

// A gather from row r instead of idx_mapping[r]: r0 copies row 0's [3, 11].
TEST_F(GatheredRowTest, ARowOfTheWrongRequestIsGatheredRow) {
  kernel_[0] = 3;
  kernel_[1] = 11;
  EXPECT_EQ((Names{"differential@0:0", "differential@0:1", "gathered_row@0:0", "gathered_row@0:1"}), Fired());
  ASSERT_EQ(4u, details_.size());
  EXPECT_NE(std::string::npos, details_[2].find("column 0 of request 0's gathered row must be entry 4 of table row 1"))
      << details_[2];
}

// A padded row left holding the stale row's ids (before vLLM #49757's zeroing).
TEST_F(GatheredRowTest, AStalePaddedRowIsPadMarker) {
  kernel_[3] = 4;
  kernel_[4] = 6;
  EXPECT_EQ((Names{"differential@1:0", "differential@1:1", "pad_marker@1:0", "pad_marker@1:1"}), Fired());
  EXPECT_NE(std::string::npos, details_[2].find("a padded or dummy row must hold 0 in every column")) << details_[2];
}

// Past count the engine writes nothing: a kernel that copies the whole
// stride differs from the reference (differential) but no consumer reads it.
TEST_F(GatheredRowTest, PastTheCountOnlyDifferentialJudges) {
  kernel_[7] = 11;
  EXPECT_EQ((Names{"differential@2:1"}), Fired());
}

}  // namespace
}  // namespace slotguard
