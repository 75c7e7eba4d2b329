// The verdict of every curated scenario in every table layout, on a backend
// (tests/runner/layout_verdicts_test.cc on the host, and the same on the
// GPU in tests/kernels/layout_verdicts_gpu_test.cc): one backend's
// scenario verdict must be another's.
#ifndef SLOTGUARD_TESTS_TESTING_LAYOUT_VERDICTS_H_
#define SLOTGUARD_TESTS_TESTING_LAYOUT_VERDICTS_H_

#include <map>
#include <string>

#include "backend/backend.h"
#include "runner/scenario_run.h"
#include "testing/scenario_fixtures.h"

namespace slotguard {
namespace testing {

/// "FILE-NAME [layout]" -> "holds: VERDICT" or "fails: VERDICT" for every
/// curated scenario (each with its own expect) in the three layouts.
inline std::map<std::string, bool> LayoutVerdicts(Backend& backend, std::map<std::string, std::string>* verdicts) {
  std::map<std::string, bool> holds;
  for (Scenario s : CuratedScenarios())
    for (TableLayoutKind kind : {TableLayoutKind::kPadded, TableLayoutKind::kTight, TableLayoutKind::kStrided}) {
      s.table_layout = kind;
      const ScenarioReport r = CheckScenario(s, s.name, backend, 8);
      const std::string key = s.name + " [" + TableLayoutName(kind) + "]";
      holds[key] = r.status == ScenarioStatus::kChecked && r.holds;
      (*verdicts)[key] = r.verdict;
    }
  return holds;
}

}  // namespace testing
}  // namespace slotguard

#endif  // SLOTGUARD_TESTS_TESTING_LAYOUT_VERDICTS_H_
