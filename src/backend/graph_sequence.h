// The CUDA-graph sequence (`check --cuda-graph`): the steps an engine's
// start-up and serving run on one graph's buffers (an eager warm-up pass,
// the capture, a zeroing of block 0, replays), which Backend::RunReplays
// carries out and the runner (runner/graph_replays.h) judges step by step.
#ifndef SLOTGUARD_BACKEND_GRAPH_SEQUENCE_H_
#define SLOTGUARD_BACKEND_GRAPH_SEQUENCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace slotguard {

/// One step of the CUDA-graph sequence (Backend::RunReplays).
struct GraphStep {
  enum class Kind : uint8_t {
    kEager = 1,     // the batch run eagerly on the graph's buffers (the engine's warm-up pass)
    kCapture = 2,   // the graph recorded from the batch's plan: nothing runs
    kReplay = 3,    // the graph launched on the batch's contents
    kZeroNull = 4,  // block 0 of every group's pool set to zero (a memset); `batch` unused
  };
  Kind kind = Kind::kReplay;
  uint32_t batch = 0;  // an index into GraphSequence::batches
  bool operator==(const GraphStep& o) const { return kind == o.kind && batch == o.batch; }
};

/// What Backend::RunReplays runs: batches of one size (the capture size,
/// the same groups) and the steps over them. Exactly one kCapture step,
/// before every kReplay step; kEager and kZeroNull steps anywhere.
struct GraphSequence {
  std::vector<Scenario> batches;
  std::vector<GraphStep> steps;
  /// batches[0] captured, then every batch replayed in order.
  static GraphSequence Replays(std::vector<Scenario> batches) {
    GraphSequence s;
    s.steps.push_back({GraphStep::Kind::kCapture, 0});
    for (size_t k = 0; k < batches.size(); ++k) s.steps.push_back({GraphStep::Kind::kReplay, static_cast<uint32_t>(k)});
    s.batches = std::move(batches);
    return s;
  }
  /// The batch the graph is recorded from (the kCapture step's), or -1.
  int64_t CapturedBatch() const {
    for (const GraphStep& step : steps)
      if (step.kind == GraphStep::Kind::kCapture) return step.batch;
    return -1;
  }
  /// Why the steps are not a sequence RunReplays runs ("" when they are):
  /// a batch index out of range, no kCapture or two, a kReplay before it.
  std::string Problem() const {
    bool captured = false;
    for (const GraphStep& step : steps) {
      if (step.batch >= batches.size()) return "a graph step names batch " + std::to_string(step.batch) + " of " + std::to_string(batches.size());
      if (step.kind == GraphStep::Kind::kCapture) {
        if (captured) return "two capture steps in a graph sequence";
        captured = true;
      }
      if (step.kind == GraphStep::Kind::kReplay && !captured) return "a graph replay before the capture";
    }
    return captured ? "" : "no capture step in a graph sequence";
  }
};

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_GRAPH_SEQUENCE_H_
