#include "backend/described_kernel.h"

#include <algorithm>

#include "family/family_plan.h"
#include "family/request_plan.h"
#include "family/group_model.h"

namespace slotguard {

bool RunsDescription(const Group& group, const MappingProvider* provider) {
  if (GetVariant(group.variant).kernel) return false;
  return !(provider && provider->Runs(group.family, group.variant));
}

bool AnyRunsDescription(const Scenario& scenario, const MappingProvider* provider) {
  for (const Group& group : scenario.groups)
    if (RunsDescription(group, provider)) return true;
  return false;
}

bool RunDescribedGroup(const Scenario& scenario, const Group& group, const int64_t* linked, GroupOutputs* out,
                       std::string* err) {
  const GroupModel model(group);
  Interpretation result;
  std::string why;
  if (!model.Interpret(scenario.batch, linked, /*with_facts=*/false, /*variant=*/true, &result, &why)) {
    *err = "group " + group.name + " (" + model.name() + ", variant " + GetVariant(group.variant).name + "): " + why;
    return false;
  }
  out->engine = std::move(result.slots);
  out->flat.clear();
  // A description whose kernel reads past the row (range "none": an engine
  // variant without its range guard) reads there, as the engine does: the
  // reads are recorded as the host backend records a kernel's, for row_bounds.
  const MappingDesc* mapping = GetVariant(group.variant).mapping;
  if (!mapping) mapping = &model.mapping();
  GroupPlan plan;
  if (model.kind().ReadsPastRows(*mapping) && model.MakePlan(*mapping, scenario.batch, &plan, &why)) {
    const bool ragged = model.RaggedRows(*mapping);
    const int64_t n = scenario.batch.num_tokens;
    if (static_cast<int64_t>(out->read_past_row.size()) != n) out->read_past_row.assign(static_cast<size_t>(n), 0);
    const BlockTable& table = group.table;
    const int64_t min_width = plan.min_width;
    // A dummy that every output pads owns no state: the description reads no
    // row for it (its dummy rule decides before its column).
    bool dummies_read = false;
    for (const OutputDesc& o : mapping->outputs) dummies_read = dummies_read || o.dummy == DummyRule::kRow;
    ForEachAddress(plan, scenario.batch, [&](int64_t t, int32_t r, bool selected, int64_t col) {
      const int32_t row = ragged ? r : scenario.batch.row_of(r);
      if (!selected || col < 0 || row < 0 || row >= table.rows) return;
      if (!dummies_read && scenario.batch.is_dummy(r)) return;
      if (col >= std::max<int64_t>(table.row_width(row), min_width)) out->read_past_row[t] = 1;
    });
    if (out->row_bounds_evidence.empty()) out->row_bounds_evidence = "the description's kernel reads past the row";
  }
  return true;
}

std::vector<uint8_t> WriterSkips(const Scenario& scenario, const Group& group, int output, const int64_t* linked) {
  const GroupModel model(group);
  const MappingDesc& mapping = WriterMappingOf(group);
  const WriterDesc& writer = mapping.outputs[output].writer;
  if (!(writer.gate.present() && linked) && writer.dummies != WriterDummies::kSkip && writer.token_skip.empty())
    return {};
  GroupPlan plan;
  std::string unused;
  if (!model.MakePlan(mapping, scenario.batch, &plan, &unused)) return {};
  return WriterSkipMask(plan, output, scenario.batch, linked);
}

}  // namespace slotguard
