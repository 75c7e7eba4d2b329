// Conformance (`fuzz --conform`, docs/conformance.md): the implementation is
// the engine's own kernel, and the description answers to it. Each group's
// reference is its family's engine variant, interpreted; only
// `differential` is judged. A disagreement is a bug of the description,
// never of the kernel.
#ifndef SLOTGUARD_RUNNER_CONFORM_RUN_H_
#define SLOTGUARD_RUNNER_CONFORM_RUN_H_

#include <cstddef>
#include <string>

#include "runner/scenario_run.h"
#include "scenario/scenario.h"

namespace slotguard {

/// The variant a family's engine description says the engine runs:
/// "engine_" and the first 8 characters of its engine commit when the
/// family declares a variant of that name, else its fixed variant (a
/// description whose own knobs are the engine's).
Variant EngineVariantOf(Family family);

/// The variant a group is compared with: `variant` when its family
/// declares one of that name (`fuzz --conform --variant V`), else its
/// engine variant.
Variant ConformVariantOf(Family family, const std::string& variant);

/// The checking half of a conformance run: run->kernel holds the
/// implementation's outputs. A skipped or faulted run is reported as
/// CheckKernelOutputs reports it. Otherwise each group's reference becomes
/// its ConformVariantOf's interpretation, and the only findings are
/// `differential`'s: where the kernel's output differs from it.
void CheckConformance(const Scenario& scenario, const std::string& variant, size_t keep_per_invariant,
                      ScenarioRun* run);

/// RunScenario with CheckConformance. False with *err when the backend failed.
bool RunConformance(const Scenario& scenario, const std::string& variant, Backend& backend,
                    size_t keep_per_invariant, ScenarioRun* run, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_RUNNER_CONFORM_RUN_H_
