#include "fuzzing/campaign_checkpoint.h"

#include <set>

#include "registry/invariants.h"

namespace slotguard {

CampaignResult CheckpointSnapshot(const CampaignOptions& options, const CampaignResult& result, double seconds) {
  CampaignResult snapshot = result;
  snapshot.seconds = seconds;
  // Findings shrunk as found: their reproducers are written at the end.
  for (CampaignFinding& f : snapshot.findings)
    if (f.suppressed_by < 0 && f.file.empty() && f.reproducer_error.empty())
      f.reproducer_error = "reproducer not written yet: the campaign is still running (a checkpoint)";
  for (const CampaignResult::KeyTally& key : result.keys) {
    if (key.first.empty()) continue;
    if (key.shrunk > 0) {  // its shrunk findings are listed; the rest counted with them when they agree
      if (key.gave.size() == 1)
        for (CampaignFinding& f : snapshot.findings)
          if (f.signature.Id() == *key.gave.begin()) f.count += key.count - static_cast<int64_t>(key.shrunk);
      continue;
    }
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
