// What a campaign is asked to check, as fuzz's and prove's flags say it:
// the seed's stream and this shard of it, its budget (--runs, --time,
// --keep-going), its threads, the variant it forces and its reproducers'
// folder. Declared once: the campaign's options (fuzzing/campaign.h, and
// through them a proof's, prove/prove_run.h) and the fuzz and prove
// commands' (cli/commands.h) embed it, and the flags table's rows
// (cli/flags.def) fill it by name.
#ifndef SLOTGUARD_FUZZING_CAMPAIGN_SETTINGS_H_
#define SLOTGUARD_FUZZING_CAMPAIGN_SETTINGS_H_

#include <cstdint>
#include <string>
#include <utility>

namespace slotguard {

struct CampaignSettings {
  std::string variant;      // --variant: forced on every group whose family has it; "" = fixed
  uint64_t seed = 1;        // --seed: scenario i depends only on (seed, i)
  int64_t runs = -1;        // --runs: < 0: unbounded
  double seconds = 60;      // --time: <= 0: unbounded
  /// --shard I/N: this campaign checks scenarios I, I + N, I + 2N, ... of
  /// the seed's stream (N campaigns with I = 0..N-1 check it all, disjoint).
  /// The commands parse the flag's text into these (ParseShard).
  int64_t shard = 0, shards = 1;
  /// --keep-going: check the whole budget and report every distinct
  /// finding; else stop at the first finding no suppression covers.
  bool keep_going = false;
  /// --shrink-share: with keep_going and --time, each new finding is shrunk
  /// when the campaign meets it, within this share of --time in all, each
  /// finding within half of it (fuzzing.md#shrinking-within-the-budget).
  double shrink_share = 0.25;
  /// --crash-sample: with keep_going, a crash class that recurred defers
  /// its scenarios but one every this many seconds (fuzzing/crash_classes.h);
  /// 0: no class defers anything.
  double crash_sample = 10;
  int jobs = 1;             // -j: threads
  std::string out_dir = ".";  // --out: the reproducers' directory
};

/// The settings with a command's own defaults of --time and --out (fuzz's,
/// prove's), the rest as declared above.
inline CampaignSettings CampaignSettingsWith(double seconds, std::string out_dir) {
  CampaignSettings s;
  s.seconds = seconds;
  s.out_dir = std::move(out_dir);
  return s;
}

}  // namespace slotguard

#endif  // SLOTGUARD_FUZZING_CAMPAIGN_SETTINGS_H_
