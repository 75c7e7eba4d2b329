// An implementation called through the plugin ABI's call struct
// (include/slotguard/plugin.h): a plugin library, a compiled kernel. It
// runs in slotguard's process (or a worker's) on the executor's buffers:
// RunCalls makes each plan step's sg_mapping_call and launches it, in the
// order given, so a step's gate may read an earlier step's output.
#ifndef SLOTGUARD_PLUGIN_ABI_PROVIDER_H_
#define SLOTGUARD_PLUGIN_ABI_PROVIDER_H_

#include <string>
#include <vector>

#include "plan/mapping_provider.h"
#include "slotguard/plugin.h"

namespace slotguard {

class AbiProvider : public MappingProvider {
 public:
  /// One mapping call: device pointers and a stream when `device`, host
  /// pointers otherwise. False with *err when the implementation reported
  /// an error (a fault of the implementation, not of the environment).
  virtual bool Launch(const sg_mapping_call& call, bool device, std::string* err) = 0;
  /// A whole-scenario call (takes_whole_scenarios): every step's call.
  virtual bool LaunchScenario(const std::vector<sg_mapping_call>& calls, bool device, std::string* err) {
    for (const sg_mapping_call& call : calls)
      if (!Launch(call, device, err)) return false;
    return true;
  }

  bool RunCalls(std::vector<StepCall>* calls, bool device, int threads, std::string* err) override;
};

}  // namespace slotguard

#endif  // SLOTGUARD_PLUGIN_ABI_PROVIDER_H_
