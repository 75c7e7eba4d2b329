// Dispatch from a group to its family's reference.
#include "reference/reference.h"

namespace slotguard {
namespace {

/// The common mapping of a qsa_compressed group: its `common` paged group's
/// reference output, or (DESIGN 2.4) PAD exactly for tokens t >= qsl[R].
std::vector<int64_t> CommonMapping(const Scenario& scenario, const Group& group) {
  for (const Group& other : scenario.groups)
    if (!group.common.empty() && other.name == group.common) return ReferencePaged(scenario.batch, other);
  std::vector<int64_t> common(scenario.batch.num_tokens, kPadSlot);
  for (int64_t t = 0; t < scenario.batch.num_real_tokens(); ++t) common[t] = 0;
  return common;
}

}  // namespace

std::vector<std::vector<int64_t>> ReferenceOutputs(const Scenario& scenario, const Group& group) {
  std::vector<std::vector<int64_t>> outputs;  // moved in: an initializer list would copy
  switch (group.family) {
    case Family::kPaged:
      outputs.push_back(ReferencePaged(scenario.batch, group));
      break;
    case Family::kKpoolTail:
      outputs.push_back(ReferenceKpoolTail(scenario.batch, group));
      break;
    case Family::kQsaRing:
      outputs.push_back(ReferenceQsaRing(scenario.batch, group));
      break;
    case Family::kQsaCompressed:
      outputs.push_back(ReferenceQsaCompressed(scenario.batch, group, CommonMapping(scenario, group)));
      break;
    case Family::kCompressorRing:
      outputs = ReferenceCompressorRing(scenario.batch, group);
      break;
  }
  return outputs;
}

}  // namespace slotguard
