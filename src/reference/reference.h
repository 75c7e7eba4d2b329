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

/// Every output of a group (one per output name), in the family's order.
std::vector<std::vector<int64_t>> ReferenceOutputs(const Scenario& scenario, const Group& group);

}  // namespace slotguard

#endif  // SLOTGUARD_REFERENCE_REFERENCE_H_
