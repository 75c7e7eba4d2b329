// The batch's arrays as the kernels and other implementations read them:
// the absent gate's mapping, the int32 seq_lens and the token's request that
// only other implementations read, host pointers into a scenario's batch,
// and the poison block read back from an output. Shared by the planner and
// every executor.
#ifndef SLOTGUARD_PLAN_BATCH_ARRAYS_H_
#define SLOTGUARD_PLAN_BATCH_ARRAYS_H_

#include <cstdint>
#include <vector>

#include "family/family_desc.h"  // GateAbsent
#include "kernels/mapping_batch.h"
#include "scenario/scenario.h"

namespace slotguard {

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

#endif  // SLOTGUARD_PLAN_BATCH_ARRAYS_H_
