// What `prove` reports of a proof run: the console lines, the --json
// report ("slotguard_prove": 1) and the --sarif log. Findings, signatures,
// reproducers and suppressions are the campaign's, reported as fuzz reports
// them (report/fuzz_report.h); the scope is stated as a claim
// (prove/claim.h): the summary line, the JSON "scope" and the SARIF run
// properties' "scope".
#ifndef SLOTGUARD_REPORT_PROVE_REPORT_H_
#define SLOTGUARD_REPORT_PROVE_REPORT_H_

#include <ostream>
#include <string>

#include "prove/claim.h"
#include "report/fuzz_report.h"

namespace slotguard {

struct ProveReport {
  FuzzReport campaign;  // the outcome and the flags (backend, variant, suppressions); no seed
  ScopeClaim claim;
};

/// The console lines: the claim, the suppressions, each distinct finding
/// (its reproducer's lines, then what it is), the coverage of a run cut
/// short, and the "slotguard: prove: " summary line last.
void PrintProveReport(const ProveReport& report, std::ostream& out);

/// `prove --count`: the scope, its size and each configuration's share.
void PrintScopeCount(const ScopeClaim& claim, std::ostream& out);

/// The claim as JSON (the report's "scope", the SARIF run's "scope").
nlohmann::ordered_json ClaimJson(const ScopeClaim& claim);

std::string ProveJson(const ProveReport& report);
bool WriteProveJson(const std::string& path, const ProveReport& report, std::string* err);
/// SARIF 2.1.0: each distinct finding at its reproducer, fingerprinted by
/// its signature (as fuzz's), the claim in the run's properties.
std::string ProveSarif(const ProveReport& report);
bool WriteProveSarif(const std::string& path, const ProveReport& report, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_REPORT_PROVE_REPORT_H_
