// `slotguard replay FILE`: one scenario, verbose. A per-token table (token,
// request, position, block, kernel slot, reference slot, invariants hit) and
// a picture of which blocks each request wrote.
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "backend/gpu_device.h"
#include "cli/command_setup.h"
#include "cli/commands.h"
#include "invariants/group_run.h"
#include "registry/families.h"
#include "report/report.h"
#include "runner/graph_replays.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"
#include "util/error_line.h"

namespace slotguard {
namespace {

constexpr int64_t kShortScenario = 256;  // print every token up to this many

std::string Cell(int64_t v) { return v == kPadSlot ? "PAD" : std::to_string(v); }

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

void PrintGroup(const Scenario& s, size_t gi, const ScenarioRun& run, bool all_tokens,
                std::ostream& out) {
  const Group& group = s.groups[gi];
  if (!run.kernel[gi].fault.empty()) {
    out << "\ngroup " << group.name << ": no outputs: " << run.kernel[gi].fault << "\n";
    return;
  }
  GroupRun facts;
  facts.scenario = &s;
  facts.group = &group;
  facts.request_of_token = &run.request_of_token[gi];
  SetAddressing(&facts);
  out << "\ngroup " << group.name << ": " << GetFamily(group.family).name << ", variant "
      << GetVariant(group.variant).name << ", " << group.table.rows << "x" << group.table.width
      << " table, null block = slots [0, " << facts.page() << ")\n";
  // token -> invariants hit, per output
  for (size_t o = 0; o < run.output_names[gi].size(); ++o) {
    const std::string& name = run.output_names[gi][o];
    std::map<int64_t, std::set<std::string>> hits;
    for (const Finding& f : run.findings[gi].kept())
      if (f.output == name && f.token >= 0) hits[f.token].insert(f.invariant);
    const std::vector<int64_t>& kernel = run.kernel[gi].engine[o];
    const std::vector<int64_t>& reference = run.reference[gi][o];
    if (run.output_names[gi].size() > 1) out << " output " << name << ":\n";
    out << "  token   req       pos   block     kernel  reference  invariants\n";
    const bool every = all_tokens || s.batch.num_tokens <= kShortScenario;
    int64_t skipped = 0;
    for (int64_t t = 0; t < s.batch.num_tokens; ++t) {
      if (!every && !hits.count(t)) {
        ++skipped;
        continue;
      }
      const int32_t r = run.request_of_token[gi][t];
      std::string block = "-";
      if (kernel[t] >= 0) {
        const int64_t entry = kernel[t] / facts.slots_per_entry;
        block = std::to_string(entry) + (entry < facts.null_entries ? "!" : "");
      }
      std::string inv;
      for (const std::string& i : hits[t]) inv += (inv.empty() ? "" : ",") + i;
      out << Pad(std::to_string(t), 7) << Pad(r >= 0 ? std::to_string(r) : "-", 6)
          << Pad(std::to_string(s.batch.positions[t]), 10) << Pad(block, 8)
          << Pad(Cell(kernel[t]), 11) << Pad(Cell(reference[t]), 11)
          << (kernel[t] != reference[t] ? " *" : "  ") << inv << "\n";
    }
    if (skipped)
      out << "  (" << skipped << " tokens without findings not shown; --all-tokens shows them)\n";
    // Blocks written, per request: "!" marks the null block.
    out << "  blocks written by the kernel (block:tokens, ! = null block):\n";
    std::map<int32_t, std::map<int64_t, int64_t>> written;
    for (int64_t t = 0; t < s.batch.num_tokens; ++t)
      if (kernel[t] >= 0 && KernelMaps(facts, t))
        written[run.request_of_token[gi][t]][kernel[t] / facts.slots_per_entry]++;
    for (int32_t r = -1; r < s.batch.num_reqs(); ++r) {
      auto it = written.find(r);
      if (r < 0 && it == written.end()) continue;
      out << "    " << (r < 0 ? std::string("no request") : "request " + std::to_string(r));
      if (r >= 0 && s.batch.idx_mapping[r] == -1) out << " (dummy)";
      out << ":";
      if (it == written.end()) out << " nothing";
      else
        for (const auto& [entry, count] : it->second)
          out << " " << entry << (entry < facts.null_entries ? "!" : "") << ":" << count;
      out << "\n";
    }
  }
}

}  // namespace

int RunReplay(const ReplayOptions& options, std::ostream& out, std::ostream& err) {
  std::string problem;
  if (!ValidateVariantName(options.variant, &problem) || options.variant == "all") {
    if (problem.empty()) problem = "replay takes one variant name, not 'all'";
    err << ErrorLine(problem);
    return kExitBadInput;
  }
  Scenario scenario;
  if (!LoadScenarioFile(options.file, options.limits, &scenario, &problem)) {
    err << ErrorLine(problem);
    return kExitBadInput;
  }
  if (!options.variant.empty() && !ForceVariant(options.variant, &scenario)) {
    err << ErrorLine("no group of " + options.file + " has variant '" + options.variant + "'");
    return kExitBadInput;
  }
  int open_status;
  std::unique_ptr<Backend> backend = OpenBackend(options.backend, options.setup, err, &open_status);
  if (!backend) return open_status;
  const std::string skipped = SkippedCaches(scenario, backend->writers());
  if (!skipped.empty()) out << "note: " << skipped << "\n";
  // --cuda-graph runs the scenario at its capture size: show that one.
  if (options.setup.cuda_graph) scenario = PadToCaptureSize(scenario);
  ScenarioRun run;
  const size_t keep = std::numeric_limits<size_t>::max();
  const bool ran = options.setup.cuda_graph ? RunGraphReplayScenario(scenario, *backend, keep, &run, &problem)
                                            : RunScenario(scenario, *backend, keep, &run, &problem);
  if (!ran) {
    err << ErrorLine(options.file + ": " + scenario.name + ": " + backend->name() + " backend: " + problem);
    return kExitEnvironment;
  }
  const Batch& b = scenario.batch;
  out << "scenario " << scenario.name << " (" << options.file << "), backend " << backend->Describe();
  if (std::string(backend->name()) == "gpu") out << " on " << GpuDescription();
  out << "\n";
  if (!scenario.description.empty()) out << "  " << scenario.description << "\n";
  out << "  " << b.num_reqs() << " requests, " << b.num_real_tokens() << " real tokens, "
      << "num_actual_tokens " << b.num_actual_tokens << ", num_tokens " << b.num_tokens
      << ", num_blocks " << scenario.num_blocks << "\n";
  for (size_t gi = 0; gi < scenario.groups.size(); ++gi)
    PrintGroup(scenario, gi, run, options.all_tokens, out);

  ScenarioReport report;
  report.file = options.file;
  report.name = scenario.name;
  out << "\n";
  for (size_t gi = 0; gi < scenario.groups.size(); ++gi) {
    for (const auto& [name, count] : run.findings[gi].counts()) report.fired.insert(name);
    report.total_findings += run.findings[gi].total();
    for (const Finding& f : run.findings[gi].kept())
      out << FindingLine(report, scenario.groups[gi].name, f) << "\n";
  }
  JudgeExpectation(scenario.expect, &report);
  out << ScenarioLine(report) << "\n";
  return report.holds ? kExitHolds : kExitFindings;
}

}  // namespace slotguard
