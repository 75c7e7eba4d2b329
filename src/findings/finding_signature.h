// What a finding is, independent of where a run met it: the signature that
// fuzz --keep-going collects findings by, that suppressions match, and that
// SARIF fingerprints (docs/suppressions.md). A fuzz reproducer checked with
// `check` has the signature the campaign printed for it.
//
// The signature names the cause, not the shape it was met in: the
// implementation, the families and variants of the groups with findings,
// the most specific invariant that fired (the one a minimized reproducer
// keeps firing) and the blame. Two reproducers of one bug that shrinking
// left at different sizes (1 token, or 16), or that fire a different set of
// less specific invariants besides, have one signature; the shape and the
// whole set are kept beside it, for reports and suppression entries.
#ifndef SLOTGUARD_FINDINGS_FINDING_SIGNATURE_H_
#define SLOTGUARD_FINDINGS_FINDING_SIGNATURE_H_

#include <set>
#include <string>
#include <vector>

#include "invariants/finding.h"
#include "scenario/scenario.h"

namespace slotguard {

struct FindingSignature {
  std::string implementation;           // ImplementationName: "slotguard" or the provider's name
  std::vector<std::string> families;    // of the groups with findings; sorted, unique
  std::vector<std::string> variants;    // of those groups; sorted, unique
  std::vector<std::string> invariants;  // that fired, in any group; sorted (the Id has Cause() only)
  bool blames_kernel = false;           // BlamesKernel(invariants): "kernel", else "batch"
  // slotguard ran a described family's own `fixed` description, with no
  // implementation, and it broke its own invariants: a bug in the
  // description (a campaign of consistent batches; --inconsistent keeps only
  // the findings BlamesKernel names, which a description cannot fire).
  bool blames_description = false;
  std::string shape;                    // ScenarioShape of the scenario; "" for a key (not in the Id)

  /// "kernel", "description" or "batch", as the text and suppression entries spell it.
  const char* Blame() const {
    return blames_description ? "description" : blames_kernel ? "kernel" : "batch";
  }
  /// Everything but the shape: what a campaign knows of a finding before it
  /// is shrunk.
  FindingSignature Key() const;
  /// The most specific invariant that fired (MostSpecificInvariant).
  std::string Cause() const;
  /// "kpool_tail/prefix: null_block (kernel); implementation slotguard": the
  /// cause, what the Id hashes.
  std::string Text() const;
  /// Fingerprint(Text()): the 16 hex digits fuzz prints and a suppression's
  /// "signature" names.
  std::string Id() const;
};

/// "R requests, T tokens, G groups".
std::string ScenarioShape(const Scenario& scenario);

/// Whether the findings blame the kernel whatever the batch's runner
/// state: the kernel disagrees with the reference (differential), read past
/// a row (row_bounds), faulted (no_fault), its consumers skip what its
/// producer does not mark (skip_agrees), or its writer puts a negative slot
/// where it lands (negative_lands). The other invariants can fire
/// on a batch a runner got wrong with a correct kernel (--inconsistent).
bool BlamesKernel(const std::set<std::string>& fired);

/// The signature of a run of `scenario` whose per-group findings are
/// `findings` (at least one fired).
FindingSignature SignatureOf(const Scenario& scenario, const std::vector<FindingSink>& findings,
                             const std::string& implementation);

}  // namespace slotguard

#endif  // SLOTGUARD_FINDINGS_FINDING_SIGNATURE_H_
