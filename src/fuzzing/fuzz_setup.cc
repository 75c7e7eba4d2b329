#include "fuzzing/fuzz_setup.h"

#include <algorithm>

#include "util/did_you_mean.h"

namespace slotguard {

bool ResolveFuzzFamilies(const std::vector<std::string>& names, const std::string& variant,
                         std::vector<Family>* families, std::string* err) {
  for (const std::string& name : names) {
    Family f;
    if (!FindFamily(name, &f, err)) return false;
    families->push_back(f);
  }
  if (variant.empty()) return true;
  if (!ValidateVariantName(variant, err)) return false;
  if (variant == "all") {
    *err = "fuzz takes one variant name, not 'all'";
    return false;
  }
  // Keep (or choose) the families that have the variant.
  std::vector<Family> with;
  for (const FamilyInfo& info : AllFamilies()) {
    Variant v;
    const bool listed = families->empty() || std::count(families->begin(), families->end(), info.family);
    if (listed && LookupVariant(info.family, variant, &v)) with.push_back(info.family);
  }
  if (with.empty()) {
    *err = "no family given with --family has variant '" + variant + "'";
    return false;
  }
  *families = with;
  return true;
}

bool FitFamiliesToProvider(const MappingProvider& provider, const std::string& variant,
                           std::vector<Family>* families, std::string* err) {
  if (!variant.empty()) {
    *err = "--variant " + variant + " with " + provider.name() +
           ": it replaces the fixed kernels only; expected no --variant";
    return false;
  }
  std::vector<std::string> names;
  for (Family f : provider.families()) names.push_back(GetFamily(f).name);
  for (Family f : *families)
    if (!provider.Implements(f)) {
      *err = "--family " + std::string(GetFamily(f).name) + ": " + provider.name() +
             " does not implement it; expected one of " + JoinNames(names);
      return false;
    }
  if (families->empty()) *families = provider.families();
  return true;
}

bool FitGeneratorToProvider(const MappingProvider& provider, const std::string& variant,
                            GeneratorOptions* generator, std::string* err) {
  if (!FitFamiliesToProvider(provider, variant, &generator->families, err)) return false;
  generator->int64_seq_lens = provider.reads_persistent_tables();  // ABI 2 / spec 2: int64 seq_lens
  generator->dummy_runs = false;  // it cannot see batch.dummy_run
  return true;
}

}  // namespace slotguard
