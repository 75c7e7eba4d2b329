#include "invariants/invariants.h"

namespace slotguard {

void CheckMappingInvariants(const GroupRun& run, FindingSink* sink) {
#define SG_MAPPING_INVARIANT(id, name, rank, description) Check##id(run, sink);
#include "registry/invariants.def"
#undef SG_MAPPING_INVARIANT
}

void CheckMemoryInvariants(const GroupRun& run, const MemoryRun& memory, FindingSink* sink) {
#define SG_MEMORY_INVARIANT(id, name, rank, description) Check##id(run, memory, sink);
#include "registry/invariants.def"
#undef SG_MEMORY_INVARIANT
}

}  // namespace slotguard
