// `slotguard replay FILE`: one scenario, verbose (report/replay_table.h), and
// with --html the block map page (report/block_map_html.h).
#include <limits>

#include "backend/gpu_device.h"
#include "cli/command_setup.h"
#include "cli/commands.h"
#include "registry/families.h"
#include "report/block_map_html.h"
#include "report/replay_table.h"
#include "runner/graph_replays.h"
#include "runner/scenario_files.h"
#include "runner/scenario_run.h"
#include "util/error_line.h"

namespace slotguard {

int RunReplay(const ReplayOptions& options, std::ostream& out, std::ostream& err) {
  std::string problem;
  if (!ValidateVariantName(options.variant, &problem) || options.variant == "all") {
    if (problem.empty()) problem = "replay takes one variant name, not 'all'";
    err << ErrorLine(problem);
    return kExitBadInput;
  }
  std::vector<NamedFile> inputs = ImplementationFiles(options.setup.provider);
  inputs.push_back({"the scenario file", options.file});
  if (!CheckOutputs({{"--html", options.html_path}}, inputs, err)) return kExitBadInput;
  int open_status;
  std::unique_ptr<Backend> backend = OpenBackend(options.backend, options.setup, err, &open_status);
  if (!backend) return open_status;
  Scenario scenario;
  if (!LoadRunScenario(options.file, LimitsFor(options.limits, *backend, options.setup), options.setup.table_layout,
                       &scenario, &problem)) {
    err << ErrorLine(problem);
    return kExitBadInput;
  }
  if (!options.variant.empty() && !ForceVariant(options.variant, &scenario)) {
    err << ErrorLine("no group of " + EscapeText(options.file, 0) + " has variant " + QuoteName(options.variant));
    return kExitBadInput;
  }
  const std::string skipped = SkippedCaches(scenario, backend->writers());
  if (!skipped.empty()) out << "note: " << skipped << "\n";
  // --cuda-graph runs the scenario at its capture size: show that one.
  if (options.setup.cuda_graph) scenario = PadToCaptureSize(scenario);
  ScenarioRun run;
  const size_t keep = std::numeric_limits<size_t>::max();
  const bool ran = options.setup.cuda_graph ? RunGraphReplayScenario(scenario, *backend, keep, &run, &problem)
                                            : RunScenario(scenario, *backend, keep, &run, &problem);
  if (!ran) {
    err << ErrorLine(EscapeText(options.file, 0) + ": " + EscapeText(scenario.name) + ": " + backend->name() + " backend: " + problem);
    return kExitEnvironment;
  }
  std::string described = backend->Describe();
  if (std::string(backend->name()) == "gpu") described += " on " + GpuDescription();
  const bool holds = PrintReplay(scenario, options.file, described, run, options.all_tokens, out, options.max_findings);
  // A page that cannot be written is the machine's problem, as check's reports.
  if (!options.html_path.empty() &&
      !WriteBlockMapHtml(options.html_path, scenario, options.file, described, run, &problem)) {
    err << ErrorLine(problem);
    return kExitEnvironment;
  }
  return holds ? kExitHolds : kExitFindings;
}

}  // namespace slotguard
