// What a `fuzz` campaign generates, from --family, --variant and the
// implementation being checked (--kernel-lib, --kernel-cubin).
#ifndef SLOTGUARD_RUNNER_FUZZ_SETUP_H_
#define SLOTGUARD_RUNNER_FUZZ_SETUP_H_

#include <string>
#include <vector>

#include "fuzzing/generators.h"
#include "plan/mapping_provider.h"
#include "registry/families.h"

namespace slotguard {

/// --family names and --variant to the families a campaign generates: the
/// named ones (none: every family), kept to those that have the variant.
/// False with *err for an unknown name, "all", or no family with it.
bool ResolveFuzzFamilies(const std::vector<std::string>& names, const std::string& variant,
                         std::vector<Family>* families, std::string* err);

/// Another implementation is fuzzed on what it implements: its families
/// when none were named, and no --variant (it replaces the fixed kernels
/// only). False with *err otherwise.
bool FitFamiliesToProvider(const MappingProvider& provider, const std::string& variant,
                           std::vector<Family>* families, std::string* err);

/// FitFamiliesToProvider on the generator's families, and persistent block
/// tables only for an implementation that reads them (plugin ABI 2, spec 2).
bool FitGeneratorToProvider(const MappingProvider& provider, const std::string& variant,
                            GeneratorOptions* generator, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_RUNNER_FUZZ_SETUP_H_
