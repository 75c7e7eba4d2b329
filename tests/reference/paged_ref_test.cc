// The reference against anchors computed by hand from docs/families.md, paged.
#include "reference/reference.h"

#include <gtest/gtest.h>

namespace slotguard {
namespace {

Batch MakeBatch(std::vector<int32_t> qsl, std::vector<int64_t> positions,
                std::vector<int32_t> idx_mapping = {}) {
  Batch b;
  b.query_start_loc = std::move(qsl);
  b.positions = std::move(positions);
  b.num_tokens = b.positions.size();
  b.num_actual_tokens = b.query_start_loc.back();
  b.idx_mapping = idx_mapping.empty() ? std::vector<int32_t>(b.num_reqs(), 0) : idx_mapping;
  b.seq_lens.assign(b.num_reqs(), 0);
  b.slot_mapping_in.assign(b.num_tokens, -1);
  return b;
}

Group MakeGroup(int32_t block_size, BlockTable table, int32_t kernel_block_size = 0) {
  Group g;
  g.name = "g";
  SetParam(&g, "block_size", block_size);
  SetParam(&g, "kernel_block_size", kernel_block_size ? kernel_block_size : block_size);
  g.table = std::move(table);
  return g;
}

TEST(PagedReferenceTest, PlainPaging) {
  // pos 5, block_size 4: col 1, offset 1 -> 9 * 4 + 1 = 37.
  const Batch b = MakeBatch({0, 2}, {4, 5});
  EXPECT_EQ((std::vector<int64_t>{36, 37}), ReferencePaged(b, MakeGroup(4, {1, 2, {3, 9}})));
}

TEST(PagedReferenceTest, PaddingDummiesAndTheRangeGuard) {
  // Token 0: pos 8 -> col 2 >= width 2 -> PAD. Token 1: dummy -> PAD. Token 2: padding -> PAD.
  const Batch b = MakeBatch({0, 1, 2}, {8, 0, 0}, {0, -1});
  EXPECT_EQ((std::vector<int64_t>{-1, -1, -1}), ReferencePaged(b, MakeGroup(4, {2, 2, {3, 9, 5, 6}})));
}

TEST(PagedReferenceTest, HybridKernelBlocks) {
  // block_size 8 = 2 kernel blocks of 4; pos 6 -> col 1 -> kernel block 11 -> 46.
  const Batch b = MakeBatch({0, 1}, {6});
  EXPECT_EQ((std::vector<int64_t>{46}), ReferencePaged(b, MakeGroup(8, {1, 2, {10, 11}}, 4)));
}

TEST(PagedReferenceTest, DcpWorld2) {
  // world 2, rank 1, interleave 1, block_size 2: vbs 4, off = pos % 4,
  // owner = off % 2, local = pos / 4 * 2 + off / 2.
  // pos 1 -> local 0 -> 5*2+0 = 10; pos 3 -> local 1 -> 11; pos 5 -> local 2 -> col 1 -> 7*2 = 14.
  const Batch b = MakeBatch({0, 6}, {0, 1, 2, 3, 4, 5});
  Group g = MakeGroup(2, {1, 2, {5, 7}});
  SetParam(&g, "dcp_world", 2);
  SetParam(&g, "dcp_rank", 1);
  SetParam(&g, "dcp_interleave", 1);
  EXPECT_EQ((std::vector<int64_t>{-1, 10, -1, 11, -1, 14}), ReferencePaged(b, g));
}

TEST(PagedReferenceTest, MinusOneEntryIsNotAGuard) {
  // The spec has no guard for -1 entries: -1 * 4 + 2 = -2, which pad_exact reports.
  const Batch b = MakeBatch({0, 1}, {2});
  EXPECT_EQ((std::vector<int64_t>{-2}), ReferencePaged(b, MakeGroup(4, {1, 1, {-1}})));
}

TEST(PagedReferenceTest, SlotsPastInt32) {
  const Batch b = MakeBatch({0, 1}, {1});
  EXPECT_EQ((std::vector<int64_t>{int64_t{2147483646} * 16 + 1}),
            ReferencePaged(b, MakeGroup(16, {1, 1, {2147483646}})));
}

TEST(PagedReferenceTest, DisabledGroup) {
  const Batch b = MakeBatch({0, 1}, {1});
  Group g = MakeGroup(4, {1, 1, {3}});
  SetParam(&g, "enabled", false);
  EXPECT_EQ((std::vector<int64_t>{-1}), ReferencePaged(b, g));
}

}  // namespace
}  // namespace slotguard
