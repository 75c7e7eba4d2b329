// `slotguard fuzz`: a time- or run-bounded campaign. On a finding, the
// minimized scenario is written first; the last output line names the file
// and the exit code is 1. Without one: a summary and exit 0.
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli/command_setup.h"
#include "cli/commands.h"
#include "fuzzing/campaign.h"
#include "fuzzing/generators.h"
#include "scenario/scenario_json.h"
#include "registry/families.h"
#include "util/did_you_mean.h"

namespace slotguard {
namespace {

std::string Shape(const Scenario& s) {
  return std::to_string(s.batch.num_reqs()) + " requests, " + std::to_string(s.batch.num_tokens) + " tokens, " +
         std::to_string(s.groups.size()) + " groups";
}

}  // namespace

bool ResolveFuzzFamilies(const std::vector<std::string>& names, const std::string& variant,
                         std::vector<Family>* families, std::string* err) {
  for (const std::string& name : names) {
    Family f;
    if (!FindFamily(name, &f, err)) return false;
    families->push_back(f);
  }
  if (variant.empty()) return true;
  if (!ValidateVariantName(variant, err)) return false;
  if (variant == "all") {
    *err = "fuzz takes one variant name, not 'all'";
    return false;
  }
  // Keep (or choose) the families that have the variant.
  std::vector<Family> with;
  for (const FamilyInfo& info : AllFamilies()) {
    Variant v;
    std::string unused;
    const bool listed = families->empty() || std::count(families->begin(), families->end(), info.family);
    if (listed && FindVariant(info.family, variant, &v, &unused)) with.push_back(info.family);
  }
  if (with.empty()) {
    *err = "no family given with --family has variant '" + variant + "'";
    return false;
  }
  *families = with;
  return true;
}

int RunFuzz(const FuzzOptions& options, std::ostream& out, std::ostream& err) {
  CampaignOptions campaign;
  std::string problem;
  if (!ResolveFuzzFamilies(options.families, options.variant, &campaign.generator.families, &problem)) {
    err << "slotguard: error: " << problem << "\n";
    return kExitBadInput;
  }
  campaign.generator.inconsistent = options.inconsistent;
  campaign.generator.max_requests = options.max_requests;
  campaign.variant = options.variant;
  campaign.seed = options.seed;
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
  if (const std::shared_ptr<MappingProvider>& provider = backend->provider()) {
    // Fuzz what the implementation implements: its families by default.
    if (!options.variant.empty()) {
      err << "slotguard: error: --variant " << options.variant << " with " << provider->name()
          << ": it replaces the fixed kernels only; expected no --variant\n";
      return kExitBadInput;
    }
    std::vector<std::string> names;
    for (Family f : provider->families()) names.push_back(GetFamily(f).name);
    for (Family f : campaign.generator.families)
      if (!provider->Implements(f)) {
        err << "slotguard: error: --family " << GetFamily(f).name << ": " << provider->name()
            << " does not implement it; expected one of " << JoinNames(names) << "\n";
        return kExitBadInput;
      }
    if (campaign.generator.families.empty()) campaign.generator.families = provider->families();
  }
  CampaignResult result;
  if (!RunCampaign(campaign, *backend, err, &result, &problem)) {
    err << "slotguard: error: fuzz: " << problem << "\n";
    return kExitEnvironment;
  }
  std::string classes, never;
  for (const std::string& op : GeneratorOperators()) {
    auto it = result.classes.find(op);
    if (it == result.classes.end()) {
      if (op.rfind("fault_", 0) == 0 && !options.inconsistent) continue;  // only with --inconsistent
      never += (never.empty() ? "" : ", ") + op;
    } else {
      classes += (classes.empty() ? "" : " ") + op + "=" + std::to_string(it->second);
    }
  }
  if (!options.json_path.empty()) {
    nlohmann::ordered_json j;
    j["slotguard_fuzz"] = 1;
    j["seed"] = options.seed;
    j["backend"] = backend->Describe();
    j["variant"] = options.variant.empty() ? "fixed" : options.variant;
    j["max_requests"] = options.max_requests;
    j["scenarios"] = result.scenarios;
    j["token_groups"] = result.tokens;
    j["seconds"] = result.seconds;
    j["scenarios_per_second"] = result.scenarios / std::max(result.seconds, 1e-9);
    if (result.kernel_seconds > 0)  // batched campaigns: where the time went
      j["phase_seconds"] = {{"generate", result.generate_seconds},
                            {"kernels", result.kernel_seconds},
                            {"check", result.check_seconds}};
    j["classification"] = result.classes;
    j["found"] = result.found;
    if (result.found) {
      j["file"] = result.file;
      j["invariant"] = result.invariant;
      j["fired"] = result.fired;
      j["scenario_index"] = result.finding_index;
    }
    std::ofstream(options.json_path) << j.dump(2) << "\n";
  }
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.0f scenarios/s, %.2f s", result.scenarios / std::max(result.seconds, 1e-9),
                result.seconds);
  if (!result.found) {
    out << "fuzz: classification: " << classes << "\n";
    if (!never.empty()) out << "fuzz: operators never exercised: " << never << "\n";
    out << "slotguard: fuzz: " << result.scenarios << " scenarios, " << result.tokens << " token-groups, " << rate
        << ", no finding, backend " << backend->Describe() << ", seed " << options.seed << "\n";
    return kExitHolds;
  }
  for (const std::string& line : result.finding_lines) out << line << "\n";
  std::string fired;
  for (const std::string& f : result.fired) fired += (fired.empty() ? "" : ", ") + f;
  out << "fuzz: finding in scenario " << result.finding_index << " after " << result.scenarios << " scenarios ("
      << rate << "): " << fired << "; minimized from " << Shape(result.original) << " to "
      << Shape(result.minimized) << "\n";
  out << "slotguard: fuzz: finding written to " << result.file << "; replay it with: slotguard replay "
      << result.file << "\n";
  return kExitFindings;
}

int RunImport(const ImportOptions& options, std::ostream& out, std::ostream& err) {
  std::ifstream in(options.file, std::ios::binary);
  if (!in) {
    err << "slotguard: error: " << options.file << ": cannot open file; expected a libFuzzer artifact\n";
    return kExitBadInput;
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string problem;
  const size_t slash = options.variant.find('/');
  if (slash != std::string::npos) {
    Family family;
    Variant v;
    if (!FindFamily(options.variant.substr(0, slash), &family, &problem) ||
        !FindVariant(family, options.variant.substr(slash + 1), &v, &problem)) {
      err << "slotguard: error: " << problem << "\n";
      return kExitBadInput;
    }
  } else if (!options.variant.empty() && (!ValidateVariantName(options.variant, &problem) || options.variant == "all")) {
    err << "slotguard: error: " << (problem.empty() ? "import takes one variant name" : problem) << "\n";
    return kExitBadInput;
  }
  Scenario s = FuzzMappingScenario(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), options.variant);
  const std::string base = options.file.substr(options.file.find_last_of('/') + 1);
  s.name = "import-" + base;
  s.description = "imported from the libFuzzer artifact " + base + " (fuzz_mapping generator" +
                  (options.variant.empty() ? "" : ", variant " + options.variant) + ")" +
                  (s.description.empty() ? "" : "; " + s.description);
  if (options.out.empty() || options.out == "-") {
    out << WriteScenarioJson(s);
  } else if (!WriteScenarioFile(options.out, s, &problem)) {
    err << "slotguard: error: " << problem << "\n";
    return kExitBadInput;
  } else {
    out << "slotguard: import: scenario written to " << options.out << "\n";
  }
  return kExitHolds;
}

}  // namespace slotguard
