// `slotguard fuzz`: a time- or run-bounded campaign (fuzzing/campaign.h). On a
// finding no suppression covers, the minimized scenario is written first;
// the last output line names the file and the exit code is 1. Without one:
// a summary and exit 0.
#include <unistd.h>

#include "cli/command_setup.h"
#include "cli/commands.h"
#include "fuzzing/campaign.h"
#include "fuzzing/generators.h"
#include "registry/families.h"
#include "report/fuzz_report.h"
#include "runner/fuzz_setup.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"
#include "util/output_file.h"
#include "util/stop_signals.h"

namespace slotguard {
namespace {

FuzzReport ReportOf(const FuzzOptions& options, const Backend& backend, const Suppressions* suppressions,
                    CampaignResult result) {
  FuzzReport report;
  report.seed = options.seed;
  report.shard = options.shard;
  report.backend = backend.Describe();
  report.variant = options.variant;
  report.max_requests = options.max_requests;
  report.inconsistent = options.inconsistent;
  report.keep_going = options.keep_going;
  report.suppressions = suppressions;
  report.result = std::move(result);
  return report;
}

}  // namespace

int RunFuzz(const FuzzOptions& options, std::ostream& out, std::ostream& err) {
  CampaignOptions campaign;
  std::string problem;
  // The families by name first, with the command line's suggestions
  // ("kpool" for kpool_tail), then the registry's own checks.
  for (const std::string& name : options.families) {
    Family family;
    if (FindFamily(name, &family, &problem)) continue;
    std::vector<std::string> names;
    for (const FamilyInfo& info : AllFamilies()) names.push_back(info.name);
    const std::string match = ClosestCommandLineName(name, names);
    err << ErrorLine("--family: unknown kernel family " + QuoteName(name) +
                     (match.empty() ? "" : ", did you mean '" + match + "'?") + "; expected one of " + JoinNames(names));
    return kExitBadInput;
  }
  if (!ResolveFuzzFamilies(options.families, options.variant, &campaign.generator.families, &problem)) {
    err << ErrorLine(problem);
    return kExitBadInput;
  }
  campaign.generator.inconsistent = options.inconsistent;
  campaign.generator.huge_batches = options.huge_batches;
  campaign.generator.max_requests = options.max_requests;
  campaign.generator.table_layout = options.setup.table_layout;
  campaign.variant = options.variant;
  campaign.seed = options.seed;
  if (!options.shard.empty() && !ParseShard(options.shard, &campaign.shard, &campaign.shards, &problem)) {
    err << ErrorLine("--shard: " + problem);
    return kExitBadInput;
  }
  campaign.keep_going = options.keep_going;
  std::vector<NamedFile> inputs = ImplementationFiles(options.setup.provider);
  inputs.push_back({"--suppressions", options.suppressions_path});
  if (!CheckOutputs({{"--json", options.json_path}, {"--sarif", options.sarif_path}}, inputs, err))
    return kExitBadInput;
  if (const std::string why = OutputDirProblem(options.out_dir); !why.empty()) {
    err << ErrorLine("--out " + EscapeText(options.out_dir, 0) + ": " + why +
                     "; expected a directory for the reproducers (created when missing)");
    return kExitBadInput;
  }
  Suppressions suppressions;
  if (!options.suppressions_path.empty()) {
    if (!LoadSuppressions(options.suppressions_path, &suppressions, &problem)) {
      err << ErrorLine(problem);
      return kExitBadInput;
    }
    campaign.suppressions = &suppressions;
  }
  campaign.runs = options.runs;
  campaign.seconds = options.seconds >= 0 ? options.seconds : (options.runs >= 0 ? 0 : 60);
  campaign.out_dir = options.out_dir;
  campaign.jobs = options.jobs;
  campaign.tty_progress = isatty(STDERR_FILENO);
  // slotguard's own kernels read inside their padded tables and cannot
  // fault, and a campaign moves far more through the worker pipe than
  // check does (a tenth of the batched GPU throughput): isolate only
  // another implementation, unless asked.
  RunSetup setup = options.setup;
  if (setup.isolate < 0 && setup.provider.empty()) setup.isolate = 0;
  // Before the campaign: a long one must not end unable to write its reproducers.
  if (!PrepareReproducerDir(campaign.out_dir, &problem)) {
    err << ErrorLine(problem);
    return kExitEnvironment;
  }
  // SIGINT, SIGTERM: stop at the next scenario and write everything (before
  // any child process starts, whose handlers would otherwise take them).
  InstallStopSignals();
  campaign.stop = &StopSignalFlag();
  int open_status;
  std::unique_ptr<Backend> backend = OpenBackend(options.backend, setup, err, &open_status);
  if (!backend) return open_status;
  // Fuzz what another implementation implements (its families by default)
  // on tables it can read.
  if (backend->provider() &&
      !FitGeneratorToProvider(*backend->provider(), options.variant, &campaign.generator, &problem)) {
    err << ErrorLine(problem);
    return kExitBadInput;
  }
  campaign.implementation = ImplementationName(*backend);
  // The --json summary rewritten while the campaign runs: a kill from
  // outside loses at most a minute of it.
  if (!options.json_path.empty())
    campaign.checkpoint = [&](const CampaignResult& snapshot) {
      std::string why;
      if (!WriteFuzzJson(options.json_path, ReportOf(options, *backend, campaign.suppressions, snapshot), &why))
        err << ErrorLine(why);
    };
  CampaignResult result;
  if (!RunCampaign(campaign, *backend, err, &result, &problem)) {
    err << ErrorLine("fuzz: " + problem);
    return kExitEnvironment;
  }
  const FuzzReport report = ReportOf(options, *backend, campaign.suppressions, std::move(result));
  // The summary (and the reproducer's name) first, whatever happens to the
  // JSON: a nightly run must not lose its finding to a bad --json path.
  PrintFuzzReport(report, GeneratorOperators(), out);
  // Each report on its own, as in check: one that cannot be written is
  // named (the machine's problem: exit 3) and the other is still written.
  bool unwritten = false;
  if (!options.json_path.empty() && !WriteFuzzJson(options.json_path, report, &problem)) {
    err << ErrorLine(problem);
    unwritten = true;
  }
  if (!options.sarif_path.empty() && !WriteFuzzSarif(options.sarif_path, report, &problem)) {
    err << ErrorLine(problem);
    unwritten = true;
  }
  if (unwritten || report.result.ReproducerUnwritten()) return kExitEnvironment;
  // Stopped by a signal (docs/fuzzing.md): 1 with a finding, else 128 + the
  // signal, never 0 (the budget was not spent).
  if (report.result.stop_signal && !report.result.Found()) return 128 + report.result.stop_signal;
  return report.result.Found() ? kExitFindings : kExitHolds;
}

}  // namespace slotguard
