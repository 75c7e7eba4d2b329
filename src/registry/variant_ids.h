// Family and variant ids as plain enums, generated from families.def.
// No standard headers: kernel code includes this.
#ifndef SLOTGUARD_REGISTRY_VARIANT_IDS_H_
#define SLOTGUARD_REGISTRY_VARIANT_IDS_H_

namespace slotguard {

enum class Family : int {
#define SG_FAMILY(id, name, description) k##id,
#include "registry/families.def"
#undef SG_FAMILY
};

#define SG_FAMILY(id, name, description) +1
constexpr int kFamilyCount = 0
#include "registry/families.def"
    ;
#undef SG_FAMILY

/// Every variant of every family, one id space.
enum class Variant : int {
#define SG_VARIANT(family, id, name, description) k##family##id,
#include "registry/families.def"
#undef SG_VARIANT
};

#define SG_VARIANT(family, id, name, description) +1
constexpr int kVariantCount = 0
#include "registry/families.def"
    ;
#undef SG_VARIANT

}  // namespace slotguard

#endif  // SLOTGUARD_REGISTRY_VARIANT_IDS_H_
