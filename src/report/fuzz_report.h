// What `fuzz` reports of a campaign: the console lines and (json_report.cc,
// the one JSON writer) the --json summary.
#ifndef SLOTGUARD_REPORT_FUZZ_REPORT_H_
#define SLOTGUARD_REPORT_FUZZ_REPORT_H_

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace slotguard {

/// A campaign's outcome (fuzzing/campaign.h's CampaignResult) with the flags it ran under.
struct FuzzReport {
  uint64_t seed = 1;
  std::string shard;         // --shard I/N, "" for the whole stream
  std::string backend;       // Backend::Describe()
  std::string variant;       // forced; "" for fixed
  int32_t max_requests = 0;
  bool inconsistent = false;  // runner-state fault operators were on
  int64_t scenarios = 0;
  int64_t tokens = 0;        // token-groups
  double seconds = 0;
  double generate_seconds = 0, kernel_seconds = 0, check_seconds = 0;  // batched campaigns only
  std::map<std::string, int64_t> classes;  // generator operator -> scenarios it shaped
  int64_t runner_state_findings = 0;       // --inconsistent: batch-state findings, counted, not stopped at
  int64_t first_runner_state_finding = -1;
  int64_t skipped = 0;                     // scenarios the implementation did not take
  std::string first_skip;                  // why the first one was skipped
  bool found = false;
  int64_t finding_index = -1;
  std::string invariant;
  std::vector<std::string> fired;
  std::string original_shape, minimized_shape;  // ScenarioShape of the finding before and after shrinking
  std::vector<std::string> families;            // of the minimized scenario's groups, in order
  std::string file;                             // the reproducer
  std::vector<std::string> finding_lines;       // of the minimized scenario
};

/// "R requests, T tokens, G groups".
std::string ScenarioShape(const Scenario& scenario);

/// The console lines, the "slotguard: fuzz: " line last. `operators` are the
/// generator's (GeneratorOperators()): those a campaign without a finding
/// never exercised are named (fault_* ones only when inconsistent).
void PrintFuzzReport(const FuzzReport& report, const std::vector<std::string>& operators, std::ostream& out);

/// The --json summary ("slotguard_fuzz": 1), and writing it; false with
/// *err when it cannot be written.
std::string FuzzJson(const FuzzReport& report);
bool WriteFuzzJson(const std::string& path, const FuzzReport& report, std::string* err);
/// SARIF 2.1.0 of a campaign (report/sarif.cc): its finding as a result at
/// the reproducer file, fingerprinted by what the finding is (variant,
/// families, invariants, minimized shape).
std::string FuzzSarif(const FuzzReport& report);
bool WriteFuzzSarif(const std::string& path, const FuzzReport& report, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_REPORT_FUZZ_REPORT_H_
