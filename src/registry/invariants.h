// Names and descriptions of the invariants (invariants.def). The check
// functions live in src/invariants/.
#ifndef SLOTGUARD_REGISTRY_INVARIANTS_H_
#define SLOTGUARD_REGISTRY_INVARIANTS_H_

#include <string>
#include <vector>

namespace slotguard {

// kMapping: on the slot mapping; kMemory: on the cache after the writers
// (`--writers`); kRun: about the run itself (no_fault).
enum class InvariantStage { kMapping, kMemory, kRun };

struct InvariantInfo {
  const char* name;
  InvariantStage stage;
  const char* description;
};

const std::vector<InvariantInfo>& AllInvariants();
std::vector<std::string> AllInvariantNames();
bool IsInvariantName(const std::string& name);

}  // namespace slotguard

#endif  // SLOTGUARD_REGISTRY_INVARIANTS_H_
