#include "runner/null_block_effect.h"

#include "registry/invariants.h"

namespace slotguard {

NullBlockEffect EffectOf(const std::map<std::string, int64_t>& counts, bool writers_ran) {
  if (counts.count(kInvariantNullBytes)) return NullBlockEffect::kWrite;
  if (!counts.count(kInvariantNullBlock)) return NullBlockEffect::kNone;
  return writers_ran ? NullBlockEffect::kHazardNoWrite : NullBlockEffect::kHazard;
}

const char* EffectName(NullBlockEffect effect) {
  switch (effect) {
    case NullBlockEffect::kHazard:
      return "hazard";
    case NullBlockEffect::kHazardNoWrite:
      return "hazard, no write";
    case NullBlockEffect::kWrite:
      return "write";
    case NullBlockEffect::kNone:
      break;
  }
  return "";
}

}  // namespace slotguard
