// `slotguard import`: a libFuzzer artifact of fuzz_mapping as a scenario file.
#include "cli/command_setup.h"
#include "cli/commands.h"
#include "fuzzing/generators.h"
#include "registry/families.h"
#include "scenario/scenario_json.h"
#include "util/error_line.h"
#include "util/json_reader.h"
#include "util/output_file.h"

namespace slotguard {

int RunImport(const ImportOptions& options, std::ostream& out, std::ostream& err) {
  // A regular file only (a FIFO or a device would hang or never end), capped
  // at the default --max-file-mib of the other commands.
  std::string bytes, problem;
  const bool to_stdout = options.out.empty() || options.out == "-";
  if (!to_stdout && !CheckOutputs({{"-o", options.out}}, {{"the artifact", options.file}}, err)) return kExitBadInput;
  if (!ReadTextFile(options.file, "a libFuzzer artifact", &bytes, &problem)) {
    err << ErrorLine(problem);
    return kExitBadInput;
  }
  const size_t slash = options.variant.find('/');
  if (slash != std::string::npos) {
    Family family;
    Variant v;
    if (!FindFamily(options.variant.substr(0, slash), &family, &problem) ||
        !FindVariant(family, options.variant.substr(slash + 1), &v, &problem)) {
      err << ErrorLine(problem);
      return kExitBadInput;
    }
  } else if (!options.variant.empty() && (!ValidateVariantName(options.variant, &problem) || options.variant == "all")) {
    err << ErrorLine(problem.empty() ? "import takes one variant name" : problem);
    return kExitBadInput;
  }
  Scenario s = FuzzMappingScenario(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), options.variant);
  const std::string base = options.file.substr(options.file.find_last_of('/') + 1);
  s.name = "import-" + base;
  s.description = "imported from the libFuzzer artifact " + base + " (fuzz_mapping generator" +
                  (options.variant.empty() ? "" : ", variant " + options.variant) + ")" +
                  (s.description.empty() ? "" : "; " + s.description);
  if (to_stdout) {
    out << WriteScenarioJson(s);
  } else if (!WriteOutputFile(options.out, WriteScenarioJson(s), &problem)) {
    // The artifact was fine: the machine could not take the file (exit 3).
    err << ErrorLine("-o " + EscapeText(options.out, 0) + ": cannot write the scenario file: " + problem);
    return kExitEnvironment;
  } else {
    out << "slotguard: import: scenario written to " << EscapeText(options.out, 0) << "\n";
  }
  return kExitHolds;
}

}  // namespace slotguard
