// Turns scenario data into what the kernels take: the padded, poisoned
// block table and each family's parameter block. Shared by both backends.
#ifndef SLOTGUARD_BACKEND_KERNEL_INPUTS_H_
#define SLOTGUARD_BACKEND_KERNEL_INPUTS_H_

#include <cstdint>
#include <vector>

#include "kernels/mapping_batch.h"
#include "kernels/paged_slot.h"
#include "scenario/scenario.h"

namespace slotguard {

/// The table with PaddedRowStride() columns per row; the padding holds
/// kPoisonBlock.
std::vector<int32_t> PaddedTable(const Batch& batch, const Group& group, int64_t* row_stride);

PagedParams MakePagedParams(const Group& group);

/// Host pointers into the scenario's batch vectors.
MappingBatch HostMappingBatch(const Batch& batch);

/// The GPU's row_bounds evidence: an output slot that decodes to the poison
/// block (slot / slots_per_entry == kPoisonBlock) was read past its row.
void MarkPoisonReads(const std::vector<int64_t>& out, int64_t slots_per_entry,
                     std::vector<uint8_t>* read_past_row);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_KERNEL_INPUTS_H_
