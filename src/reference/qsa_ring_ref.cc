// Reference for `qsa_ring`, transcribed from docs/families.md, qsa_ring:
//   t < qsl[R]: r with qsl[r] <= t < qsl[r+1], q = qsl[r+1] - qsl[r],
//   lp = seq_lens[r] - q + (t - qsl[r]); valid iff lp >= 0, t + C >= qsl[r+1],
//   width > 0 and b = bt[r, 0] > 0; then slot = b*C + lp mod C, else PAD.
//   t >= qsl[R] -> PAD.
#include "reference/reference.h"

namespace slotguard {

std::vector<int64_t> ReferenceQsaRing(const Batch& batch, const Group& group) {
  std::vector<int64_t> out(batch.num_tokens, kPadSlot);
  const int64_t ring = ParamOf(group, "ring");
  for (int32_t r = 0; r < batch.num_reqs(); ++r) {
    const int32_t row = batch.row_of(r);  // -1: a dummy of a persistent table, all PAD
    if (row < 0) continue;
    const int64_t begin = batch.query_start_loc[r];
    const int64_t end = batch.query_start_loc[r + 1];
    for (int64_t t = begin; t < end; ++t) {
      const int64_t lp = batch.seq_lens[r] - (end - begin) + (t - begin);
      if (lp < 0 || t + ring < end || group.table.width == 0) continue;
      const int64_t b = group.table.at(row, 0);
      if (b <= 0) continue;
      out[t] = b * ring + lp % ring;
    }
  }
  return out;
}

std::vector<std::vector<int64_t>> HandReferenceQsaRing(const Scenario& s, const Group& g) {
  return {ReferenceQsaRing(s.batch, g)};
}

}  // namespace slotguard
