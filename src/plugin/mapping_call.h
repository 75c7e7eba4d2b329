// The plugin ABI's call struct (include/slotguard/plugin.h), filled from
// what the backends already hold for their own kernels.
#ifndef SLOTGUARD_PLUGIN_MAPPING_CALL_H_
#define SLOTGUARD_PLUGIN_MAPPING_CALL_H_

#include <string>
#include <vector>

#include "kernels/mapping_batch.h"
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

/// `batch`, `table` and `out` hold device pointers for a device call, host
/// pointers for a host call; `common` is the qsa_compressed common mapping.
sg_mapping_call MakeMappingCall(const Group& group, const MappingBatch& batch, const TableLayout& table,
                                const MappingOutputs& out, const int64_t* common, void* stream);

class MappingProvider;

/// Why `provider` cannot be handed `batch` as it is, or "": an ABI-1 plugin
/// or spec-1 kernel takes int32 seq_lens, so a seq_len past INT32_MAX would
/// reach it saturated and its right answer would look wrong.
std::string ProviderCannotTake(const MappingProvider& provider, const Batch& batch);

}  // namespace slotguard

#endif  // SLOTGUARD_PLUGIN_MAPPING_CALL_H_
