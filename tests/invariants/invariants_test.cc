// Each invariant fires on the output that breaks it, on the right token,
// and stays quiet on the correct output.
#include "invariants/invariants.h"

#include <gtest/gtest.h>

#include "reference/reference.h"

namespace slotguard {
namespace {

class InvariantsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Request 0: pos 0..2 on block 2 (block_size 4); request 1: dummy; token 4: padding.
    Batch& b = scenario_.batch;
    b.query_start_loc = {0, 3, 4};
    b.positions = {0, 1, 2, 0, 0};
    b.seq_lens = {3, 1};
    b.num_tokens = 5;
    b.num_actual_tokens = 4;
    b.idx_mapping = {0, -1};
    b.slot_mapping_in.assign(5, -1);
    scenario_.name = "inv";
    scenario_.num_blocks = 8;
    Group g;
    g.name = "attn";
    SetParam(&g, "block_size", 4);
  SetParam(&g, "kernel_block_size", 4);
    g.table = {2, 2, {2, 3, 0, 0}};
    scenario_.groups = {g};
    reference_ = ReferencePaged(b, scenario_.groups[0]);
    ASSERT_EQ((std::vector<int64_t>{8, 9, 10, -1, -1}), reference_);
    kernel_ = reference_;
    flat_ = reference_;
    requests_ = RequestOfToken(b, scenario_.groups[0]);
    read_past_.assign(5, 0);
  }

  /// Runs every invariant on kernel_ and returns "invariant@token" strings.
  std::vector<std::string> Fired(const std::vector<int64_t>* golden = nullptr) {
    GroupRun run;
    run.scenario = &scenario_;
    run.group = &scenario_.groups[0];
    run.request_of_token = &requests_;
    run.read_past_row = &read_past_;
    run.row_bounds_evidence = "test";
    SetAddressing(&run);
    // What the reference knows of each token (who owns no state).
    Interpretation interpreted;
    std::string err;
    EXPECT_TRUE(GroupReference(scenario_, scenario_.groups[0], nullptr, true, &interpreted, &err)) << err;
    facts_ = interpreted.facts[0];
    run.outputs.push_back({"attn", &kernel_, &flat_, &reference_, golden, &facts_});
    FindingSink sink(100);
    CheckMappingInvariants(run, &sink);
    std::vector<std::string> fired;
    for (const Finding& f : sink.kept()) fired.push_back(f.invariant + "@" + std::to_string(f.token));
    return fired;
  }

  Scenario scenario_;
  std::vector<int64_t> reference_, kernel_, flat_;
  std::vector<int32_t> requests_;
  std::vector<uint8_t> read_past_;
  std::vector<uint8_t> facts_;
};

using Names = std::vector<std::string>;

TEST_F(InvariantsTest, CorrectOutputIsQuiet) { EXPECT_EQ(Names{}, Fired()); }

TEST_F(InvariantsTest, APersistentTableOwnsTheRowIdxMappingNames) {
  // The same step in a persistent table: request 0 reads row 2 ([2, 3]);
  // row 0 is stale and holds block 5, row 1 holds block 6.
  Batch& b = scenario_.batch;
  b.table_rows = TableRows::kIdxMapping;
  b.idx_mapping = {2, -1};
  scenario_.groups[0].table = {3, 2, {5, 0, 6, 0, 2, 3}};
  reference_ = ReferencePaged(b, scenario_.groups[0]);
  ASSERT_EQ((std::vector<int64_t>{8, 9, 10, -1, -1}), reference_);
  kernel_ = flat_ = reference_;
  EXPECT_EQ(Names{}, Fired());
  kernel_[1] = flat_[1] = 21;  // block 5 of stale row 0: what a kernel reading row r gets
  EXPECT_EQ((Names{"differential@1", "own_block@1", "live_maps@1"}), Fired());
  kernel_[1] = flat_[1] = reference_[1];
  kernel_[3] = flat_[3] = 24;  // the dummy reads no row: a slot in row 1's block 6
  EXPECT_EQ((Names{"differential@3", "null_owner_pad@3", "own_block@3"}), Fired());
}

TEST_F(InvariantsTest, ADummyRunOwnsNoRowWhatIdxMappingSays) {
  // A dummy run (vLLM v2's make_dummy): idx_mapping arange on a persistent
  // table not refilled. Row 0 still holds a finished request's blocks
  // [2, 3]; rows 1 and 2 hold zeros. No request owns state: every token PAD.
  Batch& b = scenario_.batch;
  b.table_rows = TableRows::kIdxMapping;
  b.idx_mapping = {0, 1};
  b.dummy_run = true;
  scenario_.groups[0].table = {3, 2, {2, 3, 0, 0, 0, 0}};
  requests_ = RequestOfToken(b, scenario_.groups[0]);
  reference_ = ReferencePaged(b, scenario_.groups[0]);
  ASSERT_EQ((std::vector<int64_t>{-1, -1, -1, -1, -1}), reference_);
  kernel_ = flat_ = reference_;
  EXPECT_EQ(Names{}, Fired());
  // What the engine's kernel writes for request 0: row idx_mapping[0] = 0,
  // column 0, block 2: a block no request of the run owns.
  kernel_[0] = flat_[0] = 8;
  EXPECT_EQ((Names{"differential@0", "null_owner_pad@0", "own_block@0"}), Fired());
  // And for request 1: its zero row, block 0.
  kernel_ = flat_ = reference_;
  kernel_[3] = flat_[3] = 0;
  EXPECT_EQ((Names{"differential@3", "null_block@3", "null_owner_pad@3", "own_block@3"}), Fired());
}

TEST_F(InvariantsTest, NullBlockWrite) {
  kernel_[1] = flat_[1] = 3;  // block 0
  EXPECT_EQ((Names{"differential@1", "null_block@1", "own_block@1", "live_maps@1"}), Fired());
}

TEST_F(InvariantsTest, DummyTokenWritten) {
  kernel_[3] = flat_[3] = 12;  // block 3, which request 0 owns
  EXPECT_EQ((Names{"differential@3", "null_owner_pad@3", "own_block@3"}), Fired());
}

TEST_F(InvariantsTest, WrappedPad) {
  kernel_[0] = flat_[0] = -5;
  EXPECT_EQ((Names{"differential@0", "pad_exact@0", "live_maps@0"}), Fired());
  kernel_[3] = flat_[3] = -5;  // a dummy's token must be exactly PAD too
  EXPECT_EQ((Names{"differential@0", "differential@3", "null_owner_pad@3", "pad_exact@0", "pad_exact@3", "live_maps@0"}), Fired());
}

TEST_F(InvariantsTest, StaleTail) {
  kernel_[4] = flat_[4] = 13;
  EXPECT_EQ((Names{"differential@4", "padding_tail@4", "own_block@4"}), Fired());
}

TEST_F(InvariantsTest, PastThePool) {
  kernel_[2] = flat_[2] = 32;  // num_blocks 8 * page 4
  EXPECT_EQ((Names{"differential@2", "in_range@2", "own_block@2", "live_maps@2"}), Fired());
}

TEST_F(InvariantsTest, SharedSlotAcrossRequests) {
  // Dummy token 3 lands on token 0's slot: unique_slots names the later token.
  kernel_[3] = flat_[3] = 8;
  EXPECT_EQ((Names{"differential@3", "null_owner_pad@3", "own_block@3", "unique_slots@3"}), Fired());
}

TEST_F(InvariantsTest, SameRequestMayRepeatASlot) {
  kernel_[1] = flat_[1] = reference_[1] = 8;  // both tokens of request 0
  EXPECT_EQ(Names{}, Fired());
}

TEST_F(InvariantsTest, SharedSlotInsideARequest) {
  // Token 1 lands on token 0's slot; the reference keeps them apart (8, 9):
  // wrong offset arithmetic inside one request.
  kernel_[1] = flat_[1] = 8;
  EXPECT_EQ((Names{"differential@1", "unique_slots@1"}), Fired());
}

TEST_F(InvariantsTest, RowBoundsFromTheBackend) {
  read_past_[0] = 1;
  EXPECT_EQ((Names{"row_bounds@0"}), Fired());
}

TEST_F(InvariantsTest, FlatGeometryDisagreement) {
  flat_[0] = 9;
  EXPECT_EQ((Names{"differential@0"}), Fired());
}

TEST_F(InvariantsTest, GoldenChecksKernelAndReference) {
  std::vector<int64_t> golden = reference_;
  EXPECT_EQ(Names{}, Fired(&golden));
  golden[0] = 7;  // both kernel and reference disagree with it
  EXPECT_EQ((Names{"golden@0", "golden@0"}), Fired(&golden));
}

TEST_F(InvariantsTest, HybridNullBlockIsTheWholeManagerBlock) {
  // block_size 8 = 2 kernel blocks of 4: kernel block 1 (slots 4..7) is still block 0.
  Group& g = scenario_.groups[0];
  SetParam(&g, "block_size", 8);
  g.table = {2, 2, {2, 3, 0, 1}};
  kernel_[3] = flat_[3] = reference_[3] = 5;
  const Names fired = Fired();
  EXPECT_NE(fired.end(), std::find(fired.begin(), fired.end(), "null_block@3"));
}

TEST_F(InvariantsTest, BatchStateFindingsSayTheReferenceAgrees) {
  kernel_[1] = flat_[1] = reference_[1] = 3;  // an inconsistent batch routes token 1 to block 0
  GroupRun run;
  run.scenario = &scenario_;
  run.group = &scenario_.groups[0];
  run.request_of_token = &requests_;
  run.read_past_row = &read_past_;
  SetAddressing(&run);
  OutputRun out{"attn", &kernel_, &flat_, &reference_, nullptr};
  run.outputs.push_back(out);
  FindingSink sink;
  CheckNullBlock(run, &sink);
  ASSERT_EQ(1u, sink.kept().size());
  EXPECT_EQ("slot 3 is in block 0 (slots 0..3) (the reference agrees: the batch state routes this token here)",
            sink.kept()[0].detail);
}

// compressor_ring: the slot output is a ring (a request longer than the
// capacity overwrites its oldest slots: the reference shares them too); the
// tail output keeps each request's last `capacity` tokens apart.
TEST(UniqueSlotsTest, RingOverwritesAreFineTailSharesAreNot) {
  Scenario s;
  s.name = "ring";
  s.num_blocks = 8;
  Batch& b = s.batch;
  b.query_start_loc = {0, 3};
  b.positions = {0, 1, 2};
  b.seq_lens = {3};
  b.num_tokens = b.num_actual_tokens = 3;
  b.idx_mapping = {0};
  b.slot_mapping_in.assign(3, -1);
  Group g;
  g.name = "c";
  g.family = Family::kCompressorRing;
  g.variant = Variant::kCompressorRingFixed;
  SetParam(&g, "capacity", 2);
  SetParam(&g, "ring_block_size", 2);
  g.table = {1, 1, {5}};
  s.groups = {g};
  const std::vector<std::vector<int64_t>> ref = ReferenceCompressorRing(b, s.groups[0]);
  ASSERT_EQ((std::vector<int64_t>{10, 11, 10}), ref[0]);
  ASSERT_EQ((std::vector<int64_t>{-1, 11, 10}), ref[1]);
  std::vector<int64_t> slot = ref[0], tail = {-1, 10, 10};  // the tail's token 1 moved onto token 2's slot
  const std::vector<int32_t> requests = RequestOfToken(b, s.groups[0]);
  const std::vector<uint8_t> read_past(3, 0);
  GroupRun run;
  run.scenario = &s;
  run.group = &s.groups[0];
  run.request_of_token = &requests;
  run.read_past_row = &read_past;
  SetAddressing(&run);
  run.outputs.push_back({"c", &slot, &slot, &ref[0], nullptr});
  run.outputs.push_back({"c.tail", &tail, &tail, &ref[1], nullptr});
  FindingSink sink(100);
  CheckUniqueSlots(run, &sink);
  ASSERT_EQ(1u, sink.kept().size());
  EXPECT_EQ("c.tail", sink.kept()[0].output);
  EXPECT_EQ(1, sink.kept()[0].token);  // the token the kernel moved
  EXPECT_EQ("slot 10 also written by token 2 of the same request (the reference keeps them apart)",
            sink.kept()[0].detail);
}

TEST(FindingSinkTest, CountsAllKeepsTheFirstFew) {
  FindingSink sink(2);
  Finding f;
  f.invariant = "null_block";
  for (int i = 0; i < 5; ++i) sink.Add(f);
  f.invariant = "golden";
  sink.Add(f);
  EXPECT_EQ(6, sink.total());
  EXPECT_EQ(5, sink.counts().at("null_block"));
  EXPECT_EQ(3u, sink.kept().size());
}

}  // namespace
}  // namespace slotguard
