// Reference for `kpool_tail`, transcribed from docs/families.md, kpool_tail:
//   token t < N_act: r = last request with qsl[r] <= t, clamped to [0, R-1];
//   b = bt[r, 0] (with a persistent table bt[idx_mapping[r], 0], and a dummy
//   request reads no row: PAD); b > 0 -> slot = b*kpool + pos mod kpool (floor), else PAD.
//   tokens N_act <= t < N -> slot_mapping_in[t] unchanged.
#include "reference/reference.h"

namespace slotguard {

std::vector<int64_t> ReferenceKpoolTail(const Batch& batch, const Group& group) {
  std::vector<int64_t> out(batch.slot_mapping_in);  // tokens >= N_act keep these
  const int32_t R = batch.num_reqs();
  const int64_t kpool = ParamOf(group, "kpool");
  int32_t last = 0;  // the last r with qsl[r] <= t (t only grows)
  for (int64_t t = 0; t < batch.num_actual_tokens; ++t) {
    out[t] = kPadSlot;
    if (R == 0) continue;  // no request to clamp to
    while (last + 1 <= R && batch.query_start_loc[last + 1] <= t) ++last;
    const int32_t r = last > R - 1 ? R - 1 : last;
    if (batch.row_of(r) < 0) continue;  // a dummy of a persistent table
    const int64_t b = group.table.at(batch.row_of(r), 0);
    if (b <= 0) continue;
    const int64_t pos = batch.positions[t];
    int64_t offset = pos % kpool;  // floor modulo
    if (offset < 0) offset += kpool;
    out[t] = b * kpool + offset;
  }
  return out;
}

std::vector<std::vector<int64_t>> HandReferenceKpoolTail(const Scenario& s, const Group& g) {
  return {ReferenceKpoolTail(s.batch, g)};
}

}  // namespace slotguard
