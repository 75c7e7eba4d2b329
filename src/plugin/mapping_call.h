// The plugin ABI's call struct (include/slotguard/plugin.h), filled from a
// plan step's arguments as the executor holds them.
#ifndef SLOTGUARD_PLUGIN_MAPPING_CALL_H_
#define SLOTGUARD_PLUGIN_MAPPING_CALL_H_

#include <string>
#include <vector>

#include "kernels/mapping_batch.h"
#include "plan/mapping_provider.h"
#include "kernels/table_view.h"
#include "registry/variant_ids.h"
#include "scenario/scenario.h"
#include "slotguard/plugin.h"

namespace slotguard {

/// A parameter of a built-in family as plugin ABI 2's per-family members
/// carry it (the ABI's own definition: the one place they are named).
struct Abi2Field {
  Family family;
  const char* param;  // its name in the family's description
  void (*set)(sg_mapping_call* call, int64_t value);
  int64_t (*get)(const sg_mapping_call& call);
};
const std::vector<Abi2Field>& Abi2Fields();

/// A call's inputs (ABI 4's input_names, input_per_token, input_values):
/// kept alive beside the call until it returns.
struct CallInputs {
  std::vector<std::vector<int64_t>> values;
  std::vector<const int64_t*> pointers;
  std::vector<const char*> names;
  std::vector<int32_t> per_token;
};

/// Fills the ABI-4 inputs of `call` (a call of `group` over `batch`) from
/// *keep, which it fills; false with *why when an input's default fails.
bool SetCallInputs(const Group& group, const Batch& batch, CallInputs* keep, sg_mapping_call* call, std::string* why);

/// `batch`, `table` and `out` hold device pointers for a device call, host
/// pointers for a host call; `common` is the qsa_compressed common mapping.
sg_mapping_call MakeMappingCall(const Group& group, const MappingBatch& batch, const TableLayout& table,
                                const MappingOutputs& out, const int64_t* common, void* stream);

/// The call of one step of `call` (an entry of call.steps).
sg_mapping_call MakeMappingCall(const StepCall& call, const StepArgs& args);

}  // namespace slotguard

#endif  // SLOTGUARD_PLUGIN_MAPPING_CALL_H_
