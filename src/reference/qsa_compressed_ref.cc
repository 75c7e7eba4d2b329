// Reference for `qsa_compressed`, transcribed from docs/families.md, qsa_compressed:
//   t < qsl[R], lp as in qsa_ring: valid iff lp >= 0, (lp+1) % cr == 0,
//   cp = lp / cr, col = cp / S < width, b = bt[r, col] >= 0 and
//   common[t] >= 0; then slot = b*S + cp % S, else PAD.
#include "reference/reference.h"

namespace slotguard {

std::vector<int64_t> ReferenceQsaCompressed(const Batch& batch, const Group& group,
                                            const std::vector<int64_t>& common) {
  std::vector<int64_t> out(batch.num_tokens, kPadSlot);
  const int64_t S = ParamOf(group, "block_size");
  const int64_t cr = ParamOf(group, "compress_ratio");
  for (int32_t r = 0; r < batch.num_reqs(); ++r) {
    const int32_t row = batch.row_of(r);  // -1: a dummy of a persistent table, all PAD
    if (row < 0) continue;
    const int64_t begin = batch.query_start_loc[r];
    const int64_t end = batch.query_start_loc[r + 1];
    for (int64_t t = begin; t < end; ++t) {
      const int64_t lp = batch.seq_lens[r] - (end - begin) + (t - begin);
      if (lp < 0 || (lp + 1) % cr != 0) continue;
      const int64_t cp = lp / cr;
      const int64_t col = cp / S;
      if (col >= group.table.width) continue;
      const int64_t b = group.table.at(row, static_cast<int32_t>(col));
      if (b < 0 || common[t] < 0) continue;
      out[t] = b * S + cp % S;
    }
  }
  return out;
}

/// The common mapping: the `common` paged group's hand reference, or, when
/// the scenario names none, what a paged group would give: PAD for tokens
/// t >= qsl[R] and for every token of a dummy request, 0 otherwise.
std::vector<std::vector<int64_t>> HandReferenceQsaCompressed(const Scenario& s, const Group& g) {
  const std::string common_name = LinkOf(g, "common");
  for (const Group& other : s.groups)
    if (!common_name.empty() && other.name == common_name)
      return {ReferenceQsaCompressed(s.batch, g, ReferencePaged(s.batch, other))};
  std::vector<int64_t> common(s.batch.num_tokens, kPadSlot);
  for (int32_t r = 0; r < s.batch.num_reqs(); ++r)
    if (!s.batch.is_dummy(r))
      for (int64_t t = s.batch.query_start_loc[r]; t < s.batch.query_start_loc[r + 1]; ++t) common[t] = 0;
  return {ReferenceQsaCompressed(s.batch, g, common)};
}

}  // namespace slotguard
