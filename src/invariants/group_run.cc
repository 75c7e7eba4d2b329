// What the invariants address by: the group's description (like the
// reference, independent of the kernels).
#include "invariants/group_run.h"
#include "registry/invariants.h"

#include <algorithm>

#include "scenario/family_params.h"

namespace slotguard {

void SetAddressing(GroupRun* run) {
  const GroupShape shape = ShapeOf(*run->group);
  run->slots_per_entry = shape.page;
  run->null_entries = shape.null_entries;
  run->slot_limit = int64_t{run->scenario->num_blocks} * run->page();
  const MappingDesc& m = MappingOf(*run->group);
  run->tail_start = MappedEnd(m, run->scenario->batch);
  run->mapped_end = m.tail_value == TailValue::kSlotMappingIn ? run->tail_start : run->scenario->batch.num_tokens;
  run->tail_value = m.tail_value;
  run->null_page = m.null_page;
}

std::vector<int32_t> RequestOfToken(const Batch& batch, const Group& group) {
  const MappingDesc& m = MappingOf(group);
  return OwnersOf(m, batch, MappedEnd(m, batch));
}

int64_t PaddingValue(const GroupRun& run, int64_t t) {
  switch (run.tail_value) {
    case TailValue::kSlotMappingIn:
      return run.batch().slot_mapping_in[t];
    case TailValue::kNullSlot:
      return 0;
    case TailValue::kPad:
      break;
  }
  return kPadSlot;
}

Finding TokenFinding(const GroupRun& run, const OutputRun& out, const char* invariant, int64_t t,
                     std::string detail) {
  Finding f;
  f.invariant = invariant;
  f.output = out.name;
  f.token = t;
  f.request = (*run.request_of_token)[t];
  f.position = run.batch().positions[t];
  f.has_values = true;
  f.kernel = (*out.kernel)[t];
  f.reference = (*out.reference)[t];
  f.detail = std::move(detail);
  if (f.kernel == f.reference && f.invariant != kInvariantDifferential && f.invariant != kInvariantGolden)
    f.detail += " (the reference agrees: the batch state routes this token here)";
  return f;
}

}  // namespace slotguard
