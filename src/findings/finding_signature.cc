#include "findings/finding_signature.h"

#include <algorithm>
#include <set>

#include "registry/families.h"
#include "registry/invariants.h"
#include "util/fingerprint.h"

namespace slotguard {
namespace {

std::string Join(const std::vector<std::string>& names, const char* sep) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : sep) + n;
  return out;
}

}  // namespace

FindingSignature FindingSignature::Key() const {
  FindingSignature key = *this;
  key.shape.clear();
  return key;
}

std::string FindingSignature::Cause() const {
  return MostSpecificInvariant(std::set<std::string>(invariants.begin(), invariants.end()));
}

std::string FindingSignature::Text() const {
  return Join(families, "+") + "/" + Join(variants, "+") + ": " + Cause() + " (" + Blame() + "); implementation " +
         implementation;
}

std::string FindingSignature::Id() const { return Fingerprint(Text()); }

std::string ScenarioShape(const Scenario& s) {
  return std::to_string(s.batch.num_reqs()) + " requests, " + std::to_string(s.batch.num_tokens) + " tokens, " +
         std::to_string(s.groups.size()) + " groups";
}

FindingSignature SignatureOf(const Scenario& scenario, const std::vector<FindingSink>& findings,
                             const std::string& implementation) {
  std::set<std::string> families, variants, invariants;
  // Every group with findings ran its family's own description (no kernel
  // of slotguard's, no implementation, the fixed variant).
  bool description = implementation == "slotguard";
  for (size_t g = 0; g < findings.size() && g < scenario.groups.size(); ++g) {
    if (findings[g].counts().empty()) continue;
    families.insert(GetFamily(scenario.groups[g].family).name);
    variants.insert(GetVariant(scenario.groups[g].variant).name);
    description = description && !GetFamily(scenario.groups[g].family).kernel &&
                  GetVariant(scenario.groups[g].variant).name == "fixed";
    for (const auto& [name, count] : findings[g].counts()) invariants.insert(name);
  }
  FindingSignature s;
  s.implementation = implementation;
  s.families.assign(families.begin(), families.end());
  s.variants.assign(variants.begin(), variants.end());
  s.invariants.assign(invariants.begin(), invariants.end());
  s.blames_kernel = BlamesKernel(invariants);
  s.blames_description = description && !families.empty();
  s.shape = ScenarioShape(scenario);
  return s;
}

bool BlamesKernel(const std::set<std::string>& fired) {
  // skip_agrees: the implementation's consumers against its marker, whatever the batch.
  // negative_lands: the engine's writer puts a negative slot somewhere, whatever the batch.
  return fired.count(kInvariantDifferential) || fired.count(kInvariantRowBounds) || fired.count(kInvariantNoFault) ||
         fired.count(kInvariantSkipAgrees) || fired.count(kInvariantNegativeLands);
}

}  // namespace slotguard
