// The mapping invariants (registry/invariants.def), one file each.
#ifndef SLOTGUARD_INVARIANTS_INVARIANTS_H_
#define SLOTGUARD_INVARIANTS_INVARIANTS_H_

#include "invariants/finding.h"
#include "invariants/group_run.h"
#include "registry/invariants.h"  // kInvariant<Id>

namespace slotguard {

#define SG_MAPPING_INVARIANT(id, name, rank, kinds, description) \
  void Check##id(const GroupRun& run, FindingSink* sink);
#include "registry/invariants.def"
#undef SG_MAPPING_INVARIANT

/// Runs every mapping invariant, in registry order.
void CheckMappingInvariants(const GroupRun& run, FindingSink* sink);

// The memory invariants read the cache after the writers; run.outputs[0]'s
// reference says which slots the writers should have filled.
#define SG_MEMORY_INVARIANT(id, name, rank, description) \
  void Check##id(const GroupRun& run, const MemoryRun& memory, FindingSink* sink);
#include "registry/invariants.def"
#undef SG_MEMORY_INVARIANT

/// Runs every memory invariant, in registry order.
void CheckMemoryInvariants(const GroupRun& run, const MemoryRun& memory, FindingSink* sink);

}  // namespace slotguard

#endif  // SLOTGUARD_INVARIANTS_INVARIANTS_H_
