#include "report/registry_listing.h"

#include <nlohmann/json.hpp>

#include "registry/families.h"
#include "registry/invariants.h"
#include "scenario/family_params.h"

namespace slotguard {
namespace {

const char* KindName(ParamKind kind) {
  switch (kind) {
    case ParamKind::kInt:
      return "integer";
    case ParamKind::kBool:
      return "boolean";
    case ParamKind::kGroup:
      return "group name";
    case ParamKind::kDerived:
      return "derived";
  }
  return "";
}

std::string RangeText(const ParamInfo& p) {
  if (p.kind == ParamKind::kGroup) return std::string("a ") + GetFamily(p.target).name + " group of the scenario";
  if (p.kind != ParamKind::kInt) return "true, false";
  std::string range = std::to_string(p.min) + " .. " + MaxText(p);
  if (*p.divides) range += std::string(", divides ") + p.divides;
  if (*p.times) range += std::string(", ") + p.times + " * " + p.leaf_key() + " <= 2147483647";
  return range;
}

std::string DefaultCell(const ParamInfo& p) {
  if (p.kind == ParamKind::kGroup) return "absent";
  return DefaultText(p);
}

}  // namespace

void WriteRegistryListing(std::ostream& out) {
  out << "families, their parameters and variants (fixed is the default and the only correct one):\n";
  for (const FamilyInfo& family : AllFamilies()) {
    out << "  " << family.name << ": " << family.description << "\n";
    if (ReadsColumn0Only(family.family)) out << "    reads column 0 of its row only\n";
    for (const ParamInfo* p : ParamsOf(family.family)) {
      if (p->kind == ParamKind::kDerived) continue;
      out << "    param " << p->key << " (" << KindName(p->kind) << ", " << RangeText(*p) << "; default "
          << DefaultCell(*p) << "): " << p->meaning << "\n";
    }
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
      "| family | key | type | range | default | plugin field (spec name) | meaning |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const ParamInfo& p : AllParams()) {
    if (p.kind == ParamKind::kDerived) continue;
    const std::string plugin = std::string("`") + p.plugin_field + "` (" +
                               (p.kind == ParamKind::kGroup ? "buffer " : "") + "`" + p.spec_name() + "`)";
    md += std::string("| ") + GetFamily(p.family).name + " | `" + p.key + "` | " + KindName(p.kind) + " | " +
          RangeText(p) + " | " + DefaultCell(p) + " | " + plugin + " | " + p.meaning + " |\n";
  }
  return md;
}

std::string RegistryJson() {
  nlohmann::ordered_json root;
  root["slotguard_list"] = 1;
  nlohmann::ordered_json families = nlohmann::ordered_json::array();
  for (const FamilyInfo& family : AllFamilies()) {
    nlohmann::ordered_json f;
    f["name"] = family.name;
    f["description"] = family.description;
    nlohmann::ordered_json params = nlohmann::ordered_json::array();
    for (const ParamInfo* p : ParamsOf(family.family)) {
      if (p->kind == ParamKind::kDerived) continue;
      params.push_back({{"key", p->key}, {"type", KindName(p->kind)}, {"range", RangeText(*p)},
                        {"default", DefaultCell(*p)}, {"meaning", p->meaning}});
    }
    f["params"] = params;
    nlohmann::ordered_json variants = nlohmann::ordered_json::array();
    for (Variant v : VariantsOf(family.family))
      variants.push_back({{"name", GetVariant(v).name}, {"description", GetVariant(v).description}});
    f["variants"] = variants;
    families.push_back(f);
  }
  root["families"] = families;
  nlohmann::ordered_json invariants = nlohmann::ordered_json::array();
  for (const InvariantInfo& inv : AllInvariants())
    invariants.push_back({{"name", inv.name},
                          {"description", inv.description},
                          {"stage", inv.stage == InvariantStage::kMemory ? "memory"
                                    : inv.stage == InvariantStage::kRun  ? "run"
                                                                         : "mapping"}});
  root["invariants"] = invariants;
  return root.dump(2) + "\n";
}

}  // namespace slotguard
