// `check --cuda-graph` (issue: CUDA-graph mode): the engine captures its
// launches once per padded batch size and replays the graph for every
// batch, real or dummy, on the same buffers. This is where an engine
// dirtied the null block after capture: a dummy batch (all-zero tables, or
// a DP rank with nothing to do) replayed through kernels that accept block 0.
#ifndef SLOTGUARD_RUNNER_GRAPH_REPLAYS_H_
#define SLOTGUARD_RUNNER_GRAPH_REPLAYS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "scenario/scenario.h"

namespace slotguard {

struct ScenarioRun;

/// The capture sizes, in tokens: 1, 2, 4, ..., 512.
const std::vector<int64_t>& CaptureSizes();

/// The smallest capture size >= num_tokens; num_tokens itself past 512 (a
/// batch the engine would run eagerly, here captured at its own size).
int64_t CaptureSize(int64_t num_tokens);

/// The scenario at its capture size: the extra tokens have position 0,
/// slot_mapping_in PAD, and PAD in every golden output.
Scenario PadToCaptureSize(const Scenario& scenario);

struct GraphReplay {
  std::string what;  // how findings name it
  Scenario scenario;
};

/// What is replayed, in order, all with the sizes of `padded`:
///   the real batch;
///   a dummy batch: the same token layout, every table entry 0 and every
///     request a dummy (idx_mapping -1);
///   an idle DP rank: no request owns a token (query_start_loc all 0),
///     positions 0, tables 0, every request a dummy.
std::vector<GraphReplay> GraphReplays(const Scenario& padded);

/// The sequence `check --cuda-graph` runs over `replays` (GraphReplays:
/// batches[k] is replays[k]'s), as an engine's start-up and serving do.
/// zero_null never: the capture of the real batch, then the replays in
/// order. Otherwise:
///   [block 0 of every pool zeroed: zero_null before_capture];
///   an eager warm-up pass on the dummy batch (the engine's capture runs
///     its model once, uncaptured, on dummy inputs before it records);
///   the capture of the real batch;
///   [block 0 of every pool zeroed: zero_null after_capture];
///   the replays, in order.
/// The warm-up pass belongs to the capture: "before_capture" zeroes before
/// it, as vLLM V1 zeroes before capture_model, whose warm-up runs write a
/// sink's block 0 again; "after_capture" zeroes after both, as V2 does.
/// Without a zeroing the warm-up pass is left out: it runs the dummy
/// batch, whose writes the dummy replay makes anyway, and run before the
/// real replay it would only hide that replay's rewrites of the same bytes.
GraphSequence GraphSequenceOf(const std::vector<GraphReplay>& replays, ZeroNull zero_null);

/// Runs the sequence of the scenario (its graph.zero_null) through
/// backend.RunReplays (writers on). *run holds the real replay, checked
/// like RunScenario on the padded scenario (mapping and memory invariants,
/// its pools judged against what the step before it left), plus null_bytes
/// findings for block-0 slots the warm-up pass or a later replay dirtied,
/// each judged against the step before it (a zeroing leaves block 0 zero,
/// so a rewrite of the bytes it held is seen again), and null_read findings
/// for a group that reads block 0 (null_page_read "zero") at each step that
/// found it dirty, naming the step that wrote it. False with *err on an
/// environment failure.
bool RunGraphReplayScenario(const Scenario& scenario, Backend& backend, size_t keep_per_invariant,
                            ScenarioRun* run, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_RUNNER_GRAPH_REPLAYS_H_
