#include "invariants/invariants.h"

namespace slotguard {

void CheckMappingInvariants(const GroupRun& run, FindingSink* sink) {
  // The invariants that judge the group's kind (invariants.def's kinds column).
  const uint32_t kind = KindModelOf(*run.group).invariant_bit();
  using namespace invariant_kinds;  // NOLINT: the kinds column's names
#define SG_MAPPING_INVARIANT(id, name, rank, kinds, description) \
  if (JudgesKind(kinds, kind)) Check##id(run, sink);
#include "registry/invariants.def"
#undef SG_MAPPING_INVARIANT
}

void CheckMemoryInvariants(const GroupRun& run, const MemoryRun& memory, FindingSink* sink) {
#define SG_MEMORY_INVARIANT(id, name, rank, description) Check##id(run, memory, sink);
#include "registry/invariants.def"
#undef SG_MEMORY_INVARIANT
}

}  // namespace slotguard
