// Known differences a team has accepted, with their reasons: a checked-in
// suppressions file (docs/suppressions.md) that `check --suppressions` and
// `fuzz --suppressions` read. A finding an entry matches is counted and
// listed, not a failure; an entry that matched nothing in a run is stale.
#ifndef SLOTGUARD_SUPPRESSIONS_SUPPRESSIONS_H_
#define SLOTGUARD_SUPPRESSIONS_SUPPRESSIONS_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "findings/finding_signature.h"
#include "scenario/scenario.h"

namespace slotguard {

/// An inclusive range of a scenario measure; unset matches anything.
struct MeasureRange {
  bool set = false;
  int64_t min = std::numeric_limits<int64_t>::min();
  int64_t max = std::numeric_limits<int64_t>::max();
  bool Holds(int64_t v) const { return !set || (v >= min && v <= max); }
};

/// One entry. Every condition it gives must hold; an absent one holds.
struct Suppression {
  std::string id;       // unique in the file
  std::string reason;   // why the difference is accepted (required)
  std::string pointer;  // "/suppressions/2": where it is, for messages
  std::vector<std::string> families;    // every family with findings is one of these
  std::vector<std::string> variants;    // every variant of those groups is one of these
  std::vector<std::string> invariants;  // every invariant that fired is one of these
  std::string blame;                    // "kernel" or "batch"
  std::string implementation;           // a part of ImplementationName
  std::string files;                    // a glob (fnmatch) of the scenario file: check only
  MeasureRange num_reqs, num_tokens, num_groups;  // of the scenario
  std::string signature;                // a FindingSignature::Id
};

struct Suppressions {
  std::string file;
  std::vector<Suppression> entries;
};

/// The largest suppressions file read.
constexpr int64_t kMaxSuppressionsFileBytes = 256 << 10;

/// Reads a suppressions file. False with one line naming the file, the
/// JSON pointer and what was expected.
bool LoadSuppressions(const std::string& path, Suppressions* out, std::string* err);

/// A scenario's measures, as the suppression entries' num_* keys read them.
struct ScenarioMeasures {
  int64_t num_reqs = 0, num_tokens = 0, num_groups = 0;
};

/// What a finding is matched on.
struct SuppressionSubject {
  const FindingSignature* signature = nullptr;  // its shape "" when not known yet (a fuzz finding before shrinking)
  const Scenario* scenario = nullptr;           // for the measures
  std::string file;                             // "" in a campaign: entries with "files" never match
  const ScenarioMeasures* measures = nullptr;   // without a scenario: a report's reproducer shape (merge)
};

/// The index of the first entry that matches, or -1. An entry with a
/// "signature" matches only a subject whose shape is known.
int MatchSuppression(const Suppressions& suppressions, const SuppressionSubject& subject);

/// "'ID' (REASON)", for report lines.
std::string SuppressionLabel(const Suppression& entry);

}  // namespace slotguard

#endif  // SLOTGUARD_SUPPRESSIONS_SUPPRESSIONS_H_
