// The GPU half of Backend::RunReplays: one CUDA graph, many replays. The
// graph is the captured batch's plan (plan/scenario_plan.h) run inside a
// capture: its steps wave by wave (slotguard's kernels in the engine
// geometry, the implementation's calls), then its writer jobs.
#ifndef SLOTGUARD_BACKEND_GPU_GRAPH_REPLAYS_H_
#define SLOTGUARD_BACKEND_GPU_GRAPH_REPLAYS_H_

#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "backend/backend.h"
#include "plan/scenario_plan.h"

namespace slotguard {

/// Runs the sequence's steps (Backend::RunReplays) on static buffers: a
/// kEager step launches its batch's plan (made with `options`) uncaptured,
/// the kCapture step records its batch's plan into a CUDA graph, a kReplay
/// step copies its batch's contents into the buffers and launches the
/// graph, a kZeroNull step memsets block 0 of every pool. `provider` (or
/// nullptr) is launched or captured in place of slotguard's kernels for
/// the steps it runs.
bool RunGraphReplays(const GraphSequence& sequence, const PlanOptions& options, MappingProvider* provider,
                     cudaStream_t stream, std::vector<std::vector<GroupOutputs>>* outputs, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_GPU_GRAPH_REPLAYS_H_
