// Lookup over the family/variant registry (families.def).
#ifndef SLOTGUARD_REGISTRY_FAMILIES_H_
#define SLOTGUARD_REGISTRY_FAMILIES_H_

#include <ostream>
#include <string>
#include <vector>

#include "registry/variant_ids.h"
#include "util/did_you_mean.h"

namespace slotguard {

struct FamilyInfo {
  Family family;
  const char* name;
  const char* description;
};

struct VariantInfo {
  Variant variant;
  Family family;
  const char* name;
  const char* description;
};

const std::vector<FamilyInfo>& AllFamilies();
const std::vector<VariantInfo>& AllVariants();

const FamilyInfo& GetFamily(Family family);
const VariantInfo& GetVariant(Variant variant);
/// Variants of one family, `fixed` first.
std::vector<Variant> VariantsOf(Family family);
Variant FixedVariant(Family family);
/// Every historical (non-fixed) variant of every family, registry order.
std::vector<Variant> NonFixedVariants();

/// Name lookups. On failure, *err says what was expected and, where a name
/// is close, "did you mean '...'?".
bool FindFamily(const std::string& name, Family* family, std::string* err);
bool FindVariant(Family family, const std::string& name, Variant* variant, std::string* err);
/// The same, with the message in its two parts (for file errors).
bool FindFamily(const std::string& name, Family* family, NameError* err);
bool FindVariant(Family family, const std::string& name, Variant* variant, NameError* err);

/// FindVariant without the message: no allocation, for the per-scenario
/// paths (ForceVariant on every generated scenario of a campaign).
bool LookupVariant(Family family, const std::string& name, Variant* variant);

/// Resolves `--variant NAME` against the registry: "" and "all" pass; an
/// unknown name fills *err (with did-you-mean) and returns false.
bool ValidateVariantName(const std::string& name, std::string* err);

/// Prints the variant's name (test messages, logs).
inline std::ostream& operator<<(std::ostream& out, Variant variant) { return out << GetVariant(variant).name; }

}  // namespace slotguard

#endif  // SLOTGUARD_REGISTRY_FAMILIES_H_
