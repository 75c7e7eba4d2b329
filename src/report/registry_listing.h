// What `slotguard list` prints, from the registries: families with their
// parameters and variants, and the invariants; and the families' parameter
// table as Markdown (docs/families.md holds it; a test keeps them equal).
#ifndef SLOTGUARD_REPORT_REGISTRY_LISTING_H_
#define SLOTGUARD_REPORT_REGISTRY_LISTING_H_

#include <ostream>
#include <string>

namespace slotguard {

void WriteRegistryListing(std::ostream& out);

/// `slotguard list --json`: {"slotguard_list": 1, "version", "families": [...],
/// "invariants": [...]}: every family with its file, parameters, outputs and
/// variants (python/slotguard reads its family table from here).
void WriteRegistryJson(std::ostream& out);

/// | family | key | name | type | range | default | meaning |, for every built-in family.
std::string FamilyParameterMarkdown();


}  // namespace slotguard

#endif  // SLOTGUARD_REPORT_REGISTRY_LISTING_H_
