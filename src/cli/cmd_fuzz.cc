// `slotguard fuzz`: a time- or run-bounded campaign (fuzzing/campaign.h). On a
// finding no suppression covers, the minimized scenario is written first;
// the last output line names the file and the exit code is 1. Without one:
// a summary and exit 0.
#include <unistd.h>

#include <filesystem>
#include <set>
#include <system_error>

#include "backend/gpu_device.h"
#include "cli/command_setup.h"
#include "cli/commands.h"
#include "fuzzing/campaign.h"
#include "fuzzing/generators.h"
#include "fuzzing/regressions.h"
#include "runner/check_run.h"
#include "report/report.h"
#include "registry/families.h"
#include "report/fuzz_report.h"
#include "fuzzing/fuzz_setup.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"
#include "util/output_file.h"
#include "util/stop_signals.h"
#include "util/utc_time.h"

namespace slotguard {
namespace {

FuzzReport ReportOf(const FuzzOptions& options, const CampaignOptions& campaign, const Backend& backend,
                    CampaignResult result) {
  FuzzReport report;
  report.finished = UtcNow();  // the end, or the checkpoint's time of a run killed later
  report.seed = options.settings.seed;
  // The families it generated: --family's or the implementation's, else
  // those of slotguard's own kernels (as the generator takes none).
  for (Family f : campaign.generator.families) report.families.push_back(GetFamily(f).name);
  if (report.families.empty())
    for (const FamilyInfo& f : AllFamilies())
      if (f.kernel) report.families.push_back(f.name);
  report.shard = options.shard;
  report.backend = backend.Describe();
  if (std::string(backend.name()) == "gpu") report.device = GpuDescription();
  report.variant = options.settings.variant;
  report.conform = options.conform;
  report.max_requests = options.generator.max_requests;
  report.inconsistent = options.generator.inconsistent;
  report.keep_going = options.settings.keep_going;
  report.suppressions = campaign.suppressions;
  report.sarif_root = options.sarif_root;
  report.verbose = options.verbose;
  report.regressions_dir = options.regressions;
  report.result = std::move(result);
  return report;
}

/// On the way out, removes the reproducers' folder when this run created
/// it and left it empty: a clean campaign leaves nothing behind.
class RemoveIfEmptyAndNew {
 public:
  RemoveIfEmptyAndNew(std::string dir, bool existed) : dir_(std::move(dir)), existed_(existed) {}
  ~RemoveIfEmptyAndNew() {
    std::error_code ec;
    if (!existed_ && std::filesystem::is_directory(dir_, ec) && std::filesystem::is_empty(dir_, ec))
      std::filesystem::remove(dir_, ec);
  }

 private:
  std::string dir_;
  bool existed_;
};

}  // namespace

int RunFuzz(const FuzzOptions& options, std::ostream& out, std::ostream& err) {
  CampaignOptions campaign;
  campaign.generator = options.generator;
  campaign.settings = options.settings;
  // --time unset: 60 s, or no limit with --runs.
  if (campaign.settings.seconds < 0) campaign.settings.seconds = campaign.settings.runs >= 0 ? 0 : 60;
  std::string problem;
  // The families by name first, with the command line's suggestions
  // ("kpool" for kpool_tail), then the registry's own checks.
  if (!CheckFamilyNames(options.families, err)) return kExitBadInput;
  if (!ResolveFuzzFamilies(options.families, options.settings.variant, &campaign.generator.families, &problem)) {
    err << ErrorLine(problem);
    return kExitBadInput;
  }
  campaign.generator.table_layout = options.setup.table_layout;
  if (!ParseShardFlag(options.shard, &campaign.settings, err)) return kExitBadInput;
  // --conform judges an implementation against the engine variants: it needs one, and no forced variant.
  if (options.conform && options.setup.provider.empty()) {
    err << ErrorLine("--conform: no implementation to judge; expected the engine's kernel with --kernel-cmd "
                     "(python3 -m slotguard.engines vllm --family F), --kernel-lib or --kernel-cubin");
    return kExitBadInput;
  }
  campaign.conform = options.conform;
  if (options.conform) {  // --variant names the variant compared; nothing is forced on the groups
    campaign.conform_variant = options.settings.variant;
    campaign.settings.variant.clear();
  }
  if (!CheckSarifRoot(options.sarif_root, err)) return kExitBadInput;
  Suppressions suppressions;
  // The regression reproducers are inputs a report must not overwrite (a
  // folder that cannot be listed is named below).
  std::vector<NamedFile> regression_inputs;
  std::vector<std::string> regression_files;
  if (!options.regressions.empty() && RegressionFiles(options.regressions, &regression_files, &problem))
    for (const std::string& file : regression_files) regression_inputs.push_back({"the regression", file});
  if (!CheckCampaignFiles(options.setup.provider, options.suppressions_path, options.json_path, options.sarif_path,
                          options.settings.out_dir, &suppressions, err, regression_inputs))
    return kExitBadInput;
  if (!options.suppressions_path.empty()) campaign.suppressions = &suppressions;
  campaign.tty_progress = isatty(STDERR_FILENO);
  // slotguard's own kernels read inside their padded tables and cannot
  // fault, and a campaign moves far more through the worker pipe than
  // check does (a tenth of the batched GPU throughput): isolate only
  // another implementation, unless asked.
  RunSetup setup = options.setup;
  if (setup.isolate < 0 && setup.provider.empty()) setup.isolate = 0;
  // Before the campaign: a long one must not end unable to write its reproducers.
  std::error_code exists_ec;
  const bool out_existed = std::filesystem::exists(campaign.settings.out_dir, exists_ec);
  if (!PrepareReproducerDir(campaign.settings.out_dir, &problem)) {
    err << ErrorLine(problem);
    return kExitEnvironment;
  }
  const RemoveIfEmptyAndNew empty_out(campaign.settings.out_dir, out_existed);
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
      !FitGeneratorToProvider(*backend->provider(), campaign.settings.variant, &campaign.generator, &problem)) {
    err << ErrorLine(problem);
    return kExitBadInput;
  }
  campaign.implementation = ImplementationName(*backend);
  // What every reproducer records, so that its replay command reproduces.
  campaign.found_by = FoundByOf(*backend, options.setup);
  // The regressions first: a bug that came back is found in the time it
  // takes to replay its reproducer.
  std::vector<ScenarioReport> regressions;
  if (!options.regressions.empty()) {
    std::vector<std::string> files;
    if (!RegressionFiles(options.regressions, &files, &problem)) {
      err << ErrorLine(problem);
      return kExitBadInput;
    }
    if (!files.empty()) {
      CheckRunOptions check;
      check.jobs = options.settings.jobs;
      check.limits = LimitsFor(LoadLimits(), *backend, setup);
      check.suppressions = campaign.suppressions;
      check.stop = campaign.stop;  // a stop ends the replay too, at the next file
      regressions = CheckFiles(files, check, *backend);
      PrintCheckReports(regressions, false, true, out, err);
      std::set<std::string> replayed;  // a file may give several reports (variant runs)
      for (const ScenarioReport& r : regressions) replayed.insert(r.file);
      if (const int sig = campaign.stop->load(); sig != 0 && replayed.size() < files.size())
        err << "fuzz: stopped by " << SignalName(sig) << " during the regressions: " << replayed.size() << " of "
            << files.size() << " replayed\n";
    }
  }
  int64_t failing_regressions = 0, bad_regressions = 0;
  for (const ScenarioReport& r : regressions) {
    failing_regressions += r.status == ScenarioStatus::kChecked && !r.holds;
    bad_regressions += r.status != ScenarioStatus::kChecked && r.status != ScenarioStatus::kSkipped;
  }
  // The --json summary rewritten while the campaign runs: a kill from
  // outside loses at most a minute of it.
  if (!options.json_path.empty())
    campaign.checkpoint = [&](const CampaignResult& snapshot) {
      std::string why;
      if (!WriteFuzzJson(options.json_path, ReportOf(options, campaign, *backend, snapshot), &why))
        err << ErrorLine(why);
    };
  CampaignResult result;
  const bool campaign_runs = failing_regressions == 0 || options.settings.keep_going;
  if (campaign_runs && !RunCampaign(campaign, *backend, err, &result, &problem)) {
    err << ErrorLine("fuzz: " + problem);
    return kExitEnvironment;
  }
  FuzzReport report = ReportOf(options, campaign, *backend, std::move(result));
  report.regressions = std::move(regressions);
  report.campaign_ran = campaign_runs;
  if (!options.regressions.empty() &&
      !AddRegressions(options.regressions, report.result, &report.regressions_added, &problem)) {
    err << ErrorLine(problem);
    return kExitEnvironment;
  }
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
  if (report.result.Found() || failing_regressions > 0) return kExitFindings;
  if (report.result.stop_signal) return 128 + report.result.stop_signal;
  return bad_regressions > 0 ? kExitBadInput : kExitHolds;
}

}  // namespace slotguard
