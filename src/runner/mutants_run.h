// `mutants`, the control experiment. For every family in the scenarios and
// every one of its variants, each scenario runs with that variant forced on
// the family's groups (every other group fixed) and is compared with the
// all-fixed run: a variant is caught by a scenario when some invariant
// fires more often than with `fixed`. The fixed run itself must be clean,
// except in scenarios that expect findings from `fixed` (inconsistent
// batches, on purpose).
#ifndef SLOTGUARD_RUNNER_MUTANTS_RUN_H_
#define SLOTGUARD_RUNNER_MUTANTS_RUN_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "scenario/load_limits.h"

namespace slotguard {

/// One scenario file's row of the matrix.
struct MutantsFile {
  std::string file;
  std::string error;         // bad input, or with `environment` a backend failure; nothing else is set
  bool environment = false;
  std::set<Family> families;  // of its groups
  bool fixed_has_expected_findings = false;  // its own groups are fixed and it expects findings
  std::vector<std::string> fixed_failures;   // "FILE: group G: I fired N times with every variant fixed"
  std::map<Variant, std::set<std::string>> caught;  // variant -> the invariants it fired beyond fixed
};

/// One variant's column, over the files without an error.
struct VariantTally {
  int scenarios = 0;                   // files with a group of its family
  std::vector<std::string> caught_by;  // files that catch it, file order
  std::set<std::string> fired;         // invariants that fired more than with fixed, in any of them
};

struct MutantsResult {
  std::vector<MutantsFile> files;  // the matrix: file x variant -> caught (by which invariants)
  std::map<Variant, VariantTally> variants;
  std::map<Family, int> family_scenarios;  // files with a group of the family
  std::map<Family, int> family_expected;   // of them, files whose fixed findings are expected
  std::vector<std::string> fixed_failures;  // every file's, file order
  std::vector<std::string> survivors;       // "family/variant" no file catches, registry order
  bool bad_input = false, environment = false;
};

/// One file's row; `table_layout` (--table-layout) over the file's own.
MutantsFile RunMutantsFile(const std::string& file, const LoadLimits& limits, Backend& backend,
                           const std::optional<TableLayoutKind>& table_layout = std::nullopt);

/// Every file on `jobs` threads, then the columns and the survivors.
MutantsResult RunMutantsExperiment(const std::vector<std::string>& files, const LoadLimits& limits, int jobs,
                                   Backend& backend,
                                   const std::optional<TableLayoutKind>& table_layout = std::nullopt);

}  // namespace slotguard

#endif  // SLOTGUARD_RUNNER_MUTANTS_RUN_H_
