// The reference of every family: its description, interpreted; and the
// dispatch to the hand-written references (generated from families.def).
#include "reference/reference.h"

#include <functional>


namespace slotguard {

bool GroupReference(const Scenario& scenario, const Group& group, const int64_t* linked, bool facts,
                    Interpretation* out, std::string* err) {
  // The family's own description, run by its kind's interpreter.
  const GroupModel model(group);
  std::string why;
  if (model.Interpret(scenario.batch, linked, facts, /*variant=*/false, out, &why)) return true;
  *err = "group " + group.name + " (" + model.name() + "): " + why;
  return false;
}

bool ScenarioReference(const Scenario& scenario, bool facts, std::vector<Interpretation>* out, std::string* err) {
  // Each group once, a linked group's first when a gate reads it (a linked
  // group reads no other group: the loader checks it). The oracle orders
  // the groups itself, from the spec, not from the backends' plan.
  out->assign(scenario.groups.size(), Interpretation());
  std::vector<bool> done(scenario.groups.size(), false);
  std::function<bool(size_t)> compute = [&](size_t i) {
    if (done[i]) return true;
    done[i] = true;
    const Group& group = scenario.groups[i];
    const int gate = GateGroupIndex(scenario, group);
    if (gate >= 0 && !compute(static_cast<size_t>(gate))) return false;
    const int64_t* linked = gate >= 0 ? (*out)[gate].slots[0].data() : nullptr;
    return GroupReference(scenario, group, linked, facts, &(*out)[i], err);
  };
  for (size_t i = 0; i < scenario.groups.size(); ++i)
    if (!compute(i)) return false;
  return true;
}

std::vector<std::vector<int64_t>> ReferenceOutputs(const Scenario& scenario, const Group& group) {
  const int gate = GateGroupIndex(scenario, group);
  Interpretation linked, own;
  std::string err;
  if (gate >= 0 && !GroupReference(scenario, scenario.groups[gate], nullptr, false, &linked, &err)) return {};
  if (!GroupReference(scenario, group, gate >= 0 ? linked.slots[0].data() : nullptr, false, &own, &err)) return {};
  return std::move(own.slots);
}

bool HandReference(const Scenario& scenario, const Group& group, std::vector<std::vector<int64_t>>* out) {
  using Fn = std::vector<std::vector<int64_t>> (*)(const Scenario&, const Group&);
  static const Fn kHand[] = {
#define SG_FAMILY(id, name) &HandReference##id,
#include "registry/families.def"
#undef SG_FAMILY
  };
  const int f = static_cast<int>(group.family);
  if (f < 0 || f >= kKernelFamilyCount) return false;
  *out = kHand[f](scenario, group);
  return true;
}

}  // namespace slotguard
