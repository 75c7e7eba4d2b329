#include "plan/batch_arrays.h"

#include <algorithm>

#include "kernels/table_view.h"

namespace slotguard {

std::vector<int64_t> DefaultGateMapping(const Batch& batch, GateAbsent rule) {
  std::vector<int64_t> gate(static_cast<size_t>(batch.num_tokens));
  WriteDefaultGateMapping(batch, gate.data(), rule);
  return gate;
}

void WriteDefaultGateMapping(const Batch& batch, int64_t* out, GateAbsent rule) {
  if (rule == GateAbsent::kPass) {
    std::fill(out, out + batch.num_tokens, 0);
    return;
  }
  std::fill(out, out + batch.num_tokens, kPadSlot);
  for (int32_t r = 0; r < batch.num_reqs(); ++r)
    if (!batch.is_dummy(r)) std::fill(out + batch.query_start_loc[r], out + batch.query_start_loc[r + 1], 0);
}

std::vector<int32_t> SaturatedSeqLens(const Batch& batch) {
  std::vector<int32_t> out(batch.seq_lens.size());
  for (size_t r = 0; r < out.size(); ++r)
    out[r] = static_cast<int32_t>(std::min<int64_t>(batch.seq_lens[r], INT32_MAX));
  return out;
}

std::vector<int32_t> TokenRequests(const Batch& batch) {
  std::vector<int32_t> owner(static_cast<size_t>(batch.num_tokens), -1);
  const int32_t reqs = batch.num_reqs();
  for (int32_t r = 0; r < reqs; ++r)
    for (int64_t t = batch.query_start_loc[r]; t < batch.query_start_loc[r + 1] && t < batch.num_tokens; ++t)
      owner[static_cast<size_t>(t)] = r;
  return owner;
}

MappingBatch HostMappingBatch(const Batch& batch, const ProviderArrays* extra) {
  MappingBatch b;
  b.query_start_loc = batch.query_start_loc.data();
  b.positions = batch.positions.data();
  b.seq_lens = batch.seq_lens.data();
  b.seq_lens_i32 = extra ? extra->seq_lens_i32.data() : nullptr;
  b.request_of_token = extra ? extra->request_of_token.data() : nullptr;
  b.rows_by_idx_mapping = batch.table_rows == TableRows::kIdxMapping ? 1 : 0;
  b.dummy_run = batch.dummy_run ? 1 : 0;
  b.idx_mapping = batch.idx_mapping.data();
  b.slot_mapping_in = batch.slot_mapping_in.data();
  b.num_reqs = batch.num_reqs();
  b.num_real_tokens = batch.num_real_tokens();
  b.num_actual_tokens = batch.num_actual_tokens;
  b.num_tokens = batch.num_tokens;
  return b;
}

void MarkPoisonReads(const std::vector<int64_t>& out, int64_t slots_per_entry,
                     std::vector<uint8_t>* read_past_row) {
  // The poison block's slots, without a division per token.
  const int64_t first = int64_t{kPoisonBlock} * slots_per_entry, end = first + slots_per_entry;
  // Never past the marks' own length (an output longer than the tokens is not a per-token one).
  for (size_t t = 0; t < out.size() && t < read_past_row->size(); ++t)
    if (out[t] >= first && out[t] < end) (*read_past_row)[t] = 1;
}

}  // namespace slotguard
