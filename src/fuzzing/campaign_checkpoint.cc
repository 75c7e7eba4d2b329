#include "fuzzing/campaign_checkpoint.h"

#include <set>

#include "registry/invariants.h"

namespace slotguard {

CampaignResult CheckpointSnapshot(const CampaignOptions& options, const CampaignResult& result, double seconds) {
  CampaignResult snapshot = result;
  snapshot.seconds = seconds;
  for (const CampaignResult::KeyTally& key : result.keys) {
    if (key.first.empty()) continue;
    CampaignFinding f;
    f.finding_index = key.first[0];
    f.original = CampaignScenario(options, f.finding_index, nullptr);
    f.minimized = f.original;
    f.signature = key.key;
    f.signature.shape = ScenarioShape(f.original);
    f.count = key.count;
    f.fired = key.key.invariants;
    f.invariant = MostSpecificInvariant(std::set<std::string>(f.fired.begin(), f.fired.end()));
    f.reproducer_error = "reproducer not written yet: the campaign is still running (a checkpoint)";
    snapshot.findings.push_back(std::move(f));
  }
  snapshot.keys.clear();
  return snapshot;
}

}  // namespace slotguard
