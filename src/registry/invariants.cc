#include "registry/invariants.h"

namespace slotguard {

const std::vector<InvariantInfo>& AllInvariants() {
  using namespace invariant_kinds;  // NOLINT: the kinds column's names
  static const std::vector<InvariantInfo> invariants = {
#define SG_MAPPING_INVARIANT(id, name, rank, kinds, description) \
  {name, InvariantStage::kMapping, rank, description, kinds},
#define SG_MEMORY_INVARIANT(id, name, rank, description) {name, InvariantStage::kMemory, rank, description},
#define SG_RUN_INVARIANT(id, name, rank, description) {name, InvariantStage::kRun, rank, description},
#include "registry/invariants.def"
#undef SG_MAPPING_INVARIANT
#undef SG_MEMORY_INVARIANT
#undef SG_RUN_INVARIANT
  };
  return invariants;
}

std::vector<std::string> AllInvariantNames() {
  std::vector<std::string> names;
  for (const InvariantInfo& info : AllInvariants()) names.push_back(info.name);
  return names;
}

bool IsMemoryInvariant(const std::string& name) {
  for (const InvariantInfo& info : AllInvariants())
    if (info.name == name) return info.stage == InvariantStage::kMemory;
  return false;
}

bool IsInvariantName(const std::string& name) {
  for (const InvariantInfo& info : AllInvariants())
    if (name == info.name) return true;
  return false;
}

std::string MostSpecificInvariant(const std::set<std::string>& fired) {
  const InvariantInfo* best = nullptr;
  for (const InvariantInfo& info : AllInvariants())
    if (fired.count(info.name) && (!best || info.rank < best->rank)) best = &info;
  return best ? best->name : "";
}

}  // namespace slotguard
