// Names and descriptions of the invariants (invariants.def). The check
// functions live in src/invariants/.
#ifndef SLOTGUARD_REGISTRY_INVARIANTS_H_
#define SLOTGUARD_REGISTRY_INVARIANTS_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "family/kind_bits.h"

namespace slotguard {

// kMapping: on the slot mapping; kMemory: on the cache after the writers
// (`--writers`); kRun: about the run itself (no_fault).
enum class InvariantStage { kMapping, kMemory, kRun };
// The kinds of family a mapping invariant judges (invariants.def's kinds
// column), a bit each (the kind models' invariant_bit): invariant_kinds::
// kSlotMapping, kStateIndex, kBlockOp, kTableProducer, ... (one per line of
// family/kinds.def), kSlots, kRequests, kAny, and kNoCache, a slot mapping group with no cache
// behind it (null_page "no_cache"), judged on its output only (kOutput)
// (family/kind_bits.h); a row ORs them.
/// Whether an invariant of `kinds` judges a kind whose bit is `kind_bit`.
inline bool JudgesKind(uint32_t kinds, uint32_t kind_bit) { return (kinds & kind_bit) != 0; }

struct InvariantInfo {
  const char* name;
  InvariantStage stage;
  int rank;  // 1: the most specific
  const char* description;
  uint32_t kinds = invariant_kinds::kAny;
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
