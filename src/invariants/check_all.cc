#include "invariants/invariants.h"

namespace slotguard {

void CheckMappingInvariants(const GroupRun& run, FindingSink* sink) {
  // The invariants that judge the group's kind (invariants.def's kinds column).
  using namespace invariant_kinds;  // NOLINT: the kinds column's names
  // A group with no cache behind it is judged on its output only.
  const uint32_t kind = run.null_page == NullPage::kNoCache ? kNoCache : KindModelOf(*run.group).invariant_bit();
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
