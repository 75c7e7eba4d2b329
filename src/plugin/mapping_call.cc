#include "plugin/mapping_call.h"

#include <algorithm>

#include "plugin/mapping_provider.h"
#include "registry/families.h"
#include "scenario/family_params.h"

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
  call.seq_lens_i32 = batch.seq_lens_i32;
  call.idx_mapping = batch.idx_mapping;
  call.slot_mapping_in = batch.slot_mapping_in;
  call.num_reqs = batch.num_reqs;
  call.num_actual_tokens = batch.num_actual_tokens;
  call.num_real_tokens = batch.num_real_tokens;
  call.num_tokens = batch.num_tokens;
  call.block_table = table.data;
  call.block_table_row_stride = table.row_stride;
  call.block_table_width = table.width;
  call.block_table_rows = table.rows;
  call.block_table_rows_by_idx_mapping = batch.rows_by_idx_mapping;
  call.slot_mapping = out.slot;
  call.tail_slot_mapping = OutputCount(group) > 1 ? out.tail : nullptr;
  // The family's parameters, as family_params.def binds them.
#define SG_INT_PARAM(id, member, key, min, max, default_value, divides, times, plugin, example, shrinks, meaning) \
  if (group.family == Family::k##id) call.plugin = group.member;
#define SG_BOOL_PARAM(id, member, key, default_value, plugin, meaning) \
  if (group.family == Family::k##id) call.plugin = group.member ? 1 : 0;
#define SG_GROUP_PARAM(id, member, key, target, plugin, meaning) \
  if (group.family == Family::k##id) call.plugin = common;
#include "registry/family_params.def"
#undef SG_INT_PARAM
#undef SG_BOOL_PARAM
#undef SG_GROUP_PARAM
  call.stream = stream;
  call.request_of_token = batch.request_of_token;
  return call;
}

std::string ProviderCannotTake(const MappingProvider& provider, const Batch& batch) {
  if (provider.reads_persistent_tables()) return "";  // ABI 2 / spec 2: int64 seq_lens
  const int64_t most = batch.seq_lens.empty() ? 0 : *std::max_element(batch.seq_lens.begin(), batch.seq_lens.end());
  if (most <= INT32_MAX) return "";
  return provider.name() + " takes int32 seq_lens (plugin ABI 1 or kernel spec 1) and this batch's reach " +
         std::to_string(most) + "; rebuild it against plugin ABI 2 (spec 2) to check it on such a batch";
}

}  // namespace slotguard
