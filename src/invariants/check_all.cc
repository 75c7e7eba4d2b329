#include "invariants/invariants.h"

namespace slotguard {

void CheckMappingInvariants(const GroupRun& run, FindingSink* sink) {
  // The invariants of the group's kind: a slot per token, or per request.
  const InvariantKinds skip = PerRequest(*run.group) ? InvariantKinds::kSlots : InvariantKinds::kRequests;
#define SG_MAPPING_INVARIANT(id, name, rank, kinds, description) \
  if (InvariantKinds::kinds != skip) Check##id(run, sink);
#include "registry/invariants.def"
#undef SG_MAPPING_INVARIANT
}

void CheckMemoryInvariants(const GroupRun& run, const MemoryRun& memory, FindingSink* sink) {
#define SG_MEMORY_INVARIANT(id, name, rank, description) Check##id(run, memory, sink);
#include "registry/invariants.def"
#undef SG_MEMORY_INVARIANT
}

}  // namespace slotguard
