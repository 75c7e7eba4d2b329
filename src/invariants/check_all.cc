#include "invariants/invariants.h"

namespace slotguard {

void CheckMappingInvariants(const GroupRun& run, FindingSink* sink) {
  // The invariants that judge the group's kind (invariants.def's kinds column).
  // A group with no cache behind it is judged on its output only.
  const uint32_t kind = run.null_page == NullPage::kNoCache ? static_cast<uint32_t>(InvariantKinds::kNoCache)
                                                             : KindModelOf(*run.group).invariant_bit();
#define SG_MAPPING_INVARIANT(id, name, rank, kinds, description) \
  if (JudgesKind(InvariantKinds::kinds, kind)) Check##id(run, sink);
#include "registry/invariants.def"
#undef SG_MAPPING_INVARIANT
}

void CheckMemoryInvariants(const GroupRun& run, const MemoryRun& memory, FindingSink* sink) {
#define SG_MEMORY_INVARIANT(id, name, rank, description) Check##id(run, memory, sink);
#include "registry/invariants.def"
#undef SG_MEMORY_INVARIANT
}

}  // namespace slotguard
