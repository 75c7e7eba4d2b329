// What `fuzz` reports of a campaign: the console lines and (json_report.cc,
// the one JSON writer) the --json summary.
#ifndef SLOTGUARD_REPORT_FUZZ_REPORT_H_
#define SLOTGUARD_REPORT_FUZZ_REPORT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzzing/campaign.h"
#include "scenario/scenario.h"

namespace slotguard {

/// A campaign's outcome with the flags it ran under.
struct FuzzReport {
  uint64_t seed = 1;
  std::string shard;         // --shard I/N, "" for the whole stream
  std::string finished;      // when the report was made (UtcNow(), util/utc_time.h); "": when it is written
  std::vector<std::string> families;  // the families the campaign generated (fuzz)
  std::string backend;       // Backend::Describe()
  std::string device;        // gpu backend: the GPU that ran (GpuDescription, its PCI bus id); "" on the host
  std::string variant;       // forced; "" for fixed
  bool conform = false;      // --conform: findings are disagreements with the engine variants (description bugs)
  int32_t max_requests = 0;
  bool inconsistent = false;  // runner-state fault operators were on
  bool keep_going = false;    // --keep-going: the whole budget, every distinct finding
  const Suppressions* suppressions = nullptr;  // --suppressions; null: none
  std::string sarif_root;                      // --sarif-root; "" DefaultSarifRoot()
  bool verbose = false;                        // -v: the generator's classification too
  std::string regressions_dir;                 // --regressions; "" none
  std::vector<ScenarioReport> regressions;     // their reports, replayed before the campaign
  std::vector<std::string> regressions_added;  // new reproducers added to the folder
  bool campaign_ran = true;                    // false: a regression failed again, so it did not run
  CampaignResult result;

  /// The regressions that do not hold (a bug back), and those that did not load.
  int64_t FailingRegressions() const;
  int64_t BadRegressions() const;
};

/// The console lines, the "slotguard: fuzz: " line last. `operators` are the
/// generator's (GeneratorOperators()): those a campaign without a finding
/// never exercised are named (fault_* ones only when inconsistent).
void PrintFuzzReport(const FuzzReport& report, const std::vector<std::string>& operators, std::ostream& out);

/// The --json summary ("slotguard_fuzz": 1), and writing it; false with
/// *err when it cannot be written.
std::string FuzzJson(const FuzzReport& report);
bool WriteFuzzJson(const std::string& path, const FuzzReport& report, std::string* err);
/// SARIF 2.1.0 of a campaign (report/sarif.cc): each distinct finding as a
/// result at its reproducer file, fingerprinted by its signature; suppressed
/// ones carry their suppression.
std::string FuzzSarif(const FuzzReport& report);
bool WriteFuzzSarif(const std::string& path, const FuzzReport& report, std::string* err);

/// The parts of those reports that any campaign's report shares (prove's,
/// report/prove_report.h): the distinct findings as JSON (FuzzJson's
/// "findings"), the suppression entries' counts (its "suppressions"), the
/// findings as SARIF results (each message starting with origin(f): "fuzz
/// (seed 1, scenario 5)"), and a SARIF log of results with run properties.
nlohmann::ordered_json CampaignFindingsJson(const FuzzReport& report);
nlohmann::ordered_json CampaignSuppressionsJson(const FuzzReport& report);
nlohmann::ordered_json CampaignSarifResults(const FuzzReport& report,
                                            const std::function<std::string(const CampaignFinding&)>& origin);
std::string SarifLogText(nlohmann::ordered_json results, nlohmann::ordered_json properties,
                         const std::string& root = "");

}  // namespace slotguard

#endif  // SLOTGUARD_REPORT_FUZZ_REPORT_H_
