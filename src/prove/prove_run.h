// A proof run: every batch of a scope (prove/enumeration.h) through the
// campaign (fuzzing/campaign.h) as its scenario source, so that a proof
// judges, batches on the GPU, shrinks, names by signature, suppresses and
// writes reproducers exactly as `fuzz --keep-going` does; then the claim
// (prove/claim.h) of what it checked.
#ifndef SLOTGUARD_PROVE_PROVE_RUN_H_
#define SLOTGUARD_PROVE_PROVE_RUN_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "backend/backend.h"
#include "fuzzing/campaign.h"
#include "prove/claim.h"
#include "prove/enumeration.h"
#include "prove/scope.h"

namespace slotguard {

struct ProveRunOptions {
  /// The campaign's defaults of a proof: no time limit (the whole scope),
  /// the reproducers in prove-findings.
  ProveRunOptions() { campaign.settings = CampaignSettingsWith(0, "prove-findings"); }
  Scope scope;
  EnumerationOptions enumeration;
  /// The campaign that checks the batches: its settings (the variant
  /// forced, the shard, --time, --out, the threads), the suppressions, the
  /// implementation, the progress line, the batch chunk. ProveScope sets
  /// its source (the enumeration), its runs (the shard's batches), its
  /// keep_going (a proof checks its whole scope) and its generator's
  /// `inconsistent` (the enumeration's).
  CampaignOptions campaign;
  /// How the reproducers say they were found: "slotguard prove --scope small".
  std::string command = "slotguard prove";
  /// Only count: index the scope and fill the claim (nothing checked).
  bool count_only = false;
};

/// Indexes the scope (false with *err when it is too large or empty: bad
/// input), then checks this shard's batches. Returns false with *err on an
/// environment failure (then *bad_input is false).
bool ProveScope(const ProveRunOptions& options, Backend& backend, std::ostream& progress, CampaignResult* result,
              ScopeClaim* claim, std::string* err, bool* bad_input);

/// The batches of [first, end) that shard `shard` of `shards` checks.
int64_t ShardShare(int64_t first, int64_t end, int64_t shard, int64_t shards);

/// The scope in words: "every consistent batch of 0-2 requests of 0-2
/// tokens, ..." (the claim's `what`).
std::string ScopeWords(const Scope& scope, const EnumerationOptions& options);

}  // namespace slotguard

#endif  // SLOTGUARD_PROVE_PROVE_RUN_H_
