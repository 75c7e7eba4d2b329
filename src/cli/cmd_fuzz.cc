// `slotguard fuzz`: a time- or run-bounded campaign (fuzzing/campaign.h). On a
// finding, the minimized scenario is written first; the last output line
// names the file and the exit code is 1. Without one: a summary and exit 0.
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

namespace slotguard {
namespace {

FuzzReport ReportOf(const FuzzOptions& options, const Backend& backend, const CampaignResult& result) {
  FuzzReport report;
  report.seed = options.seed;
  report.shard = options.shard;
  report.backend = backend.Describe();
  report.variant = options.variant;
  report.max_requests = options.max_requests;
  report.inconsistent = options.inconsistent;
  report.scenarios = result.scenarios;
  report.tokens = result.tokens;
  report.seconds = result.seconds;
  report.generate_seconds = result.generate_seconds;
  report.kernel_seconds = result.kernel_seconds;
  report.check_seconds = result.check_seconds;
  report.classes = result.classes;
  report.runner_state_findings = result.runner_state_findings;
  report.first_runner_state_finding = result.first_runner_state_finding;
  report.skipped = result.skipped;
  report.first_skip = result.first_skip;
  report.found = result.found;
  report.finding_index = result.finding_index;
  report.invariant = result.invariant;
  report.fired = result.fired;
  if (result.found) {
    report.original_shape = ScenarioShape(result.original);
    report.minimized_shape = ScenarioShape(result.minimized);
    for (const Group& g : result.minimized.groups) report.families.push_back(GetFamily(g.family).name);
  }
  report.file = result.file;
  report.finding_lines = result.finding_lines;
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
    err << ErrorLine("--family: unknown kernel family '" + name + "'" +
                     (match.empty() ? "" : ", did you mean '" + match + "'?") + "; expected one of " + JoinNames(names));
    return kExitBadInput;
  }
  if (!ResolveFuzzFamilies(options.families, options.variant, &campaign.generator.families, &problem)) {
    err << ErrorLine(problem);
    return kExitBadInput;
  }
  campaign.generator.inconsistent = options.inconsistent;
  campaign.generator.max_requests = options.max_requests;
  campaign.generator.table_layout = options.setup.table_layout;
  campaign.variant = options.variant;
  campaign.seed = options.seed;
  if (!options.shard.empty() && !ParseShard(options.shard, &campaign.shard, &campaign.shards, &problem)) {
    err << ErrorLine("--shard: " + problem);
    return kExitBadInput;
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
  CampaignResult result;
  if (!RunCampaign(campaign, *backend, err, &result, &problem)) {
    err << ErrorLine("fuzz: " + problem);
    return kExitEnvironment;
  }
  const FuzzReport report = ReportOf(options, *backend, result);
  // The summary (and the reproducer's name) first, whatever happens to the
  // JSON: a nightly run must not lose its finding to a bad --json path.
  PrintFuzzReport(report, GeneratorOperators(), out);
  if ((!options.json_path.empty() && !WriteFuzzJson(options.json_path, report, &problem)) ||
      (!options.sarif_path.empty() && !WriteFuzzSarif(options.sarif_path, report, &problem))) {
    err << ErrorLine(problem);  // the machine's problem, as in check
    return kExitEnvironment;
  }
  return result.found ? kExitFindings : kExitHolds;
}

}  // namespace slotguard
