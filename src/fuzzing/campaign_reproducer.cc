// The end of a campaign that found something: the finding shrunk, then
// written as a scenario file before anything is reported.
#include <filesystem>
#include <system_error>

#include "fuzzing/campaign_internal.h"
#include "fuzzing/shrink.h"
#include "registry/families.h"
#include "registry/invariants.h"
#include "report/report.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"

namespace slotguard {
namespace campaign_internal {
namespace {

std::string Describe(const CampaignOptions& o, const CampaignResult& r, const Backend& backend) {
  std::string fired;
  for (const std::string& f : r.fired) fired += (fired.empty() ? "" : ", ") + f;
  std::string command = "slotguard fuzz --seed " + std::to_string(o.seed);
  for (Family f : o.generator.families) command += std::string(" --family ") + GetFamily(f).name;
  if (!o.variant.empty()) command += " --variant " + o.variant;
  if (o.generator.inconsistent) command += " --inconsistent";
  if (o.generator.table_layout) command += std::string(" --table-layout ") + TableLayoutName(*o.generator.table_layout);
  if (o.generator.max_requests != GeneratorOptions().max_requests)
    command += " --max-requests " + std::to_string(o.generator.max_requests);
  std::string text = "found by " + command + " (scenario " +
                     std::to_string(r.finding_index) + ", backend " + backend.Describe() +
                     "); invariants fired: " + fired + "; minimized to keep " + r.invariant +
                     " firing. Add \"expect\": {\"verdict\": \"finding\", \"findings\": [\"" + r.invariant +
                     "\"]} to keep it as a regression scenario.";
  if (!r.original.description.empty()) text += " The generator made an " + r.original.description + ".";
  return text;
}

}  // namespace

bool MinimizeFinding(const CampaignOptions& options, Backend& backend, CampaignResult* result,
                     std::string* err) {
  result->original = CampaignScenario(options, result->finding_index, nullptr);
  std::set<std::string> fired;
  if (!Fired(result->original, backend, &fired, err)) return false;
  // The reproducer must blame the kernel as the finding did. On a batch a
  // correct kernel passes (the reference's own output raises nothing), every
  // candidate must be such a batch too: then the reproducer holds once the
  // kernel is fixed. On a batch the runner got wrong (--inconsistent), the
  // reproducer keeps an invariant that blames the kernel firing.
  const bool sound = ReferencePasses(result->original);
  std::set<std::string> blaming;
  for (const std::string& name : fired)
    if (BlamesKernel({name})) blaming.insert(name);
  // (A finding nothing blames on a batch a correct kernel fails too, from a
  // consistent campaign, keeps its most specific invariant: a generator bug.)
  const bool blame = !sound && !blaming.empty();
  result->invariant = MostSpecificInvariant(blame ? blaming : fired);  // what the reproducer must keep firing
  std::string shrink_error;
  const std::string target = result->invariant;
  const std::optional<TableLayoutKind> fixed_layout = options.generator.table_layout;
  result->minimized = Shrink(result->original, [&](const Scenario& candidate) {
    std::set<std::string> f;
    // --table-layout fixed the layout: the reproducer keeps it.
    if (fixed_layout && candidate.table_layout != *fixed_layout) return false;
    return Fired(candidate, backend, &f, &shrink_error) && f.count(target) > 0 &&
           (!sound || ReferencePasses(candidate));
  });
  if (!Fired(result->minimized, backend, &fired, err)) return false;
  result->fired.assign(fired.begin(), fired.end());
  return true;
}

bool WriteReproducer(const CampaignOptions& options, Backend& backend, CampaignResult* result,
                     std::string* err) {
  Scenario out = result->minimized;
  out.name = "fuzz-" + (options.variant.empty() ? std::string("fixed") : options.variant) + "-" +
             result->invariant + "-seed" + std::to_string(options.seed) + "-" +
             std::to_string(result->finding_index);
  out.description = Describe(options, *result, backend);
  out.expect = Expect();
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  result->file = (std::filesystem::path(options.out_dir) / (out.name + ".json")).string();
  if (!WriteScenarioFile(result->file, out, err)) return false;
  result->minimized = out;
  // The reproducer's own finding lines, as `check` prints them.
  ScenarioRun run;
  if (!RunScenario(out, backend, 2, &run, err)) return false;
  ScenarioReport report;
  report.file = result->file;
  report.name = out.name;
  for (size_t g = 0; g < out.groups.size(); ++g)
    for (const Finding& f : run.findings[g].kept())
      result->finding_lines.push_back(FindingLine(report, out.groups[g].name, f));
  return true;
}

}  // namespace campaign_internal
}  // namespace slotguard
