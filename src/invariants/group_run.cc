// What the invariants address by: the group's description (like the
// reference, independent of the kernels).
#include "invariants/group_run.h"
#include "registry/invariants.h"

#include <algorithm>

#include "family/request_plan.h"
#include "family/group_model.h"

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
  run->null_page_read = m.null_page_read;
  run->pad_value = m.pad_value;
  run->ops_per_request = 0;
  const GroupModel model(*run->group);
  if (model.kind().per_request()) {  // elements per request: 1 for a state index, ops for block operations
    std::string unused;
    if (!model.RequestElements(&run->ops_per_request, &unused)) run->ops_per_request = 1;
    run->ops_per_request = std::max<int64_t>(run->ops_per_request, 1);
  }
}

bool RowHolds(const GroupRun& run, int32_t r, int64_t id) {
  const Batch& b = run.batch();
  if (r < 0 || r >= b.num_reqs()) return false;
  if (b.dummy_run && run.null_page != NullPage::kRequest) return false;  // a dummy run's requests own no row
  // A ragged (CSR) table's row r is request r's own; else row_of.
  const int32_t row = FamilyModel(run.group->family).RowOf(b, r);
  const BlockTable& table = run.group->table;
  if (row < 0 || row >= table.rows) return false;
  for (int32_t c = 0; c < table.row_width(row); ++c)
    if (table.at(row, c) == id) return true;
  return false;
}

const std::vector<ConsumerDesc>& ConsumersOf(const Group& group) {
  const RequestDesc* request = GetVariant(group.variant).request;
  return request ? request->consumers : FamilyModel(group.family).request().consumers;
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
  return run.pad_value;
}

Finding TokenFinding(const GroupRun& run, const OutputRun& out, const char* invariant, int64_t t,
                     std::string detail) {
  Finding f;
  f.invariant = invariant;
  f.output = out.name;
  f.request = (*run.request_of_token)[t];
  if (run.ops_per_request > 0) {  // an element of a per-request output: a request (and an operation)
    if (run.ops_per_request > 1) f.op = t % run.ops_per_request;
  } else {
    f.token = t;
    f.position = run.batch().positions[t];
  }
  f.has_values = true;
  f.kernel = (*out.kernel)[t];
  f.reference = (*out.reference)[t];
  f.detail = std::move(detail);
  // Where the kernel agrees with the reference, the batch state is the
  // cause; not for the consumers' invariants, whose cause is their skip
  // tests (a forced variant's), whatever the index.
  if (f.kernel == f.reference && f.invariant != kInvariantDifferential && f.invariant != kInvariantGolden &&
      f.invariant != kInvariantSkipAgrees && f.invariant != kInvariantStateWrites)
    f.detail += run.ops_per_request > 0 ? " (the reference agrees: the batch state gives this request this index)"
                                        : " (the reference agrees: the batch state routes this token here)";
  return f;
}

}  // namespace slotguard
