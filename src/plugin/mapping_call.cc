#include "plugin/mapping_call.h"

#include <algorithm>

#include "plan/scenario_plan.h"
#include "registry/families.h"
#include "family/group_model.h"

namespace slotguard {

const std::vector<Abi2Field>& Abi2Fields() {
  // The members of sg_mapping_call that carry the built-in families'
  // parameters (include/slotguard/plugin.h), by the parameter's name in
  // its description.
  static const std::vector<Abi2Field> fields = {
      {Family::kPaged, "block_size", [](sg_mapping_call* c, int64_t v) { c->paged.block_size = static_cast<int32_t>(v); },
       [](const sg_mapping_call& c) -> int64_t { return c.paged.block_size; }},
      {Family::kPaged, "kernel_block_size",
       [](sg_mapping_call* c, int64_t v) { c->paged.kernel_block_size = static_cast<int32_t>(v); },
       [](const sg_mapping_call& c) -> int64_t { return c.paged.kernel_block_size; }},
      {Family::kPaged, "dcp_world", [](sg_mapping_call* c, int64_t v) { c->paged.dcp_world = static_cast<int32_t>(v); },
       [](const sg_mapping_call& c) -> int64_t { return c.paged.dcp_world; }},
      {Family::kPaged, "dcp_rank", [](sg_mapping_call* c, int64_t v) { c->paged.dcp_rank = static_cast<int32_t>(v); },
       [](const sg_mapping_call& c) -> int64_t { return c.paged.dcp_rank; }},
      {Family::kPaged, "dcp_interleave",
       [](sg_mapping_call* c, int64_t v) { c->paged.dcp_interleave = static_cast<int32_t>(v); },
       [](const sg_mapping_call& c) -> int64_t { return c.paged.dcp_interleave; }},
      {Family::kPaged, "enabled", [](sg_mapping_call* c, int64_t v) { c->paged.enabled = static_cast<int32_t>(v); },
       [](const sg_mapping_call& c) -> int64_t { return c.paged.enabled; }},
      {Family::kKpoolTail, "kpool", [](sg_mapping_call* c, int64_t v) { c->kpool_tail.kpool = static_cast<int32_t>(v); },
       [](const sg_mapping_call& c) -> int64_t { return c.kpool_tail.kpool; }},
      {Family::kQsaRing, "ring", [](sg_mapping_call* c, int64_t v) { c->qsa_ring.ring = static_cast<int32_t>(v); },
       [](const sg_mapping_call& c) -> int64_t { return c.qsa_ring.ring; }},
      {Family::kQsaCompressed, "block_size",
       [](sg_mapping_call* c, int64_t v) { c->qsa_compressed.block_size = static_cast<int32_t>(v); },
       [](const sg_mapping_call& c) -> int64_t { return c.qsa_compressed.block_size; }},
      {Family::kQsaCompressed, "compress_ratio",
       [](sg_mapping_call* c, int64_t v) { c->qsa_compressed.compress_ratio = static_cast<int32_t>(v); },
       [](const sg_mapping_call& c) -> int64_t { return c.qsa_compressed.compress_ratio; }},
      {Family::kCompressorRing, "capacity",
       [](sg_mapping_call* c, int64_t v) { c->compressor_ring.capacity = static_cast<int32_t>(v); },
       [](const sg_mapping_call& c) -> int64_t { return c.compressor_ring.capacity; }},
      {Family::kCompressorRing, "ring_block_size",
       [](sg_mapping_call* c, int64_t v) { c->compressor_ring.ring_block_size = static_cast<int32_t>(v); },
       [](const sg_mapping_call& c) -> int64_t { return c.compressor_ring.ring_block_size; }},
  };
  return fields;
}

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
  // The family's parameters, where plugin ABI 2's per-family members carry them.
  for (const Abi2Field& f : Abi2Fields())
    if (f.family == group.family) f.set(&call, ParamOf(group, f.param));
  if (group.family == Family::kQsaCompressed) call.qsa_compressed.common_slot_mapping = common;
  // ABI 3: the family-neutral call.
  const GroupModel model(group);
  call.num_params = static_cast<int32_t>(model.params().size());
  call.param_names = model.param_name_ptrs().data();
  call.param_values = group.params.data();
  call.num_outputs = static_cast<int32_t>(model.mapping().outputs.size());
  for (int32_t o = 0; o < call.num_outputs && o < 2; ++o) call.output_names[o] = model.output_name_ptrs()[o];
  call.gate_slot_mapping = model.mapping().gate.present() ? common : nullptr;
  call.block_table_row_widths = stream == nullptr && !group.table.lengths.empty() ? group.table.lengths.data() : nullptr;
  // What the family computes and how long each output is: its kind's model
  // (0 when a block operation's ops formula fails), as the plan's step says.
  call.kind = model.kind().abi_kind();
  int64_t length = 0;
  std::string unused;
  if (!model.OutputLength(call.num_tokens, call.num_reqs, &length, &unused)) length = 0;
  call.output_length = length;
  call.stream = stream;
  call.request_of_token = batch.request_of_token;
  return call;
}

bool SetCallInputs(const Group& group, const Batch& batch, CallInputs* keep, sg_mapping_call* call, std::string* why) {
  const GroupModel model(group);
  const std::vector<InputDesc>& inputs = model.inputs();
  call->num_inputs = 0;
  if (inputs.empty()) return true;
  if (!model.InputValues(batch, &keep->values, why)) return false;
  keep->pointers.clear();
  keep->names.clear();
  keep->per_token.clear();
  for (size_t k = 0; k < inputs.size(); ++k) {
    keep->pointers.push_back(keep->values[k].data());
    keep->names.push_back(inputs[k].name.c_str());
    keep->per_token.push_back(inputs[k].per_token() ? 1 : 0);
  }
  call->num_inputs = static_cast<int32_t>(inputs.size());
  call->input_names = keep->names.data();
  call->input_per_token = keep->per_token.data();
  call->input_values = keep->pointers.data();
  return true;
}

sg_mapping_call MakeMappingCall(const StepCall& call, const StepArgs& args) {
  const PlanStep& step = call.plan->steps[args.step];
  const Group& group = call.plan->scenario->groups[step.group];
  sg_mapping_call c = MakeMappingCall(group, call.batch, args.table, args.out, args.gate, call.stream);
  c.output_length = step.output_length;  // the plan's: a slot per token, or per request
  return c;
}

}  // namespace slotguard
