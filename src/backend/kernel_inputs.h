// Turns scenario data into what the kernels take: the padded, poisoned
// block table and each family's parameter block. Shared by both backends.
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

/// The table with PaddedRowStride() columns per row; the padding holds
/// kPoisonBlock.
std::vector<int32_t> PaddedTable(const Batch& batch, const Group& group, int64_t* row_stride);

/// The same with a given row stride (>= the group's width).
std::vector<int32_t> PaddedTable(const Group& group, int64_t row_stride);

/// The same into rows * row_stride entries at `out`.
void PadTable(const Group& group, int64_t row_stride, int32_t* out);

PagedParams MakePagedParams(const Group& group);
KpoolTailParams MakeKpoolTailParams(const Group& group);
QsaRingParams MakeQsaRingParams(const Group& group);
QsaCompressedParams MakeQsaCompressedParams(const Group& group, const int64_t* common);
CompressorRingParams MakeCompressorRingParams(const Group& group);

/// Calls visit(Family{}, params) with the family trait and parameter block
/// of `group`. `common` is the qsa_compressed common mapping (ignored by
/// the others).
template <class Visitor>
void VisitFamily(const Group& group, const int64_t* common, Visitor&& visit) {
  switch (group.family) {
    case Family::kPaged:
      return visit(PagedFamily{}, MakePagedParams(group));
    case Family::kKpoolTail:
      return visit(KpoolTailFamily{}, MakeKpoolTailParams(group));
    case Family::kQsaRing:
      return visit(QsaRingFamily{}, MakeQsaRingParams(group));
    case Family::kQsaCompressed:
      return visit(QsaCompressedFamily{}, MakeQsaCompressedParams(group, common));
    case Family::kCompressorRing:
      return visit(CompressorRingFamily{}, MakeCompressorRingParams(group));
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

/// Host pointers into the scenario's batch vectors.
MappingBatch HostMappingBatch(const Batch& batch);

/// The GPU's row_bounds evidence: an output slot that decodes to the poison
/// block (slot / slots_per_entry == kPoisonBlock) was read past its row.
void MarkPoisonReads(const std::vector<int64_t>& out, int64_t slots_per_entry,
                     std::vector<uint8_t>* read_past_row);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_KERNEL_INPUTS_H_
