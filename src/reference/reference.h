// The CPU reference: the oracle, written from DESIGN section 2 as plain loops.
// It never includes a kernel header (src/kernels/), so a bug shared by the
// kernels and their host twin cannot cancel out here. It always computes the
// correct (`fixed`) behaviour, whatever variant the group asks for.
#ifndef SLOTGUARD_REFERENCE_REFERENCE_H_
#define SLOTGUARD_REFERENCE_REFERENCE_H_

#include <cstdint>
#include <vector>

#include "scenario/scenario.h"

namespace slotguard {

/// DESIGN 2.1: the paged slot mapping, [num_tokens].
std::vector<int64_t> ReferencePaged(const Batch& batch, const Group& group);

/// DESIGN 2.2: the kpool tail ring, [num_tokens].
std::vector<int64_t> ReferenceKpoolTail(const Batch& batch, const Group& group);

/// DESIGN 2.3: the QSA circular ring, [num_tokens].
std::vector<int64_t> ReferenceQsaRing(const Batch& batch, const Group& group);

/// DESIGN 2.4: the QSA compressed path over a common mapping [num_tokens].
std::vector<int64_t> ReferenceQsaCompressed(const Batch& batch, const Group& group,
                                            const std::vector<int64_t>& common);

/// DESIGN 2.5: the compressor ring's two outputs {slot_mapping, tail_slot_mapping}.
std::vector<std::vector<int64_t>> ReferenceCompressorRing(const Batch& batch, const Group& group);

/// Every output of a group (one per output name), in the family's order.
std::vector<std::vector<int64_t>> ReferenceOutputs(const Scenario& scenario, const Group& group);

}  // namespace slotguard

#endif  // SLOTGUARD_REFERENCE_REFERENCE_H_
