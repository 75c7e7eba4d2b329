#include "plugin/mapping_call.h"

#include "registry/families.h"

namespace slotguard {

sg_mapping_call MakeMappingCall(const Group& group, const MappingBatch& batch, const TableLayout& table,
                                const MappingOutputs& out, const int64_t* common, void* stream) {
  sg_mapping_call call{};
  call.abi_version = SLOTGUARD_PLUGIN_ABI_VERSION;
  call.family = GetFamily(group.family).name;
  call.variant = GetVariant(group.variant).name;
  call.query_start_loc = batch.query_start_loc;
  call.positions = batch.positions;
  call.seq_lens = batch.seq_lens;
  call.idx_mapping = batch.idx_mapping;
  call.slot_mapping_in = batch.slot_mapping_in;
  call.num_reqs = batch.num_reqs;
  call.num_actual_tokens = batch.num_actual_tokens;
  call.num_tokens = batch.num_tokens;
  call.block_table = table.data;
  call.block_table_row_stride = table.row_stride;
  call.block_table_width = table.width;
  call.block_table_rows = table.rows;
  call.slot_mapping = out.slot;
  call.tail_slot_mapping = group.family == Family::kCompressorRing ? out.tail : nullptr;
  call.paged.block_size = group.block_size;
  call.paged.kernel_block_size = group.kernel_block_size;
  call.paged.dcp_world = group.dcp.world;
  call.paged.dcp_rank = group.dcp.rank;
  call.paged.dcp_interleave = group.dcp.interleave;
  call.paged.enabled = group.enabled ? 1 : 0;
  call.kpool_tail.kpool = group.kpool;
  call.qsa_ring.ring = group.ring;
  call.qsa_compressed.block_size = group.block_size;
  call.qsa_compressed.compress_ratio = group.compress_ratio;
  call.qsa_compressed.common_slot_mapping = common;
  call.compressor_ring.capacity = group.capacity;
  call.compressor_ring.ring_block_size = group.ring_block_size;
  call.stream = stream;
  return call;
}

}  // namespace slotguard
