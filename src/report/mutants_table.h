// The control experiment's table (runner/mutants_run.h): one row per
// variant of every family in the scenarios, which files catch each, what
// fails, and the summary line.
#ifndef SLOTGUARD_REPORT_MUTANTS_TABLE_H_
#define SLOTGUARD_REPORT_MUTANTS_TABLE_H_

#include <ostream>
#include <string>

#include "runner/mutants_run.h"

namespace slotguard {

/// Everything `mutants` prints after a run without errors, the summary
/// line last. `backend` as Backend::Describe() says it.
void PrintMutantsTable(const MutantsResult& result, const std::string& backend, double seconds, std::ostream& out);

}  // namespace slotguard

#endif  // SLOTGUARD_REPORT_MUTANTS_TABLE_H_
