// A fuzz campaign: generate scenarios, check them, and on the first finding
// that blames the kernel shrink it and write the reproducer. Deterministic for a seed: scenario i
// depends only on (seed, i), whatever the number of jobs.
#ifndef SLOTGUARD_FUZZING_CAMPAIGN_H_
#define SLOTGUARD_FUZZING_CAMPAIGN_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "fuzzing/generators.h"
#include "scenario/scenario.h"

namespace slotguard {

struct CampaignOptions {
  GeneratorOptions generator;
  std::string variant;      // forced on every group whose family has it; "" = fixed
  uint64_t seed = 1;
  int64_t runs = -1;        // < 0: unbounded
  double seconds = 60;      // <= 0: unbounded
  std::string out_dir = ".";
  int jobs = 1;
  bool tty_progress = false;  // a \r progress line (else a plain line every 10 s)
  int64_t batch_chunk = 8192; // scenarios per RunMany call on a batching backend
  /// --shard I/N: this campaign checks scenarios I, I + N, I + 2N, ... of
  /// the seed's stream (N campaigns with I = 0..N-1 check it all, disjoint).
  int64_t shard = 0, shards = 1;
};

/// The stream index of this campaign's k-th scenario (its shard's).
inline int64_t StreamIndex(const CampaignOptions& options, int64_t k) { return options.shard + k * options.shards; }

struct CampaignResult {
  int64_t scenarios = 0;
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
  bool found = false;
  int64_t finding_index = -1;   // which scenario of the seed's stream (StreamIndex)
  std::string invariant;        // the invariant the reproducer keeps firing
  std::vector<std::string> fired;
  Scenario original;
  Scenario minimized;
  std::string file;             // where the reproducer was written
  std::vector<std::string> finding_lines;  // of the minimized scenario
};

/// The scenario at stream index `index` (StreamIndex): generated, in the
/// generator's table_layout when one is given, variant forced. It depends
/// on (seed, index) only, so every shard's scenario is the whole stream's.
Scenario CampaignScenario(const CampaignOptions& options, int64_t index, Classification* classes);

/// "I/N" (--shard): 0 <= I < N, N >= 1. False with *err in words.
bool ParseShard(const std::string& text, int64_t* shard, int64_t* shards, std::string* err);

/// Runs the campaign. Returns false with *err on an environment failure or
/// when the reproducer cannot be written.
bool RunCampaign(const CampaignOptions& options, Backend& backend, std::ostream& progress,
                 CampaignResult* result, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_FUZZING_CAMPAIGN_H_
