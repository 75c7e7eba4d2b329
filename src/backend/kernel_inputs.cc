#include "backend/kernel_inputs.h"

#include <algorithm>

#include "kernels/table_view.h"

namespace slotguard {

PagedParams MakePagedParams(const Group& group, const int64_t*) {
  PagedParams p;
  p.block_size = group.block_size;
  p.kernel_block_size = group.kernel_block_size;
  p.dcp_world = group.dcp.world;
  p.dcp_rank = group.dcp.rank;
  p.dcp_interleave = group.dcp.interleave;
  p.enabled = group.enabled ? 1 : 0;
  p.variant = group.variant;
  p.kernel_block_div = MakeFastDivisor(group.kernel_block_size);
  p.virtual_block_div = MakeFastDivisor(int64_t{group.block_size} * group.dcp.world);
  p.interleave_div = MakeFastDivisor(group.dcp.interleave);
  p.world_div = MakeFastDivisor(group.dcp.world);
  p.interleave_world_div = MakeFastDivisor(int64_t{group.dcp.interleave} * group.dcp.world);
  return p;
}

KpoolTailParams MakeKpoolTailParams(const Group& group, const int64_t*) {
  KpoolTailParams p;
  p.kpool = group.kpool;
  p.kpool_div = MakeFastDivisor(group.kpool);
  p.variant = group.variant;
  return p;
}

QsaRingParams MakeQsaRingParams(const Group& group, const int64_t*) {
  QsaRingParams p;
  p.ring = group.ring;
  p.ring_div = MakeFastDivisor(group.ring);
  p.variant = group.variant;
  return p;
}

QsaCompressedParams MakeQsaCompressedParams(const Group& group, const int64_t* common) {
  QsaCompressedParams p;
  p.block_size = group.block_size;
  p.block_div = MakeFastDivisor(group.block_size);
  p.ratio_div = MakeFastDivisor(group.compress_ratio);
  p.common = common;
  p.variant = group.variant;
  return p;
}

CompressorRingParams MakeCompressorRingParams(const Group& group, const int64_t*) {
  CompressorRingParams p;
  p.capacity = group.capacity;
  p.ring_block_size = group.ring_block_size;
  p.capacity_div = MakeFastDivisor(group.capacity);
  p.ring_block_div = MakeFastDivisor(group.ring_block_size);
  p.variant = group.variant;
  return p;
}

std::vector<size_t> RunOrder(const Scenario& scenario) {
  std::vector<size_t> order;
  for (size_t i = 0; i < scenario.groups.size(); ++i)
    if (!ReadsAnotherGroup(scenario.groups[i].family)) order.push_back(i);
  for (size_t i = 0; i < scenario.groups.size(); ++i)
    if (ReadsAnotherGroup(scenario.groups[i].family)) order.push_back(i);
  return order;
}

int CommonGroupIndex(const Scenario& scenario, const Group& group) {
  const std::string name = ReadGroupName(group);
  if (name.empty()) return -1;
  for (size_t i = 0; i < scenario.groups.size(); ++i)
    if (scenario.groups[i].name == name) return static_cast<int>(i);
  return -1;
}

std::vector<int64_t> DefaultCommonMapping(const Batch& batch) {
  std::vector<int64_t> common(batch.num_tokens);
  WriteDefaultCommonMapping(batch, common.data());
  return common;
}

void WriteDefaultCommonMapping(const Batch& batch, int64_t* out) {
  std::fill(out, out + batch.num_real_tokens(), 0);
  std::fill(out + batch.num_real_tokens(), out + batch.num_tokens, kPadSlot);
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
  for (size_t t = 0; t < out.size(); ++t)
    if (out[t] >= first && out[t] < end) (*read_past_row)[t] = 1;
}

}  // namespace slotguard
