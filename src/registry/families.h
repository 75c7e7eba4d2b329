// The family registry: every family a run knows and its variants. The
// built-in descriptions (families/*.json, compiled in) come first, those
// with a kernel of slotguard's (families.def) in that file's order; then
// what --family-file and SLOTGUARD_FAMILY_PATH name, in that order.
// Registration happens before any scenario is loaded (the commands' setup);
// afterwards the registry is read-only and may be read from any thread.
#ifndef SLOTGUARD_REGISTRY_FAMILIES_H_
#define SLOTGUARD_REGISTRY_FAMILIES_H_

#include <ostream>
#include <string>
#include <vector>

#include "family/family_desc.h"
#include "registry/variant_ids.h"
#include "util/did_you_mean.h"

namespace slotguard {

struct FamilyInfo {
  FamilyInfo(Family family, const char* name, const char* description, const FamilyDesc* desc, bool kernel,
             bool builtin)
      : family(family), name(name), description(description), kernel(kernel), builtin(builtin), desc_(desc) {}

  Family family;
  const char* name;
  const char* description;  // the description's one-line meaning
  bool kernel;              // slotguard has its own kernel (families.def)
  bool builtin;             // compiled in (families/), not a user's file

 private:
  // The description itself stays behind the family's model
  // (family/group_model.h: FamilyModel, GroupModel), which alone reads it
  // (group_model.cc defines the access).
  friend struct FamilyDescAccess;
  const FamilyDesc* desc_;
};

struct VariantInfo {
  Variant variant;
  Family family;
  const char* name;
  const char* description;
  bool kernel;                 // the built-in kernel implements it
  const MappingDesc* mapping;  // what it computes, when the interpreter can run it (fixed, described
                               // variants); nullptr for a historical kernel variant
  const RequestDesc* request;  // the same for a per-request kind (state_index, block_op)
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

/// Registers the description in `path` (--family-file). False with one line
/// (the file, the JSON pointer, what was expected) when it does not load,
/// names a family already registered, or links to a family that is not.
bool RegisterFamilyFile(const std::string& path, std::string* err);
/// RegisterFamilyFile for each, in order; a file given twice (or already
/// registered from SLOTGUARD_FAMILY_PATH) is registered once.
bool RegisterFamilyFiles(const std::vector<std::string>& paths, std::string* err);
/// Registers every *.json file of each directory of SLOTGUARD_FAMILY_PATH
/// (colon-separated), in name order; once per process.
bool RegisterFamilySearchPath(std::string* err);
/// The files registered from outside the binary, in order (worker
/// processes register them too).
const std::vector<std::string>& UserFamilyFiles();
/// Registers the description in `text` (tests; `file` names it).
bool RegisterFamilyText(const std::string& text, const std::string& file, std::string* err);

/// Prints the variant's name (test messages, logs).
inline std::ostream& operator<<(std::ostream& out, Variant variant) { return out << GetVariant(variant).name; }

}  // namespace slotguard

#endif  // SLOTGUARD_REGISTRY_FAMILIES_H_
