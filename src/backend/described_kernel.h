// The implementation of a group whose variant slotguard has no kernel of
// its own for: a family that is only a description (families/, a
// --family-file), or a variant a description declares ("variants"). Unless
// another implementation is given for it (--kernel-lib, --kernel-cmd, ...),
// the description's own interpretation runs: for the fixed variant that
// checks the description against its goldens and the invariants; for a
// declared variant (an engine's behaviour), it shows what the invariants
// catch of it.
#ifndef SLOTGUARD_BACKEND_DESCRIBED_KERNEL_H_
#define SLOTGUARD_BACKEND_DESCRIBED_KERNEL_H_

#include <string>

#include "backend/backend.h"
#include "scenario/scenario.h"

namespace slotguard {

/// Whether the group runs its description's interpretation: no built-in
/// kernel implements its variant and `provider` (may be nullptr) does not run it.
bool RunsDescription(const Group& group, const MappingProvider* provider);
/// Whether any group of the scenario does.
bool AnyRunsDescription(const Scenario& scenario, const MappingProvider* provider);

/// Runs the group's variant's mapping over the scenario into out->engine
/// (no flat geometry). `linked`: the gate's linked group's output 0, or
/// nullptr. False with *err when a formula fails on this scenario.
bool RunDescribedGroup(const Scenario& scenario, const Group& group, const int64_t* linked, GroupOutputs* out,
                       std::string* err);

/// The skip mask of output `output`'s writer (WriterSkipMask): its writer
/// gate over the linked group's output 0 as the implementation produced it
/// (`linked`, or nullptr), and a dummy's tokens when the writer skips
/// dummies; empty when none.
std::vector<uint8_t> WriterSkips(const Scenario& scenario, const Group& group, int output, const int64_t* linked);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_DESCRIBED_KERNEL_H_
