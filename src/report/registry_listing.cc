#include "report/registry_listing.h"

#include "registry/families.h"
#include "registry/invariants.h"
#include "scenario/family_params.h"

namespace slotguard {
namespace {

const char* TypeName(ParamType type) {
  switch (type) {
    case ParamType::kI32:
      return "i32";
    case ParamType::kI64:
      return "i64";
    case ParamType::kBool:
      return "bool";
    case ParamType::kGroup:
      return "group name";
  }
  return "";
}

std::string RangeText(const ParamDesc& p) {
  if (p.type == ParamType::kGroup) return "a " + p.family + " group of the scenario";
  if (p.type == ParamType::kBool) return "true, false";
  std::string range = std::to_string(p.min) + " .. " + p.max.text();
  if (!p.divides.empty()) range += ", divides " + p.divides;
  return range;
}

std::string DefaultCell(const ParamDesc& p) {
  if (p.type == ParamType::kGroup) return "absent";
  if (p.default_value.empty()) return "required";
  if (p.type == ParamType::kBool) return p.default_value.text() == "1" ? "true" : "false";
  return p.default_value.text();
}

}  // namespace

void WriteRegistryListing(std::ostream& out) {
  out << "families, their parameters and variants (fixed is the default and the only correct one):\n";
  for (const FamilyInfo& family : AllFamilies()) {
    out << "  " << family.name << ": " << family.description << "\n";
    out << "    from " << family.desc->file
        << (family.kernel ? "; slotguard's own kernel" : "; no kernel of slotguard's: give an implementation")
        << "\n";
    if (ReadsColumn0Only(family.family)) out << "    reads column 0 of its row only\n";
    for (const ParamDesc& p : family.desc->params)
      out << "    param " << p.key << " (" << TypeName(p.type) << ", " << RangeText(p) << "; default "
          << DefaultCell(p) << "): " << p.meaning << "\n";
    for (const ConstraintDesc& c : family.desc->constraints) out << "    requires " << c.holds.text() << "\n";
    for (Variant v : VariantsOf(family.family))
      out << "    " << GetVariant(v).name << ": " << GetVariant(v).description << "\n";
  }
  out << "invariants:\n";
  for (const InvariantInfo& inv : AllInvariants())
    out << "  " << inv.name << ": " << inv.description
        << (inv.stage == InvariantStage::kMemory ? " [with --writers]" : "") << "\n";
}

std::string FamilyParameterMarkdown() {
  std::string md =
      "| family | key | name | type | range | default | meaning |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const FamilyInfo& f : AllFamilies()) {
    if (!f.builtin) continue;
    for (const ParamDesc& p : f.desc->params)
      md += std::string("| ") + f.name + " | `" + p.key + "` | `" + p.name + "` | " + TypeName(p.type) + " | " +
            RangeText(p) + " | " + DefaultCell(p) + " | " + p.meaning + " |\n";
  }
  return md;
}

}  // namespace slotguard
