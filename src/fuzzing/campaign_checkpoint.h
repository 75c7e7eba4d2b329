// A running campaign's result as its checkpoints show it (CampaignOptions::
// checkpoint: fuzz writes its --json there, atomically, at least every
// minute), so that a campaign killed from outside loses at most a minute.
#ifndef SLOTGUARD_FUZZING_CAMPAIGN_CHECKPOINT_H_
#define SLOTGUARD_FUZZING_CAMPAIGN_CHECKPOINT_H_

#include "fuzzing/campaign.h"

namespace slotguard {

/// `result` as it stands after `seconds`: every finding the schedulers
/// tallied and have not shrunk yet is there as its first scenario, unshrunk
/// (its signature the key's, with that scenario's shape; no reproducer
/// written yet, which reproducer_error says).
CampaignResult CheckpointSnapshot(const CampaignOptions& options, const CampaignResult& result, double seconds);

}  // namespace slotguard

#endif  // SLOTGUARD_FUZZING_CAMPAIGN_CHECKPOINT_H_
