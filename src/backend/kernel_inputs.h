// Turns scenario data into what the kernels take: each family's parameter
// block and the batch (the block tables: backend/table_memory.h). Shared by
// both backends.
#ifndef SLOTGUARD_BACKEND_KERNEL_INPUTS_H_
#define SLOTGUARD_BACKEND_KERNEL_INPUTS_H_

#include <cstdint>
#include <vector>

#include "kernels/compressor_ring_slot.h"
#include "kernels/kpool_tail_slot.h"
#include "kernels/mapping_batch.h"
#include "kernels/paged_slot.h"
#include "kernels/qsa_compressed_slot.h"
#include "kernels/qsa_ring_slot.h"
#include "scenario/family_params.h"  // OutputCount
#include "scenario/scenario.h"

namespace slotguard {

// The kernel parameter block of each family (registry/families.def: the
// family Id names its kernel's <Id>Family trait and <Id>Params block).
// `common` is the common mapping of a group that reads another group's
// output (qsa_compressed); the others ignore it.
#define SG_FAMILY(id, name, description) id##Params Make##id##Params(const Group& group, const int64_t* common);
#include "registry/families.def"
#undef SG_FAMILY

/// Calls visit(<Id>Family{}, params) with the family trait and parameter
/// block of `group`.
template <class Visitor>
void VisitFamily(const Group& group, const int64_t* common, Visitor&& visit) {
  switch (group.family) {
#define SG_FAMILY(id, name, description) \
  case Family::k##id:                    \
    return visit(id##Family{}, Make##id##Params(group, common));
#include "registry/families.def"
#undef SG_FAMILY
  }
}

/// Group indices in run order: a qsa_compressed group after the paged group
/// whose output it reads.
std::vector<size_t> RunOrder(const Scenario& scenario);

/// Index of a qsa_compressed group's `common` group, or -1 when it has none.
int CommonGroupIndex(const Scenario& scenario, const Group& group);

/// The common mapping DESIGN 2.4 assumes when `common` is absent: PAD
/// exactly for tokens t >= qsl[R] (0 before).
std::vector<int64_t> DefaultCommonMapping(const Batch& batch);

/// The same into num_tokens entries at `out`.
void WriteDefaultCommonMapping(const Batch& batch, int64_t* out);

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
