// The ring references against anchors computed by hand from docs/families.md.
#include <gtest/gtest.h>

#include "reference/reference.h"

namespace slotguard {
namespace {

Batch MakeBatch(std::vector<int32_t> qsl, std::vector<int64_t> positions, std::vector<int64_t> seq_lens,
                int64_t num_actual_tokens) {
  Batch b;
  b.query_start_loc = std::move(qsl);
  b.positions = std::move(positions);
  b.seq_lens = std::move(seq_lens);
  b.num_tokens = b.positions.size();
  b.num_actual_tokens = num_actual_tokens;
  b.idx_mapping.assign(b.num_reqs(), 0);
  b.slot_mapping_in.assign(b.num_tokens, -1);
  return b;
}

Group Ring(Family family, BlockTable table) {
  Group g;
  g.name = "g";
  g.family = family;
  g.table = std::move(table);
  return g;
}

TEST(KpoolTailReferenceTest, ClampsToTheLastRequestAndCopiesTheRest) {
  // kpool 4. Request 0 (block 3) pos 5,6 -> 12+1, 12+2; request 1 (block 0): PAD;
  // token 3 (past qsl[R] = 3, < N_act = 4) belongs to request 1: PAD;
  // token 4 >= N_act: slot_mapping_in.
  Batch b = MakeBatch({0, 2, 3}, {5, 6, 0, 0, 0}, {7, 1}, 4);
  b.slot_mapping_in = {-1, -1, -1, -1, 777};
  Group g = Ring(Family::kKpoolTail, {2, 1, {3, 0}});
  SetParam(&g, "kpool", 4);
  EXPECT_EQ((std::vector<int64_t>{13, 14, -1, -1, 777}), ReferenceKpoolTail(b, g));
  // The same token past qsl[R] on a live last request takes its block.
  g.table = {2, 1, {3, 5}};
  EXPECT_EQ((std::vector<int64_t>{13, 14, 20, 20, 777}), ReferenceKpoolTail(b, g));
}

TEST(QsaRingReferenceTest, KeepsTheLastCTokens) {
  // ring 2; q 3, seq 5: lp 2,3,4; keep t + 2 >= 3 -> t 1,2: 4*2 + 3%2 = 9, 8 + 0 = 8.
  const Batch b = MakeBatch({0, 3}, {2, 3, 4, 0}, {5}, 3);
  Group g = Ring(Family::kQsaRing, {1, 1, {4}});
  SetParam(&g, "ring", 2);
  EXPECT_EQ((std::vector<int64_t>{-1, 9, 8, -1}), ReferenceQsaRing(b, g));
  // lp < 0: seq_len shorter than the query.
  const Batch short_seq = MakeBatch({0, 3}, {0, 0, 0}, {1}, 3);
  SetParam(&g, "ring", 8);
  EXPECT_EQ((std::vector<int64_t>{-1, -1, 32}), ReferenceQsaRing(short_seq, g));
}

TEST(QsaCompressedReferenceTest, EveryRatioThPositionGatedByCommon) {
  // S 2, cr 3: lp 0..6; valid lp 2 (cp 0), 5 (cp 1): col 0, block 7 -> 14, 15.
  const Batch b = MakeBatch({0, 7}, {0, 1, 2, 3, 4, 5, 6}, {7}, 7);
  Group g = Ring(Family::kQsaCompressed, {1, 1, {7}});
  SetParam(&g, "block_size", 2);
  SetParam(&g, "compress_ratio", 3);
  std::vector<int64_t> common(7, 0);
  EXPECT_EQ((std::vector<int64_t>{-1, -1, 14, -1, -1, 15, -1}), ReferenceQsaCompressed(b, g, common));
  common[5] = -1;
  EXPECT_EQ((std::vector<int64_t>{-1, -1, 14, -1, -1, -1, -1}), ReferenceQsaCompressed(b, g, common));
}

TEST(CompressorRingReferenceTest, RingAndTail) {
  // capacity 4, ring blocks of 2 (2 columns: blocks 5, 6). q 6, pos 0..5:
  // rows 0,1,2,3,0,1 -> 10,11,12+0,13,10,11; tail keeps t + 4 >= 6 (t >= 2).
  const Batch b = MakeBatch({0, 6}, {0, 1, 2, 3, 4, 5, 0}, {6}, 6);
  Group g = Ring(Family::kCompressorRing, {1, 2, {5, 6}});
  SetParam(&g, "capacity", 4);
  SetParam(&g, "ring_block_size", 2);
  const auto out = ReferenceCompressorRing(b, g);
  EXPECT_EQ((std::vector<int64_t>{10, 11, 12, 13, 10, 11, -1}), out[0]);
  EXPECT_EQ((std::vector<int64_t>{-1, -1, 12, 13, 10, 11, -1}), out[1]);
  // num_actual_tokens 3 < qsl[R]: tokens from 3 are PAD in both outputs.
  const Batch fewer = MakeBatch({0, 6}, {0, 1, 2, 3, 4, 5, 0}, {6}, 3);
  EXPECT_EQ((std::vector<int64_t>{10, 11, 12, -1, -1, -1, -1}), ReferenceCompressorRing(fewer, g)[0]);
}

}  // namespace
}  // namespace slotguard
