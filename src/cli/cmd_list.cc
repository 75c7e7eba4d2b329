// `slotguard list`: families, parameters, variants and invariants, from the
// registries (report/registry_listing.h).
#include "cli/commands.h"
#include "report/registry_listing.h"

namespace slotguard {

int RunList(bool params_markdown, bool json, std::ostream& out) {
  if (json) {
    out << RegistryJson();
  } else if (params_markdown) {
    out << FamilyParameterMarkdown();
  } else {
    WriteRegistryListing(out);
  }
  return kExitHolds;
}

}  // namespace slotguard
