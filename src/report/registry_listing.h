// What `slotguard list` prints, from the registries: families with their
// parameters and variants, and the invariants; and the families' parameter
// table as Markdown (docs/families.md holds it; a test keeps them equal).
#ifndef SLOTGUARD_REPORT_REGISTRY_LISTING_H_
#define SLOTGUARD_REPORT_REGISTRY_LISTING_H_

#include <ostream>
#include <string>

namespace slotguard {

void WriteRegistryListing(std::ostream& out);

/// | family | key | type | range | default | plugin field | meaning |
std::string FamilyParameterMarkdown();

/// The same registries as JSON (`slotguard list --json`), for tools that
/// check names against this binary (python/slotguard's capture checks its
/// `expect` invariants so): {"slotguard_list": 1, "families": [{"name",
/// "description", "params": [{"key", "type", "range", "default",
/// "meaning"}], "variants": [{"name", "description"}]}], "invariants":
/// [{"name", "description", "stage": "mapping" | "memory" | "run"}]}.
std::string RegistryJson();

}  // namespace slotguard

#endif  // SLOTGUARD_REPORT_REGISTRY_LISTING_H_
