// Family and variant ids. The built-in kernels' families and variants
// (families.def) have the first ids, as enumerators the kernels switch on;
// the families and variants of descriptions without a kernel of slotguard's
// (families/, --family-file) get the ids after them when they are
// registered (registry/families.h). No standard headers: kernel code
// includes this.
#ifndef SLOTGUARD_REGISTRY_VARIANT_IDS_H_
#define SLOTGUARD_REGISTRY_VARIANT_IDS_H_

namespace slotguard {

enum class Family : int {
#define SG_FAMILY(id, name) k##id,
#include "registry/families.def"
#undef SG_FAMILY
};

/// The families with a kernel of slotguard's: ids 0 .. kKernelFamilyCount - 1.
#define SG_FAMILY(id, name) +1
constexpr int kKernelFamilyCount = 0
#include "registry/families.def"
    ;
#undef SG_FAMILY

/// Every variant of every family, one id space.
enum class Variant : int {
#define SG_VARIANT(family, id, name, description) k##family##id,
#include "registry/families.def"
#undef SG_VARIANT
};

/// The variants the built-in kernels implement: ids 0 .. kKernelVariantCount - 1.
#define SG_VARIANT(family, id, name, description) +1
constexpr int kKernelVariantCount = 0
#include "registry/families.def"
    ;
#undef SG_VARIANT

}  // namespace slotguard

#endif  // SLOTGUARD_REGISTRY_VARIANT_IDS_H_
