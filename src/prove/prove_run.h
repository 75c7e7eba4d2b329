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
#include "suppressions/suppressions.h"

namespace slotguard {

struct ProveRunOptions {
  Scope scope;
  EnumerationOptions enumeration;
  std::string variant;     // forced on the groups whose family has it
  int64_t shard = 0, shards = 1;
  double seconds = 0;      // --time: <= 0 unbounded
  std::string out_dir = "prove-findings";
  int jobs = 1;
  bool tty_progress = false;
  int64_t batch_chunk = 8192;  // batches per RunMany call on a batching backend (the GPU)
  const Suppressions* suppressions = nullptr;
  std::string implementation = "slotguard";
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
