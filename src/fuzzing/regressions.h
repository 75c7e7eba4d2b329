// fuzz --regressions DIR: a folder of past reproducers, replayed before each
// campaign (as Hypothesis replays its database first), with the campaign's
// new reproducers added to it. A reproducer holds once its bug is fixed (it
// expects no finding), so the folder stays green until a bug comes back.
#ifndef SLOTGUARD_FUZZING_REGRESSIONS_H_
#define SLOTGUARD_FUZZING_REGRESSIONS_H_

#include <string>
#include <vector>

#include "fuzzing/campaign.h"

namespace slotguard {

/// The scenario files under `dir`, sorted; none when it does not exist yet
/// or holds none. False with *err when it is not a directory or cannot be
/// listed.
bool RegressionFiles(const std::string& dir, std::vector<std::string>* files, std::string* err);

/// Copies each unsuppressed reproducer the campaign wrote into `dir`
/// (created when missing) under its own name: the same bug found again
/// writes the same file. Fills *added with the new paths (a reproducer
/// already there, or written there by --out, is not added again). False
/// with *err when one cannot be written.
bool AddRegressions(const std::string& dir, const CampaignResult& result, std::vector<std::string>* added,
                    std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_FUZZING_REGRESSIONS_H_
