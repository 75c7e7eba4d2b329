// Reference for the `paged` family, transcribed from docs/families.md, paged:
//   token of request r: dummy (idx_mapping[r] == -1) -> PAD; else with DCP
//   vbs = block_size*world, off = pos % vbs,
//   local = pos / vbs * block_size + (off / (interleave*world))*interleave + off % interleave,
//   owned iff (off / interleave) % world == rank, else PAD;
//   col = local / kernel_block_size; col >= width -> PAD;
//   slot = bt[r, col] * kernel_block_size + local % kernel_block_size
//   (bt[idx_mapping[r], col] with a persistent table, format 2).
//   Tokens qsl[R] <= t < N -> PAD. A disabled group is PAD everywhere.
#include "reference/reference.h"

namespace slotguard {

std::vector<int64_t> ReferencePaged(const Batch& batch, const Group& group) {
  std::vector<int64_t> out(batch.num_tokens, kPadSlot);
  if (!ParamOf(group, "enabled")) return out;
  const int64_t block_size = ParamOf(group, "block_size");
  const int64_t kernel_block_size = ParamOf(group, "kernel_block_size");
  const int64_t world = ParamOf(group, "dcp_world");
  const int64_t rank = ParamOf(group, "dcp_rank");
  const int64_t interleave = ParamOf(group, "dcp_interleave");
  for (int32_t r = 0; r < batch.num_reqs(); ++r) {
    if (batch.is_dummy(r)) continue;  // dummy request: every token PAD
    const int32_t row = batch.row_of(r);
    for (int64_t t = batch.query_start_loc[r]; t < batch.query_start_loc[r + 1]; ++t) {
      const int64_t pos = batch.positions[t];
      int64_t local = pos;  // the formula below with world 1 reduces to pos
      if (world > 1) {
        const int64_t vbs = block_size * world;
        const int64_t off = pos % vbs;
        if ((off / interleave) % world != rank) continue;
        local = pos / vbs * block_size + (off / (interleave * world)) * interleave + off % interleave;
      }
      const int64_t col = local / kernel_block_size;
      if (col >= group.table.width) continue;
      const int64_t block = group.table.at(row, static_cast<int32_t>(col));
      out[t] = block * kernel_block_size + local % kernel_block_size;
    }
  }
  return out;
}

std::vector<std::vector<int64_t>> HandReferencePaged(const Scenario& s, const Group& g) {
  return {ReferencePaged(s.batch, g)};
}

}  // namespace slotguard
