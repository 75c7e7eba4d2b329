// Runs one scenario: the backend's kernels, the reference, every mapping
// invariant; then judges the outcome against the scenario's expectation
// (docs/scenario-format.md: a scenario *holds* when its outcome matches it).
#ifndef SLOTGUARD_RUNNER_SCENARIO_RUN_H_
#define SLOTGUARD_RUNNER_SCENARIO_RUN_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "invariants/finding.h"
#include "invariants/group_cause.h"
#include "invariants/group_run.h"
#include "findings/finding_signature.h"
#include "runner/null_block_effect.h"
#include "family/group_model.h"  // OutputNames
#include "scenario/scenario.h"

namespace slotguard {

/// Everything computed for one scenario, kept for `replay`.
struct ScenarioRun {
  std::vector<GroupOutputs> kernel;                           // [groups]
  // [groups]: each pool before the run, when it did not start from the
  // initial state (a CUDA-graph replay after earlier steps); else empty.
  std::vector<std::vector<uint8_t>> cache_before;
  // With cache_before: how null_read names the run's step, and [groups]
  // [block-0 slots] the step that last changed each slot before it.
  std::string step;
  std::vector<std::vector<std::string>> null_writers;
  std::vector<std::vector<std::vector<int64_t>>> reference;  // [groups][outputs][tokens]
  std::vector<std::vector<std::string>> output_names;         // [groups][outputs]
  std::vector<std::vector<int32_t>> request_of_token;         // [groups][num_tokens]
  std::vector<std::vector<std::vector<uint8_t>>> facts;      // [groups][outputs][tokens], TokenFact bits
  std::vector<std::vector<std::vector<uint8_t>>> writer_skips;  // [groups][outputs][tokens], or empty: skips none
  std::vector<FindingSink> findings;                          // [groups]
  std::vector<GroupCause> causes;                             // [groups]: who wrote block 0, or where the kernel differs
  // Non-empty when the implementation being checked did not take the
  // scenario (GroupOutputs::skipped): nothing was checked.
  std::string skipped;
  // Non-empty when a family's description cannot compute this scenario (a
  // formula overflows or divides by zero on it): a bad input, nothing checked.
  std::string reference_error;
};

/// The groups whose pool the backends skip (writers on, pool over
/// writers.max_cache_bytes), in words for the report; "" when none.
std::string SkippedCaches(const Scenario& scenario, const WriterOptions& writers);

/// Runs the scenario. Returns false with *err when the backend failed (a
/// CUDA error: an environment problem, not a finding).
bool RunScenario(const Scenario& scenario, Backend& backend, size_t keep_per_invariant,
                 ScenarioRun* run, std::string* err);

/// The checking half of RunScenario: run->kernel already holds the
/// backend's outputs; computes the reference and every mapping invariant,
/// and the memory invariants of groups that carry a cache. A faulted run
/// (GroupOutputs::fault) gets one no_fault finding and nothing else; a
/// skipped one (GroupOutputs::skipped) sets run->skipped and no finding.
/// Where the reference outputs come from. Checking always uses the
/// description; the hand-written references are a benchmark's baseline
/// (`bench --references`): without the interpreter's facts, so live_maps
/// does not run, which makes it faster than any full check could be.
enum class ReferenceSource : uint8_t { kDescription, kHandWritten };
void CheckKernelOutputs(const Scenario& scenario, size_t keep_per_invariant, ScenarioRun* run,
                        ReferenceSource source = ReferenceSource::kDescription);

/// True when the reference's own outputs, judged as a kernel's would be,
/// raise no finding: the batch is one a correct kernel passes, so a finding
/// on it blames the kernel (docs/families.md, "Engine states").
bool ReferencePasses(const Scenario& scenario);

/// Every invariant that fired in some group of the run.
std::set<std::string> FiredInvariants(const ScenarioRun& run);

/// The finding of a run that did not complete (GroupOutputs::fault).
Finding NoFaultFinding(const std::string& output, const std::string& fault);

/// Forces variant `name` on every group whose family has it. Returns false
/// when no group's family has such a variant.
bool ForceVariant(const std::string& name, Scenario* scenario);

struct GroupReport {
  std::string name;
  Family family = Family::kPaged;
  Variant variant = Variant::kPagedFixed;
  std::map<std::string, int64_t> counts;  // invariant -> findings
  std::vector<Finding> findings;          // the first few per invariant
  GroupCause cause;                       // the run's (ScenarioRun::causes)
  NullBlockEffect null_block = NullBlockEffect::kNone;  // a hazard, a write, or neither
};

/// Group `g` of `scenario` as run: its name, family, variant, findings and
/// cause (its null-block effect is the caller's: it needs the writers).
GroupReport ReportGroup(const Scenario& scenario, const ScenarioRun& run, size_t g);

// kSkipped: the implementation being checked does not take the scenario
// (a compiled kernel's specializations or precondition, a provider's skip);
// neither a pass nor a finding.
enum class ScenarioStatus { kChecked, kSkipped, kBadInput, kEnvironmentError };

struct ScenarioReport {
  std::string file;
  std::string name;
  std::string forced_variant;  // "" when each group ran its own
  ScenarioStatus status = ScenarioStatus::kChecked;
  std::string error;           // bad input or environment error, one line
  std::vector<GroupReport> groups;
  int64_t tokens = 0;          // token-outputs checked, all groups
  int64_t total_findings = 0;
  std::set<std::string> fired;
  bool expect_finding = false;
  std::vector<std::string> expected_invariants;
  bool holds = false;
  std::string verdict;         // one line: why it holds or does not
  double seconds = 0;
  FindingSignature signature;  // when an invariant fired (shape: the scenario's own)
  // A suppression entry covered its unexpected findings (check
  // --suppressions): it holds, counted as suppressed.
  int suppressed_by = -1;      // the entry's index; -1: none
  std::string suppressed_id, suppressed_reason;
};

/// RunScenario (or, with cuda_graph, RunGraphReplayScenario) plus the
/// expectation, as a report.
ScenarioReport CheckScenario(const Scenario& scenario, const std::string& file,
                             Backend& backend, size_t keep_per_invariant, bool cuda_graph = false);

/// What the invariants see of group i of a checked run (CheckKernelOutputs'
/// outputs, references, facts and writer skips): its addressing and every
/// output, with the flat geometry when `with_flat`.
GroupRun GroupRunOf(const Scenario& scenario, const ScenarioRun& run, size_t i, bool with_flat);

/// Judges fired invariants against the expectation: fills holds and verdict.
/// Without `memory_checked` (no --writers: the memory invariants could not
/// run), a memory invariant expect.findings lists is not required, and the
/// verdict says it was not checked.
void JudgeExpectation(const Expect& expect, ScenarioReport* report, bool memory_checked = true);

}  // namespace slotguard

#endif  // SLOTGUARD_RUNNER_SCENARIO_RUN_H_
