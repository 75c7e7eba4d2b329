#include "backend/described_kernel.h"

#include "family/family_plan.h"
#include "family/request_plan.h"
#include "scenario/family_params.h"

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
  const FamilyDesc& desc = DescOf(group.family);
  const MappingDesc* mapping = GetVariant(group.variant).mapping;
  if (!mapping) mapping = &desc.mapping;
  const RequestDesc* request = GetVariant(group.variant).request;
  if (!request) request = &desc.request;
  GroupPlan plan;
  Interpretation result;
  std::string why;
  const bool ok = desc.kind != FamilyKind::kSlotMapping
                      ? InterpretRequests(desc, *request, group.params, scenario.batch, group.table, false, &result, &why)
                      : MakeGroupPlan(desc, *mapping, group.params, scenario.batch, &plan, &why) &&
                            Interpret(plan, scenario.batch, group.table, linked, /*with_facts=*/false, &result, &why);
  if (!ok) {
    *err = "group " + group.name + " (" + desc.name + ", variant " + GetVariant(group.variant).name + "): " + why;
    return false;
  }
  out->engine = std::move(result.slots);
  out->flat.clear();
  return true;
}

std::vector<uint8_t> WriterSkips(const Scenario& scenario, const Group& group, int output, const int64_t* linked) {
  const FamilyDesc& desc = DescOf(group.family);
  const MappingDesc& mapping = WriterMappingOf(group);
  const WriterDesc& writer = mapping.outputs[output].writer;
  if (!(writer.gate.present() && linked) && writer.dummies != WriterDummies::kSkip && writer.token_skip.empty())
    return {};
  GroupPlan plan;
  std::string unused;
  if (!MakeGroupPlan(desc, mapping, group.params, scenario.batch, &plan, &unused)) return {};
  return WriterSkipMask(plan, output, scenario.batch, linked);
}

}  // namespace slotguard
