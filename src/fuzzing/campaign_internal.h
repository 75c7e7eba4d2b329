// The parts of a campaign (campaign.h), one file each: the two schedulers,
// which check scenarios 0, 1, 2, ... of the seed until the budget is spent
// (or, without keep_going, one of them fails), and the reproducers.
// RunCampaign (campaign.cc) runs the scheduler the backend calls for, then
// shrinks what it found.
// Only the campaign's own files include this header.
#ifndef SLOTGUARD_FUZZING_CAMPAIGN_INTERNAL_H_
#define SLOTGUARD_FUZZING_CAMPAIGN_INTERNAL_H_

#include <chrono>
#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "fuzzing/campaign.h"
#include "runner/scenario_run.h"
#include "scenario/scenario.h"

namespace slotguard {
namespace campaign_internal {

/// The campaign's status line ("prove: ..." for a proof's: a source of
/// scenarios): what it checked against its budget (--runs,
/// --time) and the findings so far, e.g. "fuzz: 1200 of 20000 scenarios,
/// 51234 token-groups, 400 scenarios/s, 3 of 60 s, 2 findings".
std::string ProgressLine(const CampaignOptions& options, const CampaignResult& result, double seconds);

/// The status line while a finding shrinks: "fuzz: shrinking finding 1 of 2
/// (scenario 17): 1 requests, 1025 tokens, 1 groups after 40 candidates, 3 s".
/// (`command`: "prove" for a proof's campaign.)
std::string ShrinkLine(const std::string& what, const Scenario& smallest, int attempts, double seconds,
                       const char* command = "fuzz");

/// The campaign's budget (--runs, --time as a deadline, a stop asked from
/// outside), its status line (ProgressLine, ShrinkLine: on a terminal
/// rewritten in place every 0.5 s, piped a line every 10 s) and its
/// checkpoints, from the moment it is constructed (campaign_budget.cc).
class Budget {
 public:
  Budget(const CampaignOptions& options, std::ostream& progress);

  /// Seconds since the campaign started.
  double Elapsed() const;
  /// Seconds until --time's deadline (a large number without one).
  double SecondsLeft() const;
  /// Whether the campaign must stop now: the deadline passed, or a stop was
  /// asked. Notes which in the result (Note).
  bool Stopping() const;
  /// Records in the result what stopped the campaign, if anything did.
  void Note(CampaignResult* result) const;

  /// The end of the next chunk of `chunk` scenarios starting at `base`, or
  /// `base` when the budget is spent.
  int64_t ChunkEnd(int64_t base, int64_t chunk) const;

  /// Prints the progress line when one is due (every 0.5 s on a tty, else
  /// every 10 s): scenarios and the budget's share spent, findings so far;
  /// and calls the checkpoint when one is due (or now, with `force`).
  void MaybeReport(const CampaignResult& result, bool force_checkpoint = false);
  /// One line on the progress stream ("fuzz: ..."), after the status line.
  void Say(const std::string& line);

  /// While a finding shrinks: the status line, when one is due, says which
  /// finding (`what`: "finding 2 of 5 (scenario 1234)"), the smallest
  /// failing shape so far and the candidates tried.
  void MaybeReportShrink(const std::string& what, const Scenario& smallest, int attempts);

  /// Ends a terminal's status line (a newline) if one is showing.
  void EndLine();

  /// Shrinking within the budget (CampaignOptions::shrink_as_found): with
  /// --time, the seconds of settings.shrink_share * --time not yet spent on
  /// shrinking (a large number without --time).
  double ShrinkSecondsLeft() const;
  /// Starts one finding's shrink: until EndShrink, ShrinkStopping also says
  /// stop once it has taken half of the share, or what is left of it. Only
  /// while shrinking as found; at the end of a campaign a shrink is bounded
  /// by the deadline alone.
  void StartShrink();
  void EndShrink();
  /// Stopping, or the finding being shrunk has spent its part of the share.
  bool ShrinkStopping() const;
  /// Whether ShrinkStopping said stop for the share (not the deadline or a
  /// signal) since the last StartShrink.
  bool ShareSpent() const { return share_spent_; }

 private:
  /// Prints `line` as the status line when one is due.
  void MaybePrint(const std::string& line);

  const CampaignOptions& options_;
  std::ostream& progress_;
  const std::chrono::steady_clock::time_point start_;
  double next_report_, next_checkpoint_;
  bool showing_ = false;  // a tty's status line is on screen, unterminated
  double shrink_spent_ = 0;        // seconds spent shrinking as found
  double shrink_started_ = -1;     // Elapsed() at StartShrink; -1: not shrinking as found
  double shrink_until_ = 0;        // when the finding being shrunk must stop
  mutable bool share_spent_ = false;
};

/// Scenarios per chunk so that one takes about `seconds` at the rate of
/// the last one (`scenarios` in `took` seconds), at most twice the last,
/// within [least, most] and ending by the deadline.
int64_t ChunkFor(const Budget& budget, int64_t scenarios, double took, double seconds, int64_t least, int64_t most);

/// The signature of a campaign's finding: SignatureOf, blamed on the
/// description under --conform (but a no_fault, the kernel's).
FindingSignature CampaignSignatureOf(const CampaignOptions& options, const Scenario& s,
                                     const std::vector<FindingSink>& findings);
/// Runs one scenario into *run (its findings, whether it was skipped), judged
/// as the campaign judges (--conform: runner/conform_run.h). False on an
/// environment failure.
bool RunOne(const CampaignOptions& options, const Scenario& s, Backend& backend, ScenarioRun* run,
            std::string* err);
/// Counts a scenario the implementation did not take.
void AddSkipped(const std::string& why, CampaignResult* result);

/// The entry of options.suppressions (class entries; signature entries too
/// once `signature` has its shape) that covers a finding of `s` with this
/// signature, or -1.
int SuppressedBy(const CampaignOptions& options, const Scenario& s, const FindingSignature& signature);

/// What a checked scenario means to the campaign.
enum class Outcome { kClean, kFinding, kRunnerState, kSuppressed };
struct Judged {
  Outcome outcome = Outcome::kClean;
  FindingSignature key;   // kFinding, kSuppressed: FindingSignature::Key of the run
  std::string key_text;   // kFinding: key.Text(), computed on the workers that judge
  int suppressed_by = -1;  // kSuppressed: the entry
  bool known = false;      // kSuppressed by its key, in CampaignOptions::known_keys
  uint32_t crash_features = 0;  // with crash classes, a crash's (no_fault) batch features (CrashFeaturesOf)
};
/// kFinding is what the campaign is after; kRunnerState (only with
/// --inconsistent: the findings do not blame the kernel) and kSuppressed (a
/// suppression entry covers it) are counted and the campaign goes on.
Judged Judge(const CampaignOptions& options, const Scenario& s, const ScenarioRun& run);
/// Adds a judged scenario to the result; the schedulers call it in stream
/// order. True when the campaign stops there (a finding, without keep_going).
bool Account(const CampaignOptions& options, int64_t stream_index, const Judged& judged, CampaignResult* result);

/// Whether a scheduler pauses after a chunk for RunCampaign to shrink what
/// it found (CampaignOptions::shrink_as_found): a key has findings not yet
/// shrunk, and the budget's share and deadline leave time to.
bool ShrinkDue(const CampaignOptions& options, const Budget& budget, const CampaignResult& result);

/// Whether a judged scenario crashed the implementation (no_fault fired):
/// a crash class's sample that did not retires the class.
bool Crashed(const Judged& judged);

/// Adds the workers' operator counts and token-groups to the result.
void AddTallies(const std::vector<Classification>& classes, const std::vector<int64_t>& tokens,
                CampaignResult* result);
/// Takes back the operator counts and token-groups of the campaign's
/// scenarios at these positions (in its shard, as StreamIndex takes them):
/// those a scheduler generated past the scenario it stopped at. So a
/// campaign's tallies are of exactly its `scenarios`, whatever the jobs and
/// the scheduler.
void SubtractTallies(const CampaignOptions& options, const std::vector<int64_t>& positions, CampaignResult* result);

/// The scheduler of a backend that runs one scenario per call (the host):
/// each of the jobs workers checks one scenario at a time, in chunks of
/// 2048 * jobs; each chunk's judged scenarios are accounted in stream
/// order (Account). Fills scenarios, tokens, classes and what Account
/// fills. False with *err on an environment failure.
bool RunOneAtATime(const CampaignOptions& options, Backend& backend, Budget& budget,
                   CampaignResult* result, std::string* err);

/// The scheduler of a batching backend (the GPU, Backend::Batches): chunks of
/// options.batch_chunk scenarios, one RunMany call each, with generating,
/// running and checking overlapped. Fills what RunOneAtATime fills, plus
/// the busy time of each stage. False with *err on an environment failure.
bool RunBatched(const CampaignOptions& options, Backend& backend, Budget& budget,
                CampaignResult* result, std::string* err);

/// Shrinks the findings the schedulers tallied (result->keys): up to
/// kShrinksPerKey of each key with keep_going, else the one. Fills
/// result->findings (distinct signatures, each with its smallest reproducer,
/// suppressed by signature where an entry says so) and unattributed, and
/// writes each unsuppressed reproducer (WriteReproducer), with status the
/// status line following each shrink. With gave, the
/// signature (its Id) each shrunk finding gave, key after key (a finding
/// whose signature an earlier one had joins that one). False with *err on
/// an environment failure or when a reproducer cannot be written.
/// Shrinking stops when the budget says so (Budget::Stopping): a finding
/// then keeps the smallest reproducer found (CampaignFinding::shrink_cut_short).
/// The budget's status line follows the shrinking.
///
/// Not `final` (shrinking as found, CampaignOptions::shrink_as_found): it
/// shrinks the keys' findings not yet shrunk while the budget's share
/// lasts (each key's first before any key's further ones), each within its
/// part of the share (Budget::StartShrink), into result->findings, and
/// leaves the keys, their counts and the reproducers for the final call.
bool ShrinkFindings(const CampaignOptions& options, Backend& backend, Budget& budget, CampaignResult* result,
                    std::string* err, std::vector<std::string>* gave = nullptr, bool final = true);

/// Regenerates scenario `stream_index` and shrinks it, keeping its most
/// specific invariant firing and never into a scenario a suppression
/// covers: fills original, invariant, minimized, fired and signature. A
/// finding whose scenario fires nothing when run again (`key`: what the
/// campaign saw) is kept unshrunk, as CampaignFinding::recurred says. The
/// budget's status line follows the shrinking (`what` names the finding).
/// False with *err on an environment failure.
bool MinimizeFinding(const CampaignOptions& options, Backend& backend, Budget& budget, int64_t stream_index,
                     const FindingSignature& key, CampaignFinding* finding, std::string* err,
                     const std::string& what = "");

/// Writes the minimized scenario to options.settings.out_dir as a reproducer (named
/// after the variant, the invariant and the signature id; no expect), and
/// collects its findings per group as `check` reports them: fills file,
/// groups and minimized (now as written). False with *err when the
/// file cannot be written or on an environment failure.
bool WriteReproducer(const CampaignOptions& options, Backend& backend, CampaignFinding* finding,
                     std::string* err);

}  // namespace campaign_internal
}  // namespace slotguard

#endif  // SLOTGUARD_FUZZING_CAMPAIGN_INTERNAL_H_
