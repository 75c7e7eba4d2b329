// The host executor: runs scenario plans (plan/scenario_plan.h) on the CPU.
// slotguard's steps run the kernels' own per-token source in a host loop
// (kernels/host_loop.h), both geometries, with every table read
// instrumented; description steps run their interpretation; the
// implementation's steps of each wave go to it in one batch, many
// scenarios' at once; then the writers run from the engine outputs.
#ifndef SLOTGUARD_BACKEND_HOST_EXECUTOR_H_
#define SLOTGUARD_BACKEND_HOST_EXECUTOR_H_

#include <string>
#include <vector>

#include "plan/group_outputs.h"
#include "plan/scenario_plan.h"

namespace slotguard {

struct HostRun {
  const ScenarioPlan* plan = nullptr;
  std::vector<GroupOutputs>* outputs = nullptr;  // [groups]
};

struct HostExecution {
  MappingProvider* provider = nullptr;  // runs the plans' kProvider steps
  WriterOptions writers;
  bool flat = true;    // the flat geometry too (a graph replay runs the engine's only)
  bool reset = true;   // outputs zeroed and pools in their before-the-run state first (a replay keeps them)
  int threads = 1;
};

/// Runs every plan into its outputs: each one's outputs rewritten whole
/// (skipped and faulted scenarios included). False with *err only on an
/// environment failure of the provider.
bool ExecuteOnHost(const std::vector<HostRun>& runs, const HostExecution& how, std::string* err);

/// The plan's outputs before any run: zeroed output buffers, pools in their
/// before-the-run state (what ExecuteOnHost starts from with `reset`).
void ResetOnHost(const ScenarioPlan& plan, const HostExecution& how, std::vector<GroupOutputs>* outputs);

/// Block 0 of every pool of the plan's groups set to zero, the rest kept.
void ZeroNullBlocksOnHost(const ScenarioPlan& plan, std::vector<GroupOutputs>* outputs);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_HOST_EXECUTOR_H_
