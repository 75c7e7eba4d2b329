// Turns scenario data into what the kernels take: each family's parameter
// block and the batch (the block tables: backend/table_memory.h). Shared by
// both backends.
#ifndef SLOTGUARD_BACKEND_KERNEL_INPUTS_H_
#define SLOTGUARD_BACKEND_KERNEL_INPUTS_H_

#include <cstdint>
#include <vector>

#include "kernels/family_slots.h"  // generated from registry/families.def
#include "kernels/mapping_batch.h"
#include "scenario/family_params.h"  // OutputCount, ParamOf
#include "scenario/scenario.h"

namespace slotguard {

/// The parameter block of a built-in kernel family's group: its kernel's
/// maker (<Id>Family::MakeParams) reading the group's parameters by name.
/// `linked` is the gate's linked output (qsa_compressed's common mapping).
template <class F>
typename F::Params MakeKernelParams(const Group& group, const int64_t* linked) {
  return F::MakeParams([&](const char* name) { return ParamOf(group, name); }, group.variant, linked);
}

/// Calls visit(<Id>Family{}, params) with the kernel trait and parameter
/// block of `group`, a group of a built-in kernel family (generated from
/// registry/families.def); a family without a kernel of slotguard's is
/// never visited (HasOwnKernel).
template <class Visitor>
void VisitFamily(const Group& group, const int64_t* linked, Visitor&& visit) {
  switch (group.family) {
#define SG_FAMILY(id, name) \
  case Family::k##id:       \
    return visit(id##Family{}, MakeKernelParams<id##Family>(group, linked));
#include "registry/families.def"
#undef SG_FAMILY
    default:
      return;
  }
}

/// Whether slotguard's own kernel runs the group: its variant is one the
/// built-in kernels implement (registry/families.def).
inline bool HasOwnKernel(const Group& group) { return GetVariant(group.variant).kernel; }

/// The gate mapping a group reads when the scenario names no linked group
/// (the description's "absent" rule): under pad_dummies (every built-in
/// kernel's), PAD for tokens past qsl[R] and for every token of a dummy
/// request, 0 for the others; under pass, all 0.
std::vector<int64_t> DefaultGateMapping(const Batch& batch, GateAbsent rule = GateAbsent::kPadDummies);
/// The same into num_tokens entries at `out`.
void WriteDefaultGateMapping(const Batch& batch, int64_t* out, GateAbsent rule = GateAbsent::kPadDummies);

/// seq_lens saturated at INT32_MAX, for kernels that take int32 seq_lens
/// (plugin ABI 1, compiled-kernel spec 1, and engine kernels that ask for it).
std::vector<int32_t> SaturatedSeqLens(const Batch& batch);

/// The request of each token: r for qsl[r] <= t < qsl[r + 1], -1 past
/// qsl[num_reqs] (sg_mapping_call::request_of_token).
std::vector<int32_t> TokenRequests(const Batch& batch);

/// The arrays only other implementations read (slotguard's own kernels
/// never do): built once per scenario when a provider runs.
struct ProviderArrays {
  std::vector<int32_t> seq_lens_i32;      // SaturatedSeqLens
  std::vector<int32_t> request_of_token;  // TokenRequests
  explicit ProviderArrays(const Batch& batch)
      : seq_lens_i32(SaturatedSeqLens(batch)), request_of_token(TokenRequests(batch)) {}
  ProviderArrays() = default;
};

/// Host pointers into the scenario's batch vectors (and into `extra`, or
/// null for slotguard's own kernels).
MappingBatch HostMappingBatch(const Batch& batch, const ProviderArrays* extra = nullptr);

/// The GPU's row_bounds evidence in the padded layout (PoisonFollowsEveryRow):
/// an output slot that decodes to the poison block (slot / slots_per_entry
/// == kPoisonBlock) was read past its row.
void MarkPoisonReads(const std::vector<int64_t>& out, int64_t slots_per_entry,
                     std::vector<uint8_t>* read_past_row);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_KERNEL_INPUTS_H_
