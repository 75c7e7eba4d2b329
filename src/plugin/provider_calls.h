// A scenario's calls to another implementation (mapping_provider.h), as the
// backends make them: one per group, or, for a provider that takes whole
// scenarios, one for all its groups. The backends walk the groups in run
// order and hand each provided group's call here; a group of slotguard's
// own that reads a provided group's output flushes first.
#ifndef SLOTGUARD_PLUGIN_PROVIDER_CALLS_H_
#define SLOTGUARD_PLUGIN_PROVIDER_CALLS_H_

#include <string>
#include <vector>

#include "plugin/mapping_provider.h"
#include "scenario/scenario.h"

namespace slotguard {

/// Why the provider does not take the scenario ("group NAME: reason"), or
/// "" when it takes every group it runs: a batch it cannot be handed as it
/// is (ProviderCannotTake: seq_lens past int32 for an ABI-1 plugin or a
/// spec-1 kernel), or its own MappingProvider::SkipReason.
std::string ProviderSkips(const MappingProvider& provider, const Scenario& scenario);

class ProviderCalls {
 public:
  ProviderCalls(MappingProvider& provider, bool device) : provider_(provider), device_(device) {}

  /// Queues group `group`'s call; a per-group provider runs it now. The
  /// call's buffers must stay valid until the call has run (Flush). False
  /// with *failure when the provider reported an error.
  bool Add(size_t group, const sg_mapping_call& call, std::string* failure);
  /// Runs what is queued: a whole-scenario provider's one call.
  bool Flush(std::string* failure);
  /// Whether group `group`'s call is queued and has not run yet.
  bool Pending(size_t group) const;
  /// The groups whose calls ran, in the order they were added.
  const std::vector<size_t>& ran() const { return ran_; }
  /// After a failed Add or Flush: the first group of the failed call.
  size_t failed_group() const { return failed_; }

 private:
  MappingProvider& provider_;
  const bool device_;
  std::vector<sg_mapping_call> calls_;
  std::vector<size_t> queued_, ran_;
  size_t failed_ = 0;
};

}  // namespace slotguard

#endif  // SLOTGUARD_PLUGIN_PROVIDER_CALLS_H_
