// What a proof run states (docs/prove.md, "The claim"): the scope as a
// claim. Which batches were enumerated, how many (after and before
// reduction), the families and the implementation, and, for a shard or a
// run cut short by --time, exactly which of them were checked. The console
// summary, the JSON report and the SARIF run properties all say this.
#ifndef SLOTGUARD_PROVE_CLAIM_H_
#define SLOTGUARD_PROVE_CLAIM_H_

#include <cstdint>
#include <string>
#include <vector>

namespace slotguard {

/// One configuration of the scope (a family's parameter tuple and its
/// links) and how much of it this run checked.
struct ConfigCoverage {
  std::string label;     // "kpool_tail(kpool=1)"
  int64_t batches = 0;   // in this shard
  int64_t covered = 0;   // of those, checked
};

struct ScopeClaim {
  std::string scope;           // "small", or the file's name
  std::string scope_file;      // "scopes/small.json (built in)" or the path
  std::string what;            // the enumerated batches in words
  bool inconsistent = false;   // every batch (else only consistent ones)
  std::vector<std::string> families;
  std::string implementation;  // ImplementationName: "slotguard", "plugin NAME", ...
  std::string variant;         // forced; "" for each family's fixed kernel
  int64_t batches = 0;         // the whole scope, after reduction: what every shard together checks
  long double before = 0;      // the whole scope before reduction; < 0: past the counting budget
  int64_t configs = 0;
  int64_t shard = 0, shards = 1;
  int64_t shard_batches = 0;   // this shard's: batches shard, shard + shards, ...
  int64_t covered = 0;         // checked: the first `covered` of this shard's
  std::vector<ConfigCoverage> coverage;  // per configuration, in enumeration order

  bool complete() const { return covered == shard_batches; }
  /// The stream index of the first batch not checked (-1 when complete).
  int64_t FirstUncovered() const { return complete() ? -1 : shard + covered * shards; }
};

/// "1.2e+15" past 2^53, else the exact integer; "uncounted" below 0.
std::string CountText(long double count);

/// One line: "scope small: 48213 batches (1.3e+09 before reduction) of
/// families paged, kpool_tail; implementation slotguard" and, for a shard,
/// "; shard 0/4: 12054 of them".
std::string ClaimLine(const ScopeClaim& claim);

/// For a run that did not check its whole shard: which part it did, by
/// configuration ("complete: ...; partial: ... 1200 of 3000; not reached:
/// ..."), and where it stopped.
std::string CoverageText(const ScopeClaim& claim);

}  // namespace slotguard

#endif  // SLOTGUARD_PROVE_CLAIM_H_
