#include "runner/conform_run.h"

#include "backend/described_kernel.h"
#include "invariants/group_cause.h"
#include "invariants/invariants.h"
#include "family/group_model.h"
#include "registry/families.h"
#include "registry/invariants.h"

namespace slotguard {

Variant EngineVariantOf(Family family) {
  const std::string& commit = FamilyModel(family).engine().commit;
  Variant v;
  if (!commit.empty() && LookupVariant(family, "engine_" + commit.substr(0, 8), &v)) return v;
  return FixedVariant(family);
}

Variant ConformVariantOf(Family family, const std::string& variant) {
  Variant v;
  if (!variant.empty() && LookupVariant(family, variant, &v)) return v;
  return EngineVariantOf(family);
}

void CheckConformance(const Scenario& scenario, const std::string& variant, size_t keep_per_invariant,
                      ScenarioRun* run) {
  CheckKernelOutputs(scenario, keep_per_invariant, run);
  if (!run->skipped.empty() || !run->reference_error.empty()) return;
  for (const FindingSink& sink : run->findings)
    if (sink.counts().count(kInvariantNoFault)) return;  // the kernel failed: its no_fault stands
  // Each group's engine variant, interpreted, a gate's linked group first.
  Scenario engine = scenario;
  for (Group& group : engine.groups) group.variant = ConformVariantOf(group.family, variant);
  const size_t n = engine.groups.size();
  std::vector<GroupOutputs> compared(n);
  std::vector<bool> done(n, false);
  for (const bool reads : {false, true})
    for (size_t i = 0; i < n; ++i) {
      const Group& group = engine.groups[i];
      const int gate = GateGroupIndex(engine, group);
      if ((gate >= 0) != reads || done[i]) continue;
      const int64_t* linked = gate >= 0 ? compared[static_cast<size_t>(gate)].engine[0].data() : nullptr;
      std::string err;
      if (!RunDescribedGroup(engine, group, linked, &compared[i], &err)) {
        run->reference_error = err;
        return;
      }
      done[i] = true;
    }
  run->findings.assign(n, FindingSink(keep_per_invariant));
  run->causes.assign(n, GroupCause());
  for (size_t i = 0; i < n; ++i) {
    run->reference[i] = std::move(compared[i].engine);
    // The reference is the engine variant's; no flat geometry: the engine's one launch.
    const GroupRun g = GroupRunOf(scenario, *run, i, /*with_flat=*/false);
    CheckDifferential(g, &run->findings[i]);
    if (run->findings[i].total() > 0) run->causes[i] = FindCause(g, run->findings[i]);
  }
}

bool RunConformance(const Scenario& scenario, const std::string& variant, Backend& backend,
                    size_t keep_per_invariant, ScenarioRun* run, std::string* err) {
  if (!backend.Run(scenario, &run->kernel, err)) return false;
  CheckConformance(scenario, variant, keep_per_invariant, run);
  return true;
}

}  // namespace slotguard
