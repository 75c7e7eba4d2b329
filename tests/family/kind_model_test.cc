// The kind models (family/kind_model.h) and a group's model
// (family/group_model.h): each kind's answers for the built-in families,
// worked out by hand from docs/family-format.md,
// docs/state-and-block-ops.md, include/slotguard/plugin.h,
// python/slotguard/protocol.py and the descriptions in families/.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "family/group_model.h"
#include "family/kind_model.h"
#include "registry/invariants.h"
#include "slotguard/plugin.h"
#include "testing/make_group.h"
#include "testing/make_table.h"

namespace slotguard {
namespace {

using testing::MakeGroup;

Family FamilyNamed(const std::string& name) {
  Family f = Family::kPaged;
  std::string err;
  EXPECT_TRUE(FindFamily(name, &f, &err)) << err;
  return f;
}

Batch MakeBatch(std::vector<int32_t> qsl, std::vector<int64_t> seq_lens, std::vector<int32_t> idx, int64_t padding = 0) {
  Batch b;
  b.query_start_loc = std::move(qsl);
  b.seq_lens = std::move(seq_lens);
  b.idx_mapping = std::move(idx);
  b.num_actual_tokens = b.query_start_loc.back();
  b.num_tokens = b.query_start_loc.back() + padding;
  b.positions.assign(static_cast<size_t>(b.num_tokens), 0);
  // Each request's tokens are the last q of its seq_len.
  for (size_t r = 0; r + 1 < b.query_start_loc.size(); ++r) {
    const int32_t q = b.query_start_loc[r + 1] - b.query_start_loc[r];
    for (int32_t i = 0; i < q; ++i) b.positions[b.query_start_loc[r] + i] = b.seq_lens[r] - q + i;
  }
  b.slot_mapping_in.assign(static_cast<size_t>(b.num_tokens), -1);
  return b;
}

using testing::MakeTable;

/// The mapping invariants that judge `kind` (invariants.def's kinds column).
std::set<std::string> JudgedBy(const KindModel& kind) {
  std::set<std::string> names;
  for (const InvariantInfo& inv : AllInvariants())
    if (inv.stage == InvariantStage::kMapping && JudgesKind(inv.kinds, kind.invariant_bit())) names.insert(inv.name);
  return names;
}

TEST(KindModelTest, EachKindIsOneModelWithItsNameAndBit) {
  std::vector<std::string> names;
  uint32_t bits = 0;
  for (const KindModel* kind : AllKindModels()) {
    names.push_back(kind->name());
    EXPECT_EQ(0u, bits & kind->invariant_bit()) << kind->name();  // a bit of its own
    bits |= kind->invariant_bit();
    EXPECT_EQ(kind, &KindModelOf(kind->kind()));
  }
  EXPECT_EQ((std::vector<std::string>{"slot_mapping", "state_index", "block_op", "table_producer"}), names);
}

// Each kind's wire numbers are its model's: the ABI's SG_KIND_* (a C
// plugin's names for them) and python/slotguard/protocol.py's FLAG_* (a
// Python provider's) must say the same.
TEST(KindModelTest, TheWireNumbersAreTheAbisAndThePythonProtocols) {
  const std::map<std::string, int32_t> abi = {{"slot_mapping", SG_KIND_SLOT_MAPPING},
                                              {"state_index", SG_KIND_STATE_INDEX},
                                              {"block_op", SG_KIND_BLOCK_OP},
                                              {"table_producer", SG_KIND_TABLE_PRODUCER}};
  std::ifstream in(std::string(SLOTGUARD_SOURCE_DIR) + "/python/slotguard/protocol.py");
  std::stringstream text;
  text << in.rdbuf();
  std::set<int32_t> numbers;
  std::set<uint32_t> flags;
  for (const KindModel* kind : AllKindModels()) {
    ASSERT_EQ(1u, abi.count(kind->name())) << kind->name() << ": an SG_KIND_* of include/slotguard/plugin.h";
    EXPECT_EQ(abi.at(kind->name()), kind->abi_kind()) << kind->name();
    EXPECT_TRUE(numbers.insert(kind->abi_kind()).second) << kind->name();
    if (kind->protocol_flag() == 0) continue;  // no flag: a slot per token
    EXPECT_TRUE(flags.insert(kind->protocol_flag()).second) << kind->name();
    std::string upper = kind->name();
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_NE(std::string::npos, text.str().find("\nFLAG_" + upper + " = " + std::to_string(kind->protocol_flag())))
        << kind->name() << ": python/slotguard/protocol.py's FLAG_" << upper;
  }
}

// paged: a slot per token (families/paged.json has no "kind").
TEST(KindModelTest, SlotMappingIsPerTokenAndWritesTheCache) {
  const FamilyModel paged(Family::kPaged);
  const KindModel& kind = paged.kind();
  EXPECT_STREQ("slot_mapping", kind.name());
  EXPECT_FALSE(kind.per_request());
  EXPECT_TRUE(kind.writes_cache());
  EXPECT_TRUE(kind.runs_on_gpu());
  EXPECT_FALSE(kind.columns_read_width());
  EXPECT_EQ(0, kind.abi_kind());        // SG_KIND_SLOT_MAPPING
  EXPECT_EQ(0u, kind.protocol_flag());  // no kind flag in HELLO
  EXPECT_STREQ("num_tokens", kind.length_text());
  EXPECT_EQ("", paged.Summary());
  EXPECT_TRUE(paged.rows_guarded());   // range "pad"
  EXPECT_FALSE(paged.ragged_rows());   // rows "table"
  EXPECT_EQ((std::set<std::string>{"differential", "golden", "null_block", "negative_lands", "null_owner_pad",
                                   "pad_exact", "padding_tail", "in_range", "own_block", "unique_slots", "live_maps",
                                   "row_bounds", "window_reads"}),
            JudgedBy(kind));
}

// vllm_mamba: a state index per request, the consumers' marker 0.
TEST(KindModelTest, StateIndexIsPerRequestWithItsOwnInvariants) {
  const FamilyModel mamba(FamilyNamed("vllm_mamba"));
  const KindModel& kind = mamba.kind();
  EXPECT_STREQ("state_index", kind.name());
  EXPECT_TRUE(kind.per_request());
  EXPECT_FALSE(kind.writes_cache());
  EXPECT_FALSE(kind.runs_on_gpu());
  EXPECT_TRUE(kind.columns_read_width());
  EXPECT_EQ(1, kind.abi_kind());        // SG_KIND_STATE_INDEX
  EXPECT_EQ(4u, kind.protocol_flag());  // FLAG_STATE_INDEX
  EXPECT_STREQ("the number of requests (a state index per request)", kind.length_text());
  EXPECT_FALSE(mamba.rows_guarded());  // a live request must find its column
  EXPECT_FALSE(mamba.ragged_rows());
  EXPECT_FALSE(mamba.reads_source_columns());
  EXPECT_EQ(0u, mamba.Summary().find("a state index per request: column "));
  EXPECT_EQ("a row that owns no state must hold the producer's marker 0", kind.MarkerText(true, 0));
  EXPECT_EQ((std::set<std::string>{"differential", "golden", "pad_marker", "skip_agrees", "live_state",
                                   "unique_state", "state_writes"}),
            JudgedBy(kind));
}

// vllm_mamba_copy: one copy per request (src column prev, dst column curr).
TEST(KindModelTest, BlockOpIsPerRequestWithItsOwnInvariants) {
  const FamilyModel copy(FamilyNamed("vllm_mamba_copy"));
  const KindModel& kind = copy.kind();
  EXPECT_STREQ("block_op", kind.name());
  EXPECT_TRUE(kind.per_request());
  EXPECT_FALSE(kind.writes_cache());
  EXPECT_EQ(2, kind.abi_kind());        // SG_KIND_BLOCK_OP
  EXPECT_EQ(8u, kind.protocol_flag());  // FLAG_BLOCK_OP
  EXPECT_STREQ("the number of requests times the operations per request", kind.length_text());
  EXPECT_TRUE(copy.reads_source_columns());
  EXPECT_EQ(NullPage::kSink, copy.null_page());
  EXPECT_EQ("block operations per request: 1 copy, src column prev, dst column curr", copy.Summary());
  EXPECT_EQ("a request has no operation here: expected -1", kind.MarkerText(false, -1));
  EXPECT_EQ((std::set<std::string>{"differential", "golden", "pad_marker", "op_null_src", "op_null_dst",
                                   "op_foreign_dst"}),
            JudgedBy(kind));
}

// The output length: num_tokens (padding included) per token; num_reqs for a
// state index; num_reqs * ops for block operations (vllm_offload_store's
// ops is "width": 3 columns, 2 requests, 6).
TEST(GroupModelTest, OutputLengthIsTheKinds) {
  const Batch b = MakeBatch({0, 3, 3}, {10, 0}, {0, -1}, /*padding=*/2);
  int64_t length = -1;
  std::string why;
  const Group paged = MakeGroup(Family::kPaged, "attn");
  ASSERT_TRUE(GroupModel(paged).OutputLength(b, &length, &why)) << why;
  EXPECT_EQ(5, length);
  const Group mamba = MakeGroup(FamilyNamed("vllm_mamba"), "ssm");
  ASSERT_TRUE(GroupModel(mamba).OutputLength(b, &length, &why)) << why;
  EXPECT_EQ(2, length);
  Group store = MakeGroup(FamilyNamed("vllm_offload_store"), "store");
  store.table = MakeTable(2, 3, {5, 6, 7, 8, 9, 10});
  ASSERT_TRUE(GroupModel(store).OutputLength(b, &length, &why)) << why;
  EXPECT_EQ(6, length);
  int64_t elements = -1;
  ASSERT_TRUE(GroupModel(store).RequestElements(&elements, &why)) << why;
  EXPECT_EQ(3, elements);
  ASSERT_TRUE(GroupModel(paged).RequestElements(&elements, &why)) << why;
  EXPECT_EQ(0, elements);  // a slot per token
  // The facade's OutputLength and the plugin call's counts agree.
  EXPECT_EQ(6, OutputLength(store, b));
  ASSERT_TRUE(GroupModel(store).OutputLength(b.num_tokens, b.num_reqs(), &length, &why)) << why;
  EXPECT_EQ(6, length);
}

// The columns a request reads. flashinfer_append (page_size 4, CSR rows):
// a request of 6 tokens at positions 0..5 reads column pos / 4: 0 four
// times, 1 twice; its rows must have 2 columns. vllm_mamba_copy (block
// size 4): seq_len 10, 3 tokens: prev = cdiv(7, 4) - 1 = 1 (the source),
// curr = cdiv(10, 4) - 1 = 2 (the destination): 3 columns.
TEST(GroupModelTest, ColumnsARequestReads) {
  const Group append = MakeGroup(FamilyNamed("flashinfer_append"), "fi", {{"page_size", 4}});
  const GroupModel fi(append);
  EXPECT_TRUE(fi.ragged_rows());
  EXPECT_TRUE(fi.rows_guarded());
  const Batch six = MakeBatch({0, 6}, {6}, {0});
  std::vector<int64_t> cols;
  ASSERT_TRUE(fi.ForEachColumn(six, 0, [&](int32_t r, int64_t col, bool source, bool selected) {
    EXPECT_EQ(0, r);
    EXPECT_FALSE(source);
    EXPECT_TRUE(selected);
    cols.push_back(col);
  }));
  EXPECT_EQ((std::vector<int64_t>{0, 0, 0, 0, 1, 1}), cols);
  std::vector<int64_t> needed;
  ASSERT_TRUE(fi.NeededColumns(six, int64_t{1} << 40, &needed));
  EXPECT_EQ((std::vector<int64_t>{2}), needed);

  const Group copy = MakeGroup(FamilyNamed("vllm_mamba_copy"), "copy", {{"block_size", 4}});
  const GroupModel cm(copy);
  const Batch three = MakeBatch({0, 3}, {10}, {0});
  std::vector<std::pair<int64_t, bool>> read;
  ASSERT_TRUE(cm.ForEachColumn(three, 3, [&](int32_t, int64_t col, bool source, bool) { read.push_back({col, source}); }));
  EXPECT_EQ((std::vector<std::pair<int64_t, bool>>{{1, true}, {2, false}}), read);
  ASSERT_TRUE(cm.NeededColumns(three, int64_t{1} << 40, &needed));
  EXPECT_EQ((std::vector<int64_t>{3}), needed);
}

// The reference through the model: the copy's source is entry 1 of the
// row [5, 6, 7], its destination entry 2 (outputs: the group's, then
// "dst"); vllm_mamba's state column is 0 (no align, no cache_all, no
// spec): entry 5, and a dummy holds the marker 0.
TEST(GroupModelTest, InterpretRunsTheKindsInterpreter) {
  Group copy = MakeGroup(FamilyNamed("vllm_mamba_copy"), "copy", {{"block_size", 4}});
  copy.table = MakeTable(1, 3, {5, 6, 7});
  Interpretation out;
  std::string why;
  ASSERT_TRUE(GroupModel(copy).Interpret(MakeBatch({0, 3}, {10}, {0}), nullptr, false, false, &out, &why)) << why;
  ASSERT_EQ(2u, out.slots.size());
  EXPECT_EQ((std::vector<int64_t>{6}), out.slots[0]);
  EXPECT_EQ((std::vector<int64_t>{7}), out.slots[1]);

  Group mamba = MakeGroup(FamilyNamed("vllm_mamba"), "ssm", {{"block_size", 4}});
  mamba.table = MakeTable(2, 3, {5, 6, 7, 8, 9, 10});
  ASSERT_TRUE(GroupModel(mamba).Interpret(MakeBatch({0, 3, 3}, {10, 0}, {0, -1}), nullptr, false, false, &out, &why))
      << why;
  ASSERT_EQ(1u, out.slots.size());
  EXPECT_EQ((std::vector<int64_t>{5, 0}), out.slots[0]);
  EXPECT_EQ(0, GroupModel(mamba).Marker());
  EXPECT_TRUE(GroupModel(mamba).IsNullIndex(0));
  EXPECT_FALSE(GroupModel(mamba).IsNullIndex(5));
}

// Boundary values. flashinfer_append divides by page_size (pos / 4, pos %
// 4; its manager page is its page, 4) and compares nothing that addresses.
// vllm_mamba_copy divides by block_size (cdiv(..., 4)), its manager page
// is 1, and its select "prev >= 0" puts a threshold at 0.
TEST(GroupModelTest, DivisorsAndThresholds) {
  const Group append = MakeGroup(FamilyNamed("flashinfer_append"), "fi", {{"page_size", 4}});
  EXPECT_EQ((std::vector<int64_t>{4}), GroupDivisors(append));
  EXPECT_TRUE(GroupModel(append).Thresholds().empty());
  const Group copy = MakeGroup(FamilyNamed("vllm_mamba_copy"), "copy", {{"block_size", 4}});
  EXPECT_EQ((std::vector<int64_t>{4, 1}), GroupDivisors(copy));
  EXPECT_EQ((std::vector<int64_t>{0}), GroupModel(copy).Thresholds());
}

// vllm_mamba's constraint "align + cache_all <= 1".
TEST(GroupModelTest, ConstraintsHold) {
  Group mamba = MakeGroup(FamilyNamed("vllm_mamba"), "ssm", {{"align", 1}});
  EXPECT_TRUE(GroupModel(mamba).ConstraintsHold());
  SetParam(&mamba, "cache_all", 1);
  EXPECT_FALSE(GroupModel(mamba).ConstraintsHold());
}

}  // namespace
}  // namespace slotguard
