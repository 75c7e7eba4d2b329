#include "plugin/abi_provider.h"

#include "plan/scenario_plan.h"
#include "plugin/mapping_call.h"
#include "util/running_group.h"

namespace slotguard {

bool AbiProvider::RunCalls(std::vector<StepCall>* calls, bool device, int /*threads*/, std::string* /*err*/) {
  std::vector<sg_mapping_call> abi;
  for (StepCall& call : *calls) {
    abi.clear();
    for (const StepArgs& args : call.steps) abi.push_back(MakeMappingCall(call, args));
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
