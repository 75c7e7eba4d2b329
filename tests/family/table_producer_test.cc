// The table_producer kind (family/kind_table_producer.cc,
// docs/table-producers.md): its model's answers, its knobs as the loader
// reads them, and its interpretation of vllm_gather_block_tables, worked
// out by hand from vLLM's _gather_block_tables_kernel
// (vllm/v1/worker/gpu/block_table.py:221-258 at 81be2e09).
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "family/family_file.h"
#include "family/group_model.h"
#include "family/kind_model.h"
#include "family/request_plan.h"
#include "registry/invariants.h"
#include "testing/make_group.h"
#include "testing/make_table.h"

namespace slotguard {
namespace {

using testing::MakeGroup;
using testing::MakeTable;

Family Gather() {
  Family f = Family::kPaged;
  std::string err;
  EXPECT_TRUE(FindFamily("vllm_gather_block_tables", &f, &err)) << err;
  return f;
}

/// Requests of q tokens each, the last q of seq_len.
Batch MakeBatch(std::vector<int32_t> qsl, std::vector<int64_t> seq_lens, std::vector<int32_t> idx) {
  Batch b;
  b.query_start_loc = std::move(qsl);
  b.seq_lens = std::move(seq_lens);
  b.idx_mapping = std::move(idx);
  b.num_actual_tokens = b.num_tokens = b.query_start_loc.back();
  b.positions.assign(static_cast<size_t>(b.num_tokens), 0);
  for (size_t r = 0; r + 1 < b.query_start_loc.size(); ++r) {
    const int32_t q = b.query_start_loc[r + 1] - b.query_start_loc[r];
    for (int32_t i = 0; i < q; ++i) b.positions[b.query_start_loc[r] + i] = b.seq_lens[r] - q + i;
  }
  b.slot_mapping_in.assign(static_cast<size_t>(b.num_tokens), -1);
  return b;
}

TEST(TableProducerTest, TheKindIsOneModelWithItsWireValuesAndInvariants) {
  const FamilyModel gather(Gather());
  const KindModel& kind = gather.kind();
  EXPECT_STREQ("table_producer", kind.name());
  EXPECT_EQ(8u, kind.invariant_bit());  // the fourth line of kinds.def
  EXPECT_TRUE(kind.per_request());
  EXPECT_FALSE(kind.writes_cache());
  EXPECT_FALSE(kind.runs_on_gpu());
  EXPECT_EQ(3, kind.abi_kind());         // SG_KIND_TABLE_PRODUCER
  EXPECT_EQ(16u, kind.protocol_flag());  // FLAG_TABLE_PRODUCER
  EXPECT_STREQ("the number of requests times the table's width", kind.length_text());
  EXPECT_EQ("a padded or dummy row must hold 0 in every column", kind.MarkerText(true, 0));
  EXPECT_EQ(0u, gather.Summary().find("a block table row per request: the first "));
  std::set<std::string> judged;
  for (const InvariantInfo& inv : AllInvariants())
    if (inv.stage == InvariantStage::kMapping && JudgesKind(inv.kinds, kind.invariant_bit())) judged.insert(inv.name);
  EXPECT_EQ((std::set<std::string>{"differential", "golden", "pad_marker", "gathered_row"}), judged);
}

// A row per request, as wide as the table: 3 requests of a 5-wide table.
TEST(TableProducerTest, TheOutputIsARowPerRequest) {
  Group g = MakeGroup(Gather(), "gather", {{"block_size", 16}});
  g.table = MakeTable(3, 5, std::vector<int32_t>(15, 1));
  const GroupModel model(g);
  int64_t elements = 0, length = 0;
  std::string why;
  ASSERT_TRUE(model.RequestElements(&elements, &why)) << why;
  EXPECT_EQ(5, elements);
  ASSERT_TRUE(model.OutputLength(MakeBatch({0, 1, 2, 3}, {1, 1, 1}, {0, 1, 2}), &length, &why)) << why;
  EXPECT_EQ(15, length);
}

// block_table.py:250-258 (a live row's first num_blocks entries), 241-246 (a
// padded row zeroed), 69-71 (the buffer starts zeroed): block_size 16,
// lookahead 0. r0 reads persistent row 2, seq 20: cdiv(20, 16) = 2 entries;
// r1 a dummy (a padded row); r2 reads row 0, seq 33: 3 entries, the whole row.
TEST(TableProducerTest, ALiveRowCopiesItsCountAPaddedRowIsZero) {
  Group g = MakeGroup(Gather(), "gather", {{"block_size", 16}});
  g.table = MakeTable(3, 3, {3, 4, 5, /*stale*/ 9, 9, 9, 7, 8, 11});
  Batch b = MakeBatch({0, 1, 2, 3}, {20, 1, 33}, {2, -1, 0});
  b.table_rows = TableRows::kIdxMapping;
  Interpretation out;
  std::string why;
  ASSERT_TRUE(GroupModel(g).Interpret(b, nullptr, true, false, &out, &why)) << why;
  ASSERT_EQ(1u, out.slots.size());
  EXPECT_EQ((std::vector<int64_t>{7, 8, 0, 0, 0, 0, 3, 4, 5}), out.slots[0]);
  EXPECT_EQ((std::vector<int32_t>{0, 0, 0, 1, 1, 1, 2, 2, 2}), out.owner);
  const uint8_t live = kFactLiveIndex, pad = kFactNoState | kFactMarker;
  EXPECT_EQ((std::vector<uint8_t>{live, live, 0, pad, pad, pad, live, live, live}), out.facts[0]);
}

// A hybrid group counts kernel blocks, and lookahead tokens are allocated
// ahead (block_table.py:116-118; kv_cache_manager.py:490-493): block_size 32,
// kernel_block_size 16, lookahead 2, seq 31: cdiv(33, 32) * 2 = 4 entries.
TEST(TableProducerTest, CountIsInKernelBlocksWithTheLookahead) {
  Group g = MakeGroup(Gather(), "gather", {{"block_size", 32}, {"kernel_block_size", 16}, {"lookahead", 2}});
  g.table = MakeTable(1, 6, {6, 7, 10, 11, 20, 21});
  Interpretation out;
  std::string why;
  ASSERT_TRUE(GroupModel(g).Interpret(MakeBatch({0, 1}, {31}, {0}), nullptr, false, false, &out, &why)) << why;
  EXPECT_EQ((std::vector<int64_t>{6, 7, 10, 11, 0, 0}), out.slots[0]);
  // What sizes the row: the farthest column a live request copies.
  std::vector<int64_t> needed;
  ASSERT_TRUE(GroupModel(g).NeededColumns(MakeBatch({0, 1}, {31}, {0}), int64_t{1} << 40, &needed));
  EXPECT_EQ((std::vector<int64_t>{4}), needed);
}

const std::string kHead =
    R"("slotguard_family": 1, "name": "x", "meaning": "m", "kind": "table_producer",
       "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 16}], )";

std::string Error(const std::string& body) {
  FamilyDesc d;
  std::string err;
  EXPECT_FALSE(ParseFamilyDescription("{" + kHead + body + "}", "f.json", &d, &err)) << body;
  return err;
}

// The kind reads its own knobs (ReadKnobs): count required, pad 0 by
// default, a variant may set them; the per-token knobs are not its own.
TEST(TableProducerTest, TheKindReadsItsOwnKnobs) {
  FamilyDesc d;
  std::string err;
  const std::string text = "{" + kHead + R"j("count": "cdiv(seq_len, block_size)",
      "variants": [{"name": "minus_one", "meaning": "m", "set": {"pad": -1}}]})j";
  ASSERT_TRUE(ParseFamilyDescription(text, "f.json", &d, &err)) << err;
  EXPECT_STREQ("table_producer", KindModelOf(d.kind).name());
  EXPECT_EQ("cdiv(seq_len, block_size)", d.request.Own("count").text());
  EXPECT_EQ("0", d.request.Own("pad").text());
  ASSERT_EQ(1u, d.variants.size());
  EXPECT_EQ("-1", d.variants[0].request.Own("pad").text());
  EXPECT_EQ("cdiv(seq_len, block_size)", d.variants[0].request.Own("count").text());
  EXPECT_EQ("f.json:/: missing required key; expected \"count\": the entries of its row a live request's table gets "
            "(num_blocks), got no key 'count'",
            Error(R"("pad": 0)"));
  EXPECT_EQ("f.json:/count: 't' cannot be read here (formula 't + 1'); expected a formula over a request's variables, "
            "the parameters and the lets (no token's)",
            Error(R"("count": "t + 1")"));
  EXPECT_EQ("f.json:/pad: 'seq_len' cannot be read here (formula 'seq_len'); expected a formula over the family's "
            "parameters",
            Error(R"("count": 1, "pad": "seq_len")"));
  EXPECT_EQ("f.json:/column: unknown key 'column'; expected one of slotguard_family, name, meaning, engine, kind, "
            "one_token_per_request, params, constraints, variants, let, count, pad, null_index, null_page",
            Error(R"("count": 1, "column": 0)"));
  EXPECT_EQ("f.json:/cont: unknown key 'cont', did you mean 'count'?; expected one of slotguard_family, name, "
            "meaning, engine, kind, one_token_per_request, params, constraints, variants, let, count, pad, "
            "null_index, null_page",
            Error(R"("count": 1, "cont": 0)"));
}

}  // namespace
}  // namespace slotguard
