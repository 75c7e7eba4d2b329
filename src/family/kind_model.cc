// The kinds' table: each kind's model (one file each), by FamilyKind (kinds.def).
#include "family/kind_model.h"

namespace slotguard {

bool KindModel::OutputLength(const FamilyDesc& d, const RequestDesc& request, const std::vector<int64_t>& params,
                             int64_t width, int64_t num_tokens, int64_t num_reqs, int64_t* length,
                             std::string* why) const {
  if (!per_request()) return *length = num_tokens, true;
  int64_t elements;
  if (!RequestElements(d, request, params, width, &elements, why)) return false;
  *length = elements * num_reqs;
  return true;
}

const std::vector<const KindModel*>& AllKindModels() {
  // FamilyKind order.
  static const std::vector<const KindModel*> all = {
#define SG_KIND(id) &id##Model(),
#include "family/kinds.def"
#undef SG_KIND
  };
  return all;
}

const KindModel& KindModelOf(FamilyKind kind) { return *AllKindModels()[static_cast<size_t>(kind)]; }

}  // namespace slotguard
