// libFuzzer target: bytes -> the shared generator -> every family on the host
// backend and the reference, all invariants. On a finding it writes the
// scenario JSON beside libFuzzer's crash artifact (crash-<sha1>.json) and
// aborts. SLOTGUARD_FUZZ_VARIANT=NAME (or FAMILY/NAME) forces a historical
// variant (the control experiment); `slotguard import crash-<sha1>
// --variant NAME` rebuilds the scenario. SLOTGUARD_FUZZ_KERNEL_LIB=lib.so
// fuzzes a plugin's host entry point instead of slotguard's own kernels for
// its families (include/slotguard/plugin.h).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "backend/backend.h"
#include "plugin/open_provider.h"
#include "fuzzing/generators.h"
#include "report/report.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"
#include "util/error_line.h"
#include "sha1.h"

namespace {

std::string g_variant;
std::string g_artifact_prefix = "./";
std::unique_ptr<slotguard::Backend> g_host;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  if (const char* v = std::getenv("SLOTGUARD_FUZZ_VARIANT")) g_variant = v;
  for (int i = 1; i < *argc; ++i)
    if (std::strncmp((*argv)[i], "-artifact_prefix=", 17) == 0) g_artifact_prefix = (*argv)[i] + 17;
  g_host = slotguard::MakeHostBackend();
  if (const char* lib = std::getenv("SLOTGUARD_FUZZ_KERNEL_LIB")) {
    std::string err;
    std::shared_ptr<slotguard::MappingProvider> plugin = slotguard::OpenPluginLibrary(lib, &err);
    if (plugin && !plugin->has_host()) err = plugin->name() + " has no host entry point; libFuzzer needs one";
    if (!plugin || !plugin->has_host()) {
      std::fputs(slotguard::ErrorLine("SLOTGUARD_FUZZ_KERNEL_LIB: " + err).c_str(), stderr);
      std::exit(2);
    }
    g_host->set_provider(plugin);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace slotguard;
  const Scenario s = FuzzMappingScenario(data, size, g_variant);
  static ScenarioRun run;  // reused: the host backend recycles its buffers
  std::string err;
  if (!RunScenario(s, *g_host, 4, &run, &err)) {
    std::fputs(ErrorLine("host backend: " + err).c_str(), stderr);
    std::abort();
  }
  int64_t findings = 0;
  for (const FindingSink& sink : run.findings) findings += sink.total();
  if (findings == 0) return 0;
  Scenario out = s;
  out.name = "crash-" + Sha1Hex(data, size);
  out.description = "fuzz_mapping finding" + (g_variant.empty() ? std::string() : " (variant " + g_variant + ")") +
                    (s.description.empty() ? "" : "; " + s.description);
  const std::string path = g_artifact_prefix + out.name + ".json";
  std::string write_err;
  ScenarioReport report;
  report.file = path;
  report.name = out.name;
  for (size_t g = 0; g < s.groups.size(); ++g)
    for (const Finding& f : run.findings[g].kept())
      std::fprintf(stderr, "%s\n", FindingLine(report, s.groups[g].name, f).c_str());
  if (WriteScenarioFile(path, out, &write_err)) {
    std::fprintf(stderr, "slotguard: scenario written to %s\n", path.c_str());
  } else {
    std::fputs(ErrorLine(write_err).c_str(), stderr);
  }
  std::abort();
}
