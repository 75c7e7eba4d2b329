#include "registry/families.h"

#include <algorithm>

#include "util/did_you_mean.h"

namespace slotguard {

const std::vector<FamilyInfo>& AllFamilies() {
  static const std::vector<FamilyInfo> families = {
#define SG_FAMILY(id, name, description) {Family::k##id, name, description},
#include "registry/families.def"
#undef SG_FAMILY
  };
  return families;
}

const std::vector<VariantInfo>& AllVariants() {
  static const std::vector<VariantInfo> variants = {
#define SG_VARIANT(family, id, name, description) {Variant::k##family##id, Family::k##family, name, description},
#include "registry/families.def"
#undef SG_VARIANT
  };
  return variants;
}

const FamilyInfo& GetFamily(Family family) { return AllFamilies()[static_cast<int>(family)]; }
const VariantInfo& GetVariant(Variant variant) { return AllVariants()[static_cast<int>(variant)]; }

std::vector<Variant> VariantsOf(Family family) {
  std::vector<Variant> out;
  for (const VariantInfo& info : AllVariants())
    if (info.family == family) out.push_back(info.variant);
  return out;
}

Variant FixedVariant(Family family) {
  for (const VariantInfo& info : AllVariants())  // each family lists its fixed variant first
    if (info.family == family) return info.variant;
  return Variant{};
}

std::vector<Variant> NonFixedVariants() {
  std::vector<Variant> out;
  for (const VariantInfo& v : AllVariants())
    if (v.variant != FixedVariant(v.family)) out.push_back(v.variant);
  return out;
}

bool FindFamily(const std::string& name, Family* family, NameError* err) {
  std::vector<std::string> names;
  for (const FamilyInfo& info : AllFamilies()) {
    if (name == info.name) {
      *family = info.family;
      return true;
    }
    names.push_back(info.name);
  }
  *err = UnknownName("kernel family", name, names);
  return false;
}

bool FindVariant(Family family, const std::string& name, Variant* variant, NameError* err) {
  std::vector<std::string> names;
  for (Variant v : VariantsOf(family)) {
    if (name == GetVariant(v).name) {
      *variant = v;
      return true;
    }
    names.push_back(GetVariant(v).name);
  }
  *err = UnknownName("variant", name, names, std::string(" of family ") + GetFamily(family).name);
  return false;
}

bool FindFamily(const std::string& name, Family* family, std::string* err) {
  NameError e;
  if (FindFamily(name, family, &e)) return true;
  *err = e.Text();
  return false;
}

bool FindVariant(Family family, const std::string& name, Variant* variant, std::string* err) {
  NameError e;
  if (FindVariant(family, name, variant, &e)) return true;
  *err = e.Text();
  return false;
}

bool LookupVariant(Family family, const std::string& name, Variant* variant) {
  for (const VariantInfo& info : AllVariants())
    if (info.family == family && name == info.name) {
      *variant = info.variant;
      return true;
    }
  return false;
}

bool ValidateVariantName(const std::string& name, std::string* err) {
  if (name.empty() || name == "all") return true;
  std::vector<std::string> names = {"all"};
  for (const VariantInfo& v : AllVariants()) {
    if (name == v.name) return true;
    if (std::find(names.begin(), names.end(), v.name) == names.end()) names.push_back(v.name);
  }
  *err = UnknownName("variant", name, names).Text();
  return false;
}

}  // namespace slotguard
