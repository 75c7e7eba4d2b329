// `slotguard prove`: every batch of a scope (prove/prove_run.h), checked as
// fuzz checks its scenarios. The summary states the scope as a claim; on a
// finding no suppression covers, its minimized reproducer is written first
// and the exit code is 1.
#include <unistd.h>

#include <filesystem>

#include "cli/command_setup.h"
#include "cli/commands.h"
#include "fuzzing/campaign.h"
#include "prove/prove_run.h"
#include "prove/scope_file.h"
#include "registry/families.h"
#include "report/prove_report.h"
#include "findings/finding_signature.h"
#include "fuzzing/fuzz_setup.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"
#include "util/output_file.h"
#include "util/stop_signals.h"
#include "util/utc_time.h"

namespace slotguard {

int RunProve(const ProveOptions& options, std::ostream& out, std::ostream& err) {
  ProveRunOptions run;
  run.campaign.settings = options.settings;
  std::string problem;
  if (!LoadScope(options.scope, &run.scope, &problem)) {
    err << ErrorLine("--scope: " + problem);
    return kExitBadInput;
  }
  if (!CheckFamilyNames(options.families, err)) return kExitBadInput;
  std::vector<Family>& families = run.enumeration.families;
  if (!ResolveFuzzFamilies(options.families, options.settings.variant, &families, &problem)) {
    err << ErrorLine(problem);
    return kExitBadInput;
  }
  run.enumeration.inconsistent = options.inconsistent;
  run.enumeration.reduce = !options.no_reduction;
  run.enumeration.layout = options.setup.table_layout;
  if (!ParseShardFlag(options.shard, &run.campaign.settings, err)) return kExitBadInput;
  Suppressions suppressions;
  // A built-in scope's name is no file (scope_file.h: run.scope.file says which).
  std::vector<NamedFile> scope_input;
  std::error_code scope_ec;
  if (std::filesystem::is_regular_file(options.scope, scope_ec)) scope_input.push_back({"--scope", options.scope});
  if (!CheckCampaignFiles(options.setup.provider, options.suppressions_path, options.json_path, options.sarif_path,
                          options.settings.out_dir, &suppressions, err, scope_input))
    return kExitBadInput;
  if (!options.suppressions_path.empty()) run.campaign.suppressions = &suppressions;
  run.campaign.tty_progress = isatty(STDERR_FILENO);
  // How a reproducer says it was found: the command that finds it again.
  run.command = "slotguard prove --scope " + options.scope;
  for (const std::string& f : options.families) run.command += " --family " + f;
  if (!options.settings.variant.empty()) run.command += " --variant " + options.settings.variant;
  if (options.inconsistent) run.command += " --inconsistent";
  // As fuzz: slotguard's own kernels run in this process, another
  // implementation isolated, unless asked.
  RunSetup setup = options.setup;
  if (setup.isolate < 0 && setup.provider.empty()) setup.isolate = 0;
  if (!options.count && !PrepareReproducerDir(options.settings.out_dir, &problem)) {
    err << ErrorLine(problem);
    return kExitEnvironment;
  }
  // SIGINT, SIGTERM: as fuzz, stop at the next batch and write the claim of
  // what was checked, the reports and the summary (before any child process
  // starts, whose handlers would otherwise take them).
  if (!options.count) {
    InstallStopSignals();
    run.campaign.stop = &StopSignalFlag();
  }
  int open_status;
  std::unique_ptr<Backend> backend = OpenBackend(options.backend, setup, err, &open_status);
  if (!backend) return open_status;
  // Another implementation is proven on what it implements, with seq_lens
  // as it reads them.
  if (backend->provider()) {
    if (!FitFamiliesToProvider(*backend->provider(), options.settings.variant, &families, &problem)) {
      err << ErrorLine(problem);
      return kExitBadInput;
    }
    run.enumeration.int64_seq_lens = backend->provider()->reads_persistent_tables();
    run.enumeration.dummy_runs = false;  // it cannot see batch.dummy_run
  } else if (families.empty()) {
    for (const FamilyInfo& f : AllFamilies())  // slotguard's own kernels' families
      if (f.kernel) families.push_back(f.family);
  }
  run.campaign.implementation = ImplementationName(*backend);
  // What every reproducer records, as fuzz's, so that its replay command reproduces.
  run.campaign.found_by = FoundByOf(*backend, options.setup);
  run.count_only = options.count;
  ProveReport report;
  bool bad_input = false;
  if (!ProveScope(run, *backend, err, &report.campaign.result, &report.claim, &problem, &bad_input)) {
    err << ErrorLine((bad_input ? "--scope " + EscapeText(options.scope, 0) + ": " : "prove: ") + problem);
    return bad_input ? kExitBadInput : kExitEnvironment;
  }
  if (options.count) {
    PrintScopeCount(report.claim, out);
    return kExitHolds;
  }
  report.campaign.backend = backend->Describe();
  report.campaign.variant = options.settings.variant;
  report.campaign.inconsistent = options.inconsistent;
  report.campaign.keep_going = true;
  report.campaign.suppressions = run.campaign.suppressions;
  report.campaign.shard = options.shard;
  report.campaign.finished = UtcNow();
  // The summary (and the reproducers' names) first, whatever happens to the reports.
  PrintProveReport(report, out);
  bool unwritten = false;
  if (!options.json_path.empty() && !WriteProveJson(options.json_path, report, &problem)) {
    err << ErrorLine(problem);
    unwritten = true;
  }
  if (!options.sarif_path.empty() && !WriteProveSarif(options.sarif_path, report, &problem)) {
    err << ErrorLine(problem);
    unwritten = true;
  }
  if (unwritten || report.campaign.result.ReproducerUnwritten()) return kExitEnvironment;
  // Stopped by a signal (docs/prove.md): 1 with a finding, else 128 + the
  // signal, never 0 (the claim covers a prefix of the scope only).
  if (report.campaign.result.Found()) return kExitFindings;
  if (report.campaign.result.stop_signal) return 128 + report.campaign.result.stop_signal;
  return kExitHolds;
}

}  // namespace slotguard
