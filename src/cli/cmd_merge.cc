// `slotguard merge`: campaigns' --json reports (the shards of a night, and
// nights) into one report (report/merge_report.h). Every report is read
// before anything is merged: the first bad one is its one line, exit 2.
// Then the summary, the reports, and exit 1 when an unsuppressed finding
// remains.
#include "cli/command_setup.h"
#include "cli/commands.h"
#include "report/merge_report.h"
#include "util/error_line.h"

namespace slotguard {

int RunMerge(const MergeOptions& options, std::ostream& out, std::ostream& err) {
  if (!CheckSarifRoot(options.sarif_root, err)) return kExitBadInput;
  std::vector<NamedFile> inputs = {{"--suppressions", options.suppressions_path}};
  for (const std::string& r : options.reports) inputs.push_back({"the report", r});
  if (!CheckOutputs({{"--json", options.json_path}, {"--sarif", options.sarif_path}}, inputs, err))
    return kExitBadInput;
  std::string problem;
  Suppressions suppressions;
  if (!options.suppressions_path.empty() && !LoadSuppressions(options.suppressions_path, &suppressions, &problem)) {
    err << ErrorLine(problem);
    return kExitBadInput;
  }
  std::vector<CampaignReportFile> reports(options.reports.size());
  for (size_t i = 0; i < options.reports.size(); ++i)
    if (!LoadCampaignReport(options.reports[i], &reports[i], &problem)) {
      err << ErrorLine(problem);
      return kExitBadInput;
    }
  MergeResult merge =
      MergeReports(std::move(reports), options.suppressions_path.empty() ? nullptr : &suppressions);
  merge.sarif_root = options.sarif_root;
  PrintMergeReport(merge, out);
  bool unwritten = false;
  if (!options.json_path.empty() && !WriteMergeJson(options.json_path, merge, &problem)) {
    err << ErrorLine(problem);
    unwritten = true;
  }
  if (!options.sarif_path.empty() && !WriteMergeSarif(options.sarif_path, merge, &problem)) {
    err << ErrorLine(problem);
    unwritten = true;
  }
  if (unwritten) return kExitEnvironment;
  return merge.Unsuppressed() > 0 ? kExitFindings : kExitHolds;
}

}  // namespace slotguard
