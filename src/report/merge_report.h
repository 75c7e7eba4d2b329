// `slotguard merge`: the --json reports of campaigns (fuzz, prove), of the
// shards of one night and of several nights, read back (merge_load.cc) and
// merged into one list of distinct finding signatures (merge_report.cc):
// each with the reports it was seen in, first and last, its counts, its
// reproducers, and the suppressions applied. Written as console lines, a
// JSON report (json_report.cc, "slotguard_merge": 1) and one SARIF log
// (sarif.cc, the results fingerprinted as the campaigns' own).
#ifndef SLOTGUARD_REPORT_MERGE_REPORT_H_
#define SLOTGUARD_REPORT_MERGE_REPORT_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "findings/finding_signature.h"
#include "suppressions/suppressions.h"

namespace slotguard {

/// One distinct finding of one report (an entry of its "findings").
struct ReportFinding {
  FindingSignature signature;  // its parts, the shape its reproducer's
  std::string id;              // "signature": Fingerprint(text)
  std::vector<std::string> fired;   // every invariant its reproducer fires
  std::vector<std::string> causes;  // its reproducer's group lines
  int64_t count = 0;                // findings with this signature in that campaign
  int64_t scenario_index = -1;
  std::string file;            // its reproducer; "" none written. Relative: as the report gives
                               // it when that exists from here, else from the report's folder
  std::string replay_command;  // "" none
  std::string suppressed_by;   // the report's own suppression entry id, "" none
  ScenarioMeasures measures;   // of the shape, for the suppressions' num_* keys
};

/// A suppression entry as a report lists it.
struct ReportSuppression {
  std::string id, reason, pointer;
  int64_t matched = 0;
};

/// One report, read back.
struct CampaignReportFile {
  std::string path;      // as given
  std::string kind;      // "fuzz" or "prove"
  std::string finished;  // "YYYY-MM-DDTHH:MM:SSZ", "" when the report has none (an older slotguard's)
  std::string shard;     // "I/N", "" for the whole stream or scope
  /// What names its campaign, the same in each shard's report: fuzz's
  /// kind, seed, variant, families, max_requests and backend; prove's
  /// kind, scope name, families, implementation, variant, batches and
  /// backend.
  nlohmann::ordered_json campaign;
  std::vector<ReportFinding> findings;
  std::vector<ReportSuppression> suppressions;
};

/// Reads a `fuzz --json` or `prove --json` report. False with one line,
/// "FILE:/json/pointer: problem; expected X" (an unreadable file, not
/// JSON, a report of another kind or version, a missing or mistyped key, a
/// signature that is not its text's).
bool LoadCampaignReport(const std::string& path, CampaignReportFile* out, std::string* err);

/// A campaign the merged reports came from: its reports and their shards.
struct MergedCampaign {
  nlohmann::ordered_json campaign;  // CampaignReportFile::campaign
  std::vector<size_t> reports;      // indices into MergeResult::reports
};

/// One report a signature was seen in.
struct Sighting {
  size_t report = 0;   // into MergeResult::reports
  size_t finding = 0;  // into that report's findings
  int entry = -1;      // the suppression applied (merge's --suppressions, else the report's own), or -1
};

/// A distinct signature over every report.
struct MergedFinding {
  std::vector<Sighting> seen;  // in report order: front() first seen, back() last seen
  int64_t count = 0;           // the reports' counts summed
  std::vector<std::string> reproducers;  // each written reproducer, once, in report order
  int entry = -1;  // the suppression it is listed under: every sighting suppressed (last one's entry); else -1
};

/// A suppression entry of the merge: with --suppressions the file's; else
/// the reports' own, by id.
struct MergedSuppression {
  std::string id, reason, pointer;
  int64_t matched = 0;             // findings of the sightings it covers
  int64_t matched_in_reports = 0;  // what the reports' entries of that id counted (before shrinking too)
  bool stale() const { return matched == 0 && matched_in_reports == 0; }
};

struct MergeResult {
  std::vector<CampaignReportFile> reports;  // in time order (by_finished), else as given
  bool by_finished = false;                 // every report had "finished"
  std::vector<MergedCampaign> campaigns;    // in order of their first report
  std::vector<MergedFinding> findings;      // in order of first sighting
  std::vector<MergedSuppression> suppressions;
  std::string suppressions_file;  // --suppressions, "" none (the reports' own entries)
  std::string sarif_root;         // --sarif-root

  const ReportFinding& Last(const MergedFinding& f) const {
    return reports[f.seen.back().report].findings[f.seen.back().finding];
  }
  int64_t Unsuppressed() const;
};

/// Merges `reports` (in the order given). With `suppressions` its entries
/// decide, matched on each sighting (signature, shape); without, each
/// report's own `suppressed_by`.
MergeResult MergeReports(std::vector<CampaignReportFile> reports, const Suppressions* suppressions);

/// The console: one line per signature, the suppressions' counts and stale
/// entries, the campaigns, and the "slotguard: merge: " line last.
void PrintMergeReport(const MergeResult& merge, std::ostream& out);

/// The --json report ("slotguard_merge": 1; docs/merge-report.schema.json).
std::string MergeJson(const MergeResult& merge);
bool WriteMergeJson(const std::string& path, const MergeResult& merge, std::string* err);
/// One SARIF 2.1.0 log: a result per signature at its last reproducer,
/// fingerprinted as the campaigns' SARIF fingerprints it.
std::string MergeSarif(const MergeResult& merge);
bool WriteMergeSarif(const std::string& path, const MergeResult& merge, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_REPORT_MERGE_REPORT_H_
