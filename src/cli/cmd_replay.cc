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
#include "util/shell_quote.h"
#include "scenario/scenario_json.h"

namespace slotguard {

namespace {

/// The implementation a ProviderSource names, as the flags that name it.
std::string Flags(const ProviderSource& p) {
  FoundBy f;
  f.kernel_lib = p.kernel_lib;
  f.kernel_cubin = p.kernel_cubin;
  f.kernel_spec = p.kernel_spec;
  f.kernel_cmd = p.kernel_cmd;
  const std::string flags = ImplementationFlags(f);
  return flags.empty() ? "slotguard's own kernels" : flags;
}

/// A fuzz reproducer records how it was found (scenario/found_by.h). Given
/// no implementation, replay runs the recorded one (and its backend, unless
/// --backend names one, its writers and its family files), saying so; given
/// another, it says which was recorded. False after printing a family file
/// that does not register (exit 2).
bool ApplyFoundBy(const ReplayOptions& given, ReplayOptions* options, std::ostream& out, std::ostream& err) {
  FoundBy found;
  std::vector<std::string> kernels;
  if (!PeekFoundBy(given.file, given.limits, &found, &kernels) || !found.present) return true;
  const std::string file = EscapeText(given.file, 0);
  const std::string recorded = found.OwnKernels() ? "slotguard's own kernels" : ImplementationFlags(found);
  std::string used;
  if (given.setup.provider.empty()) {
    if (!found.OwnKernels()) {
      options->setup.provider.kernel_lib = found.kernel_lib;
      options->setup.provider.kernel_cubin = found.kernel_cubin;
      options->setup.provider.kernel_spec = found.kernel_spec;
      options->setup.provider.kernel_cmd = found.kernel_cmd;
      used += " " + recorded;
    }
  } else if (Flags(given.setup.provider) != recorded) {
    out << "note: " << file << " was found with " << recorded << "; replaying " << Flags(given.setup.provider)
        << " as asked\n";
  }
  if (given.backend == BackendKind::kAuto && !found.backend.empty()) {
    options->backend = found.backend == "gpu" ? BackendKind::kGpu : BackendKind::kHost;
    used = " --backend " + found.backend + used;
  }
  if (found.writers && !given.setup.writers) {
    options->setup.writers = true;
    if (found.head_bytes > 0) options->setup.head_bytes = found.head_bytes;
    used += " --writers";
  }
  // Its families' descriptions, unless every family it names is known.
  bool known = true;
  for (const std::string& kernel : kernels) {
    Family family;
    std::string unused;
    known &= FindFamily(kernel, &family, &unused);
  }
  if (!known && !found.family_files.empty()) {
    std::string problem;
    if (!RegisterFamilyFiles(found.family_files, &problem)) {
      err << ErrorLine(file + ": a family file it records (found_by.family_files) does not register: " + problem);
      return false;
    }
    for (const std::string& family : found.family_files) used += " --family-file " + ShellQuote(family);
  }
  if (!used.empty())
    out << "note: replaying " << file << " as it was found:" << used
        << " (what it records; flags given here replace them)\n";
  return true;
}

}  // namespace

int RunReplay(const ReplayOptions& given, std::ostream& out, std::ostream& err) {
  ReplayOptions options = given;
  if (!ApplyFoundBy(given, &options, out, err)) return kExitBadInput;
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
  if (options.setup.zero_null) scenario.graph.zero_null = *options.setup.zero_null;
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
