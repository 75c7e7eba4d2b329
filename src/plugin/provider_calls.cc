#include "plugin/provider_calls.h"

#include <algorithm>

#include "plugin/mapping_call.h"
#include "util/running_group.h"

namespace slotguard {

std::string ProviderSkips(const MappingProvider& provider, const Scenario& scenario) {
  for (const Group& group : scenario.groups) {
    if (!provider.Runs(group.family, group.variant)) continue;
    // A batch it cannot be handed faithfully (an ABI-1 plugin's int32
    // seq_lens): not a verdict on its kernel, and no fault either.
    const std::string cannot_take = ProviderCannotTake(provider, scenario.batch);
    if (!cannot_take.empty()) return "group " + group.name + ": " + cannot_take;
    const std::string why = provider.SkipReason(scenario, group);
    if (!why.empty()) return "group " + group.name + ": " + why;
  }
  return "";
}

bool ProviderCalls::Add(size_t group, const sg_mapping_call& call, std::string* failure) {
  calls_.push_back(call);
  queued_.push_back(group);
  return provider_.takes_whole_scenarios() || Flush(failure);
}

bool ProviderCalls::Flush(std::string* failure) {
  if (calls_.empty()) return true;
  SetRunningGroup(static_cast<int64_t>(queued_.front()));  // a crash in the call is this group's
  const bool ok = calls_.size() == 1 && !provider_.takes_whole_scenarios()
                      ? provider_.Launch(calls_[0], device_, failure)
                      : provider_.LaunchScenario(calls_, device_, failure);
  SetRunningGroup(-1);
  if (!ok) failed_ = queued_.front();
  ran_.insert(ran_.end(), queued_.begin(), queued_.end());
  calls_.clear();
  queued_.clear();
  return ok;
}

bool ProviderCalls::Pending(size_t group) const {
  return std::find(queued_.begin(), queued_.end(), group) != queued_.end();
}

}  // namespace slotguard
