// `check`'s work: every scenario file through the backend, once per variant
// run, in parallel; the reports in file order.
#ifndef SLOTGUARD_RUNNER_CHECK_RUN_H_
#define SLOTGUARD_RUNNER_CHECK_RUN_H_

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "runner/scenario_run.h"
#include "scenario/load_limits.h"
#include "suppressions/suppressions.h"

namespace slotguard {

struct CheckRunOptions {
  std::string variant;      // "" each group's own; a variant name; or "all"
  bool cuda_graph = false;  // the CUDA-graph protocol (RunGraphReplayScenario)
  int jobs = 1;             // files checked in parallel
  LoadLimits limits;
  std::optional<TableLayoutKind> table_layout;  // --table-layout: over each file's own
  std::optional<ZeroNull> zero_null;            // --zero-null: over each file's graph.zero_null
  const Suppressions* suppressions = nullptr;   // --suppressions: known differences; null: none
  /// A stop asked from outside (fuzz's SIGINT/SIGTERM, util/stop_signals.h):
  /// once nonzero, files not yet begun are left out (no report). Null: none.
  const std::atomic<int>* stop = nullptr;
};

/// A report whose unexpected findings an entry of `suppressions` covers
/// (matched on its signature, its file and the scenario's measures) holds,
/// as suppressed: its verdict names the entry and its reason.
void ApplySuppressions(const Suppressions& suppressions, const Scenario& scenario, ScenarioReport* report);

/// The variant runs of one scenario: its own (""), the one forced name, or
/// with "all" every variant name its groups' families have.
std::vector<std::string> VariantRuns(const Scenario& scenario, const std::string& variant);

/// One file: a bad-input report when it does not load, else one report per
/// variant run. A forced name that no group has runs the scenario as it is,
/// and its verdict says so.
std::vector<ScenarioReport> CheckFile(const std::string& file, const CheckRunOptions& options, Backend& backend);

/// Every file on `jobs` threads; the reports in file order, whatever the
/// jobs (those of the files begun before a stop).
std::vector<ScenarioReport> CheckFiles(const std::vector<std::string>& files, const CheckRunOptions& options,
                                       Backend& backend);

}  // namespace slotguard

#endif  // SLOTGUARD_RUNNER_CHECK_RUN_H_
