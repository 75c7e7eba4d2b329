// The kinds' bits in invariants.def's kinds column (registry/invariants.h):
// k<Id> for each line SG_KIND(Id) of kinds.def, 1 << its position (the
// kind model's invariant_bit); kSlots is the slot mapping's, kRequests the
// state index's and block operations', kAny every kind's; kNoCache a slot
// mapping group with no cache behind it, kOutput kSlots and kNoCache. A row ORs them
// (kRequests | kTableProducer).
#ifndef SLOTGUARD_FAMILY_KIND_BITS_H_
#define SLOTGUARD_FAMILY_KIND_BITS_H_

#include <cstdint>

#include "family/family_desc.h"

namespace slotguard {
namespace invariant_kinds {

#define SG_KIND(id) inline constexpr uint32_t k##id = KindBit(FamilyKind::k##id);
#include "family/kinds.def"
#undef SG_KIND
inline constexpr uint32_t kSlots = kSlotMapping;
inline constexpr uint32_t kRequests = kStateIndex | kBlockOp;
// Not a kind: a slot mapping group with no cache behind it (null_page
// "no_cache"), judged as this bit alone, on its output only (kOutput).
inline constexpr uint32_t kNoCache = 1u << 31;
inline constexpr uint32_t kOutput = kSlots | kNoCache;
inline constexpr uint32_t kAny = 0xffffffff;

}  // namespace invariant_kinds
}  // namespace slotguard

#endif  // SLOTGUARD_FAMILY_KIND_BITS_H_
