// Reference for `compressor_ring`, transcribed from docs/families.md, compressor_ring:
//   t < min(N_act, qsl[R]): row = pos mod capacity,
//   b = bt[r, row / ring_block_size]; valid iff b > 0;
//   slot = b*ring_block_size + row % ring_block_size;
//   tail_slot[t] = slot iff also t + capacity >= qsl[r+1], else PAD.
//   Other tokens -> PAD in both outputs.
#include "reference/reference.h"

#include <algorithm>

namespace slotguard {

std::vector<std::vector<int64_t>> ReferenceCompressorRing(const Batch& batch, const Group& group) {
  std::vector<int64_t> slot(batch.num_tokens, kPadSlot);
  std::vector<int64_t> tail(batch.num_tokens, kPadSlot);
  const int64_t capacity = ParamOf(group, "capacity");
  const int64_t rbs = ParamOf(group, "ring_block_size");
  const int64_t limit = std::min<int64_t>(batch.num_actual_tokens, batch.num_real_tokens());
  for (int32_t r = 0; r < batch.num_reqs(); ++r) {
    const int32_t table_row = batch.row_of(r);  // -1: a dummy of a persistent table, all PAD
    if (table_row < 0) continue;
    const int64_t end = batch.query_start_loc[r + 1];
    for (int64_t t = batch.query_start_loc[r]; t < std::min(end, limit); ++t) {
      int64_t row = batch.positions[t] % capacity;  // floor modulo
      if (row < 0) row += capacity;
      const int64_t b = group.table.at(table_row, static_cast<int32_t>(row / rbs));
      if (b <= 0) continue;
      slot[t] = b * rbs + row % rbs;
      if (t + capacity >= end) tail[t] = slot[t];
    }
  }
  std::vector<std::vector<int64_t>> outputs(2);
  outputs[0] = std::move(slot);
  outputs[1] = std::move(tail);
  return outputs;
}

std::vector<std::vector<int64_t>> HandReferenceCompressorRing(const Scenario& s, const Group& g) {
  return ReferenceCompressorRing(s.batch, g);
}

}  // namespace slotguard
