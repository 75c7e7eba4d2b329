// The per-request interpreter (family/request_plan.h): state indices and
// block operations of small batches worked out by hand from the
// descriptions below, with the facts the invariants judge by; the ops and
// output lengths; the null and skip tests.
#include <gtest/gtest.h>

#include "family/family_file.h"
#include "family/request_plan.h"
#include "testing/make_table.h"

namespace slotguard {
namespace {

// Mamba-style: column 0, or the column of seq_len - 1 in align mode; padded
// and dummy rows carry the marker 0; block 0 is null.
const char* kStateText = R"j({
  "slotguard_family": 1, "kind": "state_index", "name": "t_state", "meaning": "m",
  "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 4},
             {"name": "align", "type": "bool", "default": false, "meaning": "a"}],
  "dummy": "pad", "column": "align * max((seq_len - 1) / block_size, 0)", "range": "pad",
  "marker": 0, "null_index": "index == 0",
  "consumers": [{"name": "scan", "skip": "index == 0"}, {"name": "fla", "skip": "index <= 0"},
                {"name": "old", "skip": "index == -1"}],
  "null_page": "pristine"})j";

// Mamba prefix-cache copy: src = column cdiv(seq_len - q, bs) - 1, dst =
// column cdiv(seq_len, bs) - 1, only when the state moves to a new block;
// a null source is not copied.
const char* kCopyText = R"j({
  "slotguard_family": 1, "kind": "block_op", "name": "t_copy", "meaning": "m",
  "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 4}],
  "op": "copy", "ops": 1,
  "let": {"prev": "cdiv(seq_len - q, block_size) - 1", "curr": "cdiv(seq_len, block_size) - 1"},
  "select": ["prev >= 0", "prev != curr"], "src": "prev", "dst": "curr",
  "dummy": "pad", "range": "pad", "null_index": "index == 0", "skip_null_src": true,
  "null_page": "pristine"})j";

// A store of every column of the row: ops = width.
const char* kStoreText = R"j({
  "slotguard_family": 1, "kind": "block_op", "name": "t_store", "meaning": "m",
  "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 4}],
  "op": "store", "ops": "width", "select": ["op * block_size < seq_len"], "src": "op",
  "dummy": "pad", "range": "pad", "null_index": "index == 0", "skip_null_src": true,
  "null_page": "pristine"})j";

FamilyDesc Load(const char* text) {
  FamilyDesc d;
  std::string err;
  EXPECT_TRUE(ParseFamilyDescription(text, "t.json", &d, &err)) << err;
  return d;
}

Batch MakeBatch(std::vector<int32_t> qsl, std::vector<int64_t> seq_lens, std::vector<int32_t> idx) {
  Batch b;
  b.query_start_loc = std::move(qsl);
  b.seq_lens = std::move(seq_lens);
  b.idx_mapping = std::move(idx);
  b.num_actual_tokens = b.num_tokens = b.query_start_loc.back();
  b.positions.assign(static_cast<size_t>(b.num_tokens), 0);
  return b;
}

using testing::MakeTable;

Interpretation Interp(const FamilyDesc& d, const std::vector<int64_t>& params, const Batch& b, const BlockTable& t) {
  Interpretation out;
  std::string err;
  EXPECT_TRUE(InterpretRequests(d, d.request, params, b, t, true, &out, &err)) << err;
  return out;
}

// r0: 1 token, seq_len 9, row [2, 5, 7]; r1: 2 tokens, seq_len 4, row
// [3, 0, 0]; r2: a dummy (idx_mapping -1, 0 tokens), row [6, 6, 6].
struct StateBatch {
  Batch batch = MakeBatch({0, 1, 3, 3}, {9, 4, 0}, {0, 1, -1});
  BlockTable table = MakeTable(3, 3, {2, 5, 7, 3, 0, 0, 6, 6, 6});
};

TEST(RequestPlanTest, StateIndexIsColumnZeroOrTheLastTokensColumnAndTheMarkerForADummy) {
  const FamilyDesc d = Load(kStateText);
  StateBatch s;
  // none: column 0 of each live row; the dummy gets the marker 0 whatever its row holds.
  Interpretation none = Interp(d, {4, 0}, s.batch, s.table);
  ASSERT_EQ(1u, none.slots.size());
  EXPECT_EQ((std::vector<int64_t>{2, 3, 0}), none.slots[0]);
  EXPECT_EQ((std::vector<uint8_t>{kFactLiveIndex, kFactLiveIndex, kFactNoState | kFactMarker}), none.facts[0]);
  // align, block_size 4: r0's last token is position 8, column 2 -> 7; r1's is 3, column 0 -> 3.
  Interpretation align = Interp(d, {4, 1}, s.batch, s.table);
  EXPECT_EQ((std::vector<int64_t>{7, 3, 0}), align.slots[0]);
  // align, block_size 2: r1's column is 3 / 2 = 1, the null entry 0: no live index there.
  Interpretation null_entry = Interp(d, {2, 1}, s.batch, s.table);
  EXPECT_EQ((std::vector<int64_t>{0, 0, 0}), null_entry.slots[0]);  // r0: column 4 is past the row: PAD, the marker
  EXPECT_EQ((std::vector<uint8_t>{kFactMarker, 0, kFactNoState | kFactMarker}), null_entry.facts[0]);
}

TEST(RequestPlanTest, NullAndSkipTestsAndTheMarker) {
  const FamilyDesc d = Load(kStateText);
  const std::vector<int64_t> p = {4, 0};
  EXPECT_TRUE(IsNullIndex(d, d.request, p, 0));
  EXPECT_FALSE(IsNullIndex(d, d.request, p, 1));
  EXPECT_FALSE(IsNullIndex(d, d.request, p, -1));
  EXPECT_EQ(0, MarkerOf(d, d.request, p));
  ASSERT_EQ(3u, d.request.consumers.size());
  // The marker 0: scan and fla skip it, old (== -1) does not: the lightning mismatch.
  EXPECT_TRUE(ConsumerSkips(d, d.request.consumers[0], p, 0));
  EXPECT_TRUE(ConsumerSkips(d, d.request.consumers[1], p, 0));
  EXPECT_FALSE(ConsumerSkips(d, d.request.consumers[2], p, 0));
  // -1: only fla and old skip it.
  EXPECT_FALSE(ConsumerSkips(d, d.request.consumers[0], p, -1));
  EXPECT_TRUE(ConsumerSkips(d, d.request.consumers[1], p, -1));
  EXPECT_TRUE(ConsumerSkips(d, d.request.consumers[2], p, -1));
  // A live index is read by all three.
  for (const ConsumerDesc& c : d.request.consumers) EXPECT_FALSE(ConsumerSkips(d, c, p, 5)) << c.name;
}

TEST(RequestPlanTest, CopyMovesTheStateOnlyWhenItsBlockChangesAndNeverFromANullSource) {
  const FamilyDesc d = Load(kCopyText);
  EXPECT_EQ((std::vector<std::string>{"dst"}), RequestOutputSuffixes(d));
  // block_size 4.
  // r0: q 2, seq_len 9: prev = cdiv(7, 4) - 1 = 1, curr = cdiv(9, 4) - 1 = 2: copy row[1] = 5 -> row[2] = 7.
  // r1: q 1, seq_len 6: prev = cdiv(5, 4) - 1 = 1 = curr: no copy.
  // r2: q 3, seq_len 3: prev = cdiv(0, 4) - 1 = -1: a new request, no copy.
  // r3: q 1, seq_len 5: prev = 0, curr = 1: the source row[0] is the null block 0: skipped.
  // r4: a dummy: no copy.
  Batch b = MakeBatch({0, 2, 3, 6, 7, 7}, {9, 6, 3, 5, 0}, {0, 1, 2, 3, -1});
  BlockTable t = MakeTable(5, 3, {4, 5, 7, 8, 9, 10, 11, 12, 13, 0, 14, 15, 1, 1, 1});
  Interpretation out = Interp(d, {4}, b, t);
  ASSERT_EQ(2u, out.slots.size());
  EXPECT_EQ((std::vector<int64_t>{5, -1, -1, -1, -1}), out.slots[0]);
  EXPECT_EQ((std::vector<int64_t>{7, -1, -1, -1, -1}), out.slots[1]);
  EXPECT_EQ((std::vector<uint8_t>{kFactLiveIndex, kFactMarker, kFactMarker, kFactMarker, kFactNoState | kFactMarker}),
            out.facts[0]);
  // Without skip_null_src (the engine's copy), r3 copies block 0 into 14.
  FamilyDesc engine = d;
  engine.request.skip_null_src = false;
  Interpretation unfiltered = Interp(engine, {4}, b, t);
  EXPECT_EQ((std::vector<int64_t>{5, -1, -1, 0, -1}), unfiltered.slots[0]);
  EXPECT_EQ((std::vector<int64_t>{7, -1, -1, 14, -1}), unfiltered.slots[1]);
  EXPECT_EQ(kFactLiveIndex, unfiltered.facts[1][3]);  // the destination 14 is r3's own live block
}

TEST(RequestPlanTest, OpsPerRequestFollowTheWidthAndTheLengthIsRequestsTimesOps) {
  const FamilyDesc d = Load(kStoreText);
  int64_t ops = 0, length = 0;
  std::string err;
  ASSERT_TRUE(OpsPerRequest(d, d.request, {4}, 3, &ops, &err)) << err;
  EXPECT_EQ(3, ops);
  ASSERT_TRUE(RequestOutputLength(d, d.request, {4}, 3, 2, &length, &err)) << err;
  EXPECT_EQ(6, length);
  EXPECT_TRUE(RequestOutputSuffixes(d).empty());
  // r0: seq_len 9, row [2, 0, 7]: ops 0 (0 < 9: block 2), 1 (4 < 9, but block 0: skipped), 2 (8 < 9: 7).
  // r1: seq_len 4, row [3, 5, 6]: op 0 only (4 < 4 fails for op 1).
  Batch b = MakeBatch({0, 1, 2}, {9, 4}, {0, 1});
  Interpretation out = Interp(d, {4}, b, MakeTable(2, 3, {2, 0, 7, 3, 5, 6}));
  ASSERT_EQ(1u, out.slots.size());
  EXPECT_EQ((std::vector<int64_t>{2, -1, 7, 3, -1, -1}), out.slots[0]);
  // A state index has one element per request.
  const FamilyDesc s = Load(kStateText);
  ASSERT_TRUE(OpsPerRequest(s, s.request, {4, 0}, 3, &ops, &err));
  EXPECT_EQ(1, ops);
}

TEST(RequestPlanTest, ColumnsTheGeneratorSizesRowsBySkipDummies) {
  const FamilyDesc d = Load(kCopyText);
  Batch b = MakeBatch({0, 2, 3, 3}, {9, 6, 0}, {0, 1, -1});
  std::vector<std::tuple<int32_t, int64_t, bool>> seen;
  ForEachRequestColumn(d, d.request, {4}, b, 3,
                       [&](int32_t r, int64_t col, bool source) { seen.emplace_back(r, col, source); });
  // r0 copies column 1 into 2; r1 is not selected; r2 is a dummy.
  EXPECT_EQ((std::vector<std::tuple<int32_t, int64_t, bool>>{{0, 1, true}, {0, 2, false}}), seen);
}

// Stores in chunks of two blocks: a chunk is kept when its last block is
// real (skip_null_at), and inside it each null block is dropped.
const char* kChunkStoreText = R"j({
  "slotguard_family": 1, "kind": "block_op", "name": "t_chunks", "meaning": "m",
  "params": [{"name": "bpc", "meaning": "blocks per chunk", "min": 1, "example": 2}],
  "op": "store", "ops": "width", "let": {"chunk": "op / bpc"}, "select": ["chunk < width / bpc"], "src": "op",
  "skip_null_at": "chunk * bpc + bpc - 1",
  "dummy": "pad", "range": "pad", "null_index": "index == 0", "skip_null_src": true,
  "null_page": "pristine"})j";

TEST(RequestPlanTest, SkipNullAtCancelsAWholeChunkWhoseLastBlockIsNull) {
  const FamilyDesc d = Load(kChunkStoreText);
  // bpc 2. r0 row [4, 0, 0, 6, 7, 8]: chunk 0's last block (column 1) is 0,
  // so block 4 is not stored; chunk 1 keeps 6 and drops its null column 2;
  // chunk 2 stores 7 and 8. r1 row [9, 10, 11, 0, 12, 13]: chunk 1's last
  // block is 0: 11 is not stored. r2 row of width 5 [1, 2, 3, 5, 6]: 5 / 2 =
  // 2 chunks, column 4 is in no chunk (the select).
  Batch b = MakeBatch({0, 1, 2, 3}, {4, 4, 4}, {0, 1, 2});
  BlockTable t = MakeTable(3, 6, {4, 0, 0, 6, 7, 8, 9, 10, 11, 0, 12, 13, 1, 2, 3, 5, 6, 0});
  t.lengths = {6, 6, 5};
  Interpretation out = Interp(d, {2}, b, t);
  ASSERT_EQ(1u, out.slots.size());
  EXPECT_EQ((std::vector<int64_t>{-1, -1, -1, 6, 7, 8, 9, 10, -1, -1, 12, 13, 1, 2, 3, 5, -1, -1}), out.slots[0]);
  EXPECT_EQ(kFactMarker, out.facts[0][0]);  // no store of block 4: an implementation must give -1 there
  // With one block per chunk the test is each block's own: block 4 is stored.
  Interpretation one = Interp(d, {1}, b, t);
  EXPECT_EQ(4, one.slots[0][0]);
  // The column it reads sizes the generator's rows, as a source does.
  std::vector<int64_t> cols;
  ForEachRequestColumn(d, d.request, {3}, MakeBatch({0, 1}, {4}, {0}), 6,
                       [&](int32_t, int64_t col, bool source) { if (source) cols.push_back(col); });
  // bpc 3, width 6: ops 0..5, chunks 0 and 1: for each op its chunk's last column, then the op's own.
  EXPECT_EQ((std::vector<int64_t>{2, 0, 2, 1, 2, 2, 5, 3, 5, 4, 5, 5}), cols);
}

TEST(RequestPlanTest, SkipNullAtIsAFormulaOfTheOperationNotOfAToken) {
  std::string text = kChunkStoreText;
  text.replace(text.find("chunk * bpc + bpc - 1"), 21, "pos / bpc");
  FamilyDesc d;
  std::string err;
  EXPECT_FALSE(ParseFamilyDescription(text, "t.json", &d, &err));
  EXPECT_NE(std::string::npos, err.find("t.json:/skip_null_at")) << err;
  EXPECT_NE(std::string::npos, err.find("pos")) << err;
  // A variant drops the test with false: block 4 of a null-ended chunk is then stored.
  std::string unfiltered = kChunkStoreText;
  unfiltered.replace(unfiltered.rfind('}'), 1, R"j(, "variants": [{"name": "v", "meaning": "m", "set": {"skip_null_at": false}}]})j");
  const FamilyDesc u = Load(unfiltered.c_str());
  ASSERT_EQ(1u, u.variants.size());
  EXPECT_TRUE(u.variants[0].request.skip_null_at.empty());
  EXPECT_FALSE(u.request.skip_null_at.empty());
  FamilyDesc as_variant = u;
  as_variant.request = u.variants[0].request;
  Interpretation out = Interp(as_variant, {2}, MakeBatch({0, 1}, {4}, {0}), MakeTable(1, 2, {4, 0}));
  EXPECT_EQ((std::vector<int64_t>{4, -1}), out.slots[0]);
}

}  // namespace
}  // namespace slotguard
