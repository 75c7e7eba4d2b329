// Names and descriptions of the invariants (invariants.def). The check
// functions live in src/invariants/.
#ifndef SLOTGUARD_REGISTRY_INVARIANTS_H_
#define SLOTGUARD_REGISTRY_INVARIANTS_H_

#include <set>
#include <string>
#include <vector>

namespace slotguard {

// kMapping: on the slot mapping; kMemory: on the cache after the writers
// (`--writers`); kRun: about the run itself (no_fault).
enum class InvariantStage { kMapping, kMemory, kRun };
// The families a mapping invariant judges: a slot per token, a state index
// or block operations per request, or both.
enum class InvariantKinds { kSlots, kRequests, kAny };

struct InvariantInfo {
  const char* name;
  InvariantStage stage;
  int rank;  // 1: the most specific
  const char* description;
  InvariantKinds kinds = InvariantKinds::kAny;
};

// kInvariantNullBlock = "null_block", ...: the one spelling of each name.
#define SG_INVARIANT_NAME(id, name, rank, description) inline constexpr const char kInvariant##id[] = name;
#define SG_MAPPING_INVARIANT(id, name, rank, kinds, description) SG_INVARIANT_NAME(id, name, rank, description)
#define SG_MEMORY_INVARIANT SG_INVARIANT_NAME
#define SG_RUN_INVARIANT SG_INVARIANT_NAME
#include "registry/invariants.def"
#undef SG_MAPPING_INVARIANT
#undef SG_MEMORY_INVARIANT
#undef SG_RUN_INVARIANT
#undef SG_INVARIANT_NAME

const std::vector<InvariantInfo>& AllInvariants();
std::vector<std::string> AllInvariantNames();
bool IsInvariantName(const std::string& name);
/// Whether `name` is a memory invariant (checked only with the writers on).
bool IsMemoryInvariant(const std::string& name);
/// The lowest-ranked (most specific) of `fired`, "" when empty.
std::string MostSpecificInvariant(const std::set<std::string>& fired);

}  // namespace slotguard

#endif  // SLOTGUARD_REGISTRY_INVARIANTS_H_
