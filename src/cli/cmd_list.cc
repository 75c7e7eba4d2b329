// `slotguard list`: families, variants and invariants, from the registries.
#include "cli/commands.h"
#include "registry/families.h"
#include "registry/invariants.h"

namespace slotguard {

int RunList(std::ostream& out) {
  out << "families and variants (fixed is the default and the only correct one):\n";
  for (const FamilyInfo& family : AllFamilies()) {
    out << "  " << family.name << ": " << family.description << "\n";
    for (Variant v : VariantsOf(family.family))
      out << "    " << GetVariant(v).name << ": " << GetVariant(v).description << "\n";
  }
  out << "invariants:\n";
  for (const InvariantInfo& inv : AllInvariants())
    out << "  " << inv.name << ": " << inv.description
        << (inv.stage == InvariantStage::kMemory ? " [with --writers]" : "")
        << "\n";
  return kExitHolds;
}

}  // namespace slotguard
