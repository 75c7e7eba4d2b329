// A fuzz campaign: generate scenarios, check them, and on the first finding
// that blames the kernel (or, with keep_going, on every finding of the whole
// budget) shrink it and write the reproducer: one per distinct signature
// (findings/finding_signature.h), known differences suppressed
// (suppressions/suppressions.h). Deterministic for a seed: scenario i
// depends only on (seed, i), whatever the number of jobs.
#ifndef SLOTGUARD_FUZZING_CAMPAIGN_H_
#define SLOTGUARD_FUZZING_CAMPAIGN_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "fuzzing/campaign_settings.h"
#include "fuzzing/crash_classes.h"
#include "fuzzing/generators.h"
#include "findings/finding_signature.h"
#include "runner/scenario_run.h"
#include "scenario/scenario.h"
#include "suppressions/suppressions.h"

namespace slotguard {

struct CampaignResult;

/// Where a campaign's scenarios come from when not the generator: scenario
/// i of the stream from its index alone (prove's enumeration of a scope).
class ScenarioSource {
 public:
  virtual ~ScenarioSource() = default;
  virtual Scenario At(int64_t index) const = 0;
  /// What a reproducer's description says found scenario `index`:
  /// "slotguard prove --scope small (batch 12: ...)".
  virtual std::string FoundBy(int64_t index) const = 0;
};

struct CampaignOptions {
  GeneratorOptions generator;
  /// Null: the generator, seeded by settings.seed. Else scenario i is source->At(i)
  /// (laid out and variant forced as the generator's are).
  const ScenarioSource* source = nullptr;
  /// The variant, seed, runs, time, shard, keep-going, threads and --out
  /// (fuzzing/campaign_settings.h).
  CampaignSettings settings;
  bool tty_progress = false;  // a \r progress line (else a plain line every 10 s)
  int64_t batch_chunk = 8192; // scenarios per RunMany call on a batching backend
  const Suppressions* suppressions = nullptr;  // --suppressions; null: none
  std::string implementation = "slotguard";    // ImplementationName of the backend
  /// What each reproducer records of how it was found (its family_files are
  /// filled per reproducer): the backend that ran, the implementation, the
  /// writers. Its replay command names them.
  FoundBy found_by;
  /// --conform (runner/conform_run.h): each group is judged against its
  /// family's engine variant, by `differential` alone; a finding is a bug
  /// of the description, and its reproducer says so.
  bool conform = false;
  /// With conform: the variant compared where a family declares it (--conform --variant V, which then
  /// forces nothing on the groups); "": each family's engine variant.
  std::string conform_variant;
  /// A stop asked from outside: the signal (SIGINT, SIGTERM:
  /// util/stop_signals.h), 0 while none. Like --time's deadline it is
  /// checked before each scenario (on a batching backend, each chunk, sized
  /// to about half a second of work, growing at most twofold) and before
  /// each shrink candidate: the campaign then shrinks no further and
  /// writes what it found.
  const std::atomic<int>* stop = nullptr;
  /// Called with a snapshot of the result (campaign_checkpoint.h) at least
  /// every checkpoint_seconds while the campaign checks scenarios, and once
  /// before it shrinks: fuzz writes its --json there, atomically.
  std::function<void(const CampaignResult&)> checkpoint;
  double checkpoint_seconds = 60;
  // Set by RunCampaign, not by callers: where the schedulers start (this
  // campaign's k-th scenario) and the keys whose shrunk finding gave a
  // signature a suppression covers (key text -> that entry and signature).
  // Without keep_going, a campaign that stops at such a finding goes on
  // past it.
  int64_t start = 0;
  /// Each new finding is shrunk when the scheduler meets it (keep_going and
  /// a shrink share): the scheduler pauses after the chunk it was found in
  /// (CampaignResult::resume_at) while the budget's share allows
  /// (fuzzing.md#shrinking-within-the-budget).
  bool shrink_as_found = false;
  /// The campaign's crash classes (keep_going with a crash sample, not a
  /// proof's): the schedulers ask them before each scenario runs, and
  /// ShrinkFindings teaches them each crash it shrinks. Null: none.
  CrashClasses* crash_classes = nullptr;
  struct KnownKey {
    int entry = -1;
    std::string signature;  // FindingSignature::Id
  };
  std::map<std::string, KnownKey> known_keys;
};

/// With keep_going, the findings of one key (FindingSignature::Key) shrunk
/// at most: the first ones in stream order. The key's other findings are
/// counted, and attributed to a signature when all its shrunk ones gave it.
constexpr int kShrinksPerKey = 4;

/// One distinct finding of a campaign: a signature, its smallest reproducer.
struct CampaignFinding {
  FindingSignature signature;   // of the minimized scenario
  int64_t count = 0;            // findings with this signature (shrunk to it, or attributed by key)
  int64_t shrunk = 0;           // of those, shrunk to it
  int64_t finding_index = -1;   // the reproducer's scenario in the seed's stream (StreamIndex)
  std::string invariant;        // the invariant the reproducer keeps firing
  std::vector<std::string> fired;  // by the reproducer
  Scenario original;
  Scenario minimized;
  int suppressed_by = -1;       // the suppression entry its signature matches; -1: none
  std::string file;             // where the reproducer was written ("" when suppressed)
  std::string replay_command;   // a command that reproduces it: `slotguard replay` with the implementation
  // "reproducer not written: REASON" when it could not be written (`file`
  // is where it was to go; nothing is left there); "" when it was.
  std::string reproducer_error;
  std::vector<GroupReport> groups;  // the reproducer's groups with findings, as `check` reports them
  // --time's deadline or a stop came while it was being shrunk: `minimized`
  // is the smallest reproducer found until then.
  bool shrink_cut_short = false;
  // False when its scenario, run again, fired nothing: a fault of the
  // implementation's history (a crash or a device fault an earlier call
  // left), not of the scenario alone. It is then kept as generated,
  // unshrunk, with the invariants the campaign saw (its key's).
  bool recurred = true;
  bool written() const { return !file.empty() && reproducer_error.empty(); }
};

/// The stream index of this campaign's k-th scenario (its shard's).
inline int64_t StreamIndex(const CampaignOptions& options, int64_t k) {
  return options.settings.shard + k * options.settings.shards;
}

struct CampaignResult {
  int64_t scenarios = 0;  // checked: the deferred ones are not among them
  // Scenarios of a known crash class not run (fuzzing/crash_classes.h), and
  // each class once, with its counts.
  int64_t deferred = 0;
  std::vector<CrashClassReport> crash_classes;
  // What ended it before its budget: a stop signal (CampaignOptions::stop),
  // or the deadline of --time reached while it checked or shrank.
  int stop_signal = 0;
  bool deadline_reached = false;
  int64_t tokens = 0;
  double seconds = 0;
  // Batched (GPU) campaigns: busy time of each stage, to see what bounds
  // them: the backend's wall time, and the host workers' thread-seconds
  // divided by the jobs. The stages overlap (the backend runs chunk k while
  // the host generates chunk k+1 and checks chunk k-1), so these add up to
  // more than `seconds`.
  double generate_seconds = 0, kernel_seconds = 0, check_seconds = 0;
  Classification classes;
  // --inconsistent: scenarios whose findings the batch state explains (a
  // correct kernel has them too, BlamesKernel is false). They are counted
  // and the campaign goes on hunting a kernel finding.
  int64_t runner_state_findings = 0;
  int64_t first_runner_state_finding = -1;  // its scenario index, -1: none
  // Scenarios the implementation being checked did not take (a compiled
  // kernel's specializations or precondition, a provider's skip): neither
  // clean nor a finding.
  int64_t skipped = 0;
  std::string first_skip;       // why the first one was skipped
  // Findings: every scenario whose findings blame the kernel (or, without
  // --inconsistent, any finding) that no class entry covered before
  // shrinking (signature entries are matched after: their findings are
  // counted here and in their signature's count).
  int64_t finding_scenarios = 0;
  int64_t unattributed = 0;     // findings of keys whose shrunk ones gave several signatures, not shrunk
  std::vector<CampaignFinding> findings;  // distinct, in stream order of their reproducers
  int64_t suppressed_scenarios = 0;       // findings a suppression covered before shrinking
  std::vector<int64_t> suppression_matches;  // per suppression entry: findings it covered
  // The findings' keys (FindingSignature::Key) as the schedulers met them,
  // in stream order of each key's first finding: what gets shrunk.
  struct KeyTally {
    FindingSignature key;
    std::string text;  // key.Text()
    int64_t count = 0;
    std::vector<int64_t> first;  // stream indices of the first kShrinksPerKey (1 without keep_going)
    size_t shrunk = 0;           // of `first`, those shrunk already (a prefix)
    std::set<std::string> gave;  // the signatures (Id) they gave
  };
  std::vector<KeyTally> keys;
  // Without keep_going: the findings of keys taken as known (their shrunk
  // finding's signature is suppressed), by key text; RunCampaign adds them
  // to that signature's count.
  std::map<std::string, int64_t> known_key_findings;
  // Set by a scheduler that paused to let RunCampaign shrink what it found
  // (CampaignOptions::shrink_as_found): the campaign's position it goes on
  // from; -1 when it ran to its end.
  int64_t resume_at = -1;
  /// The first finding no suppression covers (its signature), or null.
  const CampaignFinding* FirstFound() const {
    for (const CampaignFinding& f : findings)
      if (f.suppressed_by < 0) return &f;
    return nullptr;
  }
  /// A finding no suppression covers: the campaign fails (exit 1).
  bool Found() const { return FirstFound() != nullptr; }
  /// Distinct signatures no suppression covers.
  int64_t Distinct() const {
    int64_t n = 0;
    for (const CampaignFinding& f : findings) n += f.suppressed_by < 0;
    return n;
  }
  /// A finding no suppression covers whose reproducer could not be written
  /// (a full disk): the finding is still reported, and the run exits 3.
  bool ReproducerUnwritten() const {
    for (const CampaignFinding& f : findings)
      if (f.suppressed_by < 0 && !f.reproducer_error.empty()) return true;
    return false;
  }
  /// The first finding no suppression covers whose reproducer was written, or null.
  const CampaignFinding* FirstWritten() const {
    for (const CampaignFinding& f : findings)
      if (f.suppressed_by < 0 && f.written()) return &f;
    return nullptr;
  }
  /// Findings a suppression covered: before shrinking, and by signature.
  int64_t SuppressedFindings() const {
    int64_t n = suppressed_scenarios;
    for (const CampaignFinding& f : findings) n += f.suppressed_by >= 0 ? f.count : 0;
    return n;
  }
};

/// The scenario at stream index `index` (StreamIndex): generated (or the
/// source's), in the generator's table_layout when one is given, variant
/// forced. It depends on (seed, index) only, so every shard's scenario is
/// the whole stream's.
Scenario CampaignScenario(const CampaignOptions& options, int64_t index, Classification* classes);

/// "I/N" (--shard): 0 <= I < N <= kMaxShards. False with *err in words.
constexpr int64_t kMaxShards = int64_t{1} << 30;
bool ParseShard(const std::string& text, int64_t* shard, int64_t* shards, std::string* err);

/// Creates the reproducers' directory (--out) before a campaign, so that a
/// long one does not end unable to write them. False with *err when it
/// cannot be created or written.
bool PrepareReproducerDir(const std::string& dir, std::string* err);

/// Runs the campaign. Returns false with *err on an environment failure. A
/// reproducer that cannot be written keeps its finding
/// (CampaignFinding::reproducer_error).
bool RunCampaign(const CampaignOptions& options, Backend& backend, std::ostream& progress,
                 CampaignResult* result, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_FUZZING_CAMPAIGN_H_
