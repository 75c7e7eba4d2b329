#include "plugin/abi_provider.h"

#include <deque>

#include "plan/scenario_plan.h"
#include "plugin/mapping_call.h"
#include "util/running_group.h"

namespace slotguard {

bool AbiProvider::RunCalls(std::vector<StepCall>* calls, bool device, int /*threads*/, std::string* /*err*/) {
  std::vector<sg_mapping_call> abi;
  std::deque<CallInputs> inputs;  // each call's inputs (ABI 4), alive until it returns
  for (StepCall& call : *calls) {
    abi.clear();
    inputs.clear();
    std::string problem;
    for (const StepArgs& args : call.steps) {
      abi.push_back(MakeMappingCall(call, args));
      const Scenario& s = *call.plan->scenario;
      const Group& group = s.groups[call.plan->steps[args.step].group];
      inputs.emplace_back();
      if (!SetCallInputs(group, s.batch, &inputs.back(), &abi.back(), &problem)) break;
      // The device call has no copy of the inputs on the device yet.
      if (device && abi.back().num_inputs > 0) {
        problem = "group '" + group.name + "': the gpu backend does not hand a plugin its family's inputs yet; "
                  "expected --backend host";
        break;
      }
    }
    if (!problem.empty()) {
      call.outcome = StepCall::Outcome::kFault;
      call.message = problem;
      call.culprit = 0;
      continue;
    }
    const size_t first = call.plan->steps[call.steps.front().step].group;
    SetRunningGroup(static_cast<int64_t>(first));  // a crash in the call is this group's
    std::string failure;
    const bool ok = takes_whole_scenarios() ? LaunchScenario(abi, device, &failure) : Launch(abi[0], device, &failure);
    SetRunningGroup(-1);
    if (ok) continue;
    call.outcome = StepCall::Outcome::kFault;
    call.message = failure;
    call.culprit = 0;
  }
  return true;
}

}  // namespace slotguard
