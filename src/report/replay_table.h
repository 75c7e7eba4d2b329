// What `replay` prints of one scenario run: a head, then per group and
// output a per-token table (token, request, position, block, kernel slot,
// reference slot, invariants hit) and a picture of which blocks each
// request wrote; the findings and the scenario line last.
#ifndef SLOTGUARD_REPORT_REPLAY_TABLE_H_
#define SLOTGUARD_REPORT_REPLAY_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>

#include "runner/scenario_run.h"

namespace slotguard {

/// Scenarios up to this many tokens show every token; longer ones only the
/// tokens with findings, unless all_tokens.
constexpr int64_t kReplayEveryToken = 256;

/// Findings listed per invariant and group, as check prints them; the rest
/// are counted ("N more findings not shown"). In scenarios over
/// kReplayEveryToken tokens the table likewise shows only the tokens of the
/// listed findings. all_tokens, or max_findings 0, lists everything.
constexpr size_t kReplayMaxFindings = 8;

/// Ranges listed per request in "blocks written by the kernel", unless
/// all_tokens; the rest are counted. The null block, the lowest ids, is
/// always among the listed.
constexpr size_t kReplayMaxRanges = 64;

/// Consecutive live requests that wrote no null-block entry, from this many
/// on, are one line in "blocks written by the kernel" ("requests 5-300: 296
/// live requests, none in the null block"), unless all_tokens: a replay of a
/// batch of hundreds of requests stays a page.
constexpr int32_t kReplayFoldRequests = 4;

/// "1-64:16 65:6": blocks written -> tokens, consecutive block ids with the
/// same count collapsed to a range; blocks under null_entries get "!".
/// Past max_ranges ranges (0: no limit): " ... (N more ranges; --all-tokens
/// lists them)".
std::string BlockRanges(const std::map<int64_t, int64_t>& written, int64_t null_entries, size_t max_ranges = 0);

/// One group's tables: run holds every finding (keep_per_invariant
/// unbounded) for the "invariants" column.
void PrintReplayGroup(const Scenario& scenario, size_t group, const ScenarioRun& run, bool all_tokens,
                      std::ostream& out, size_t max_findings = kReplayMaxFindings);

/// The replay's verdict: the run's findings judged against the scenario's
/// expectation (JudgeExpectation), or skipped when the implementation did
/// not take the scenario. The text replay and the HTML block map both end
/// with its ScenarioLine.
ScenarioReport ReplayReport(const Scenario& scenario, const std::string& file, const ScenarioRun& run);

/// The whole replay. `backend` is how the head names it ("host", "gpu on
/// NVIDIA ..."). Returns whether the scenario holds (JudgeExpectation).
bool PrintReplay(const Scenario& scenario, const std::string& file, const std::string& backend,
                 const ScenarioRun& run, bool all_tokens, std::ostream& out,
                 size_t max_findings = kReplayMaxFindings);

}  // namespace slotguard

#endif  // SLOTGUARD_REPORT_REPLAY_TABLE_H_
