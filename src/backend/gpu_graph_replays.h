// The GPU half of Backend::RunReplays: one CUDA graph, many replays. The
// graph is the first replay's plan (plan/scenario_plan.h) run inside a
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

/// Captures replays[0]'s plan (made with `options`) into a CUDA graph on
/// static buffers, then for each replay copies its contents into those
/// buffers and launches the graph. `provider` (or nullptr) is captured in
/// place of slotguard's kernels for the steps it runs.
bool RunGraphReplays(const std::vector<Scenario>& replays, const PlanOptions& options, MappingProvider* provider,
                     cudaStream_t stream, std::vector<std::vector<GroupOutputs>>* outputs, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_GPU_GRAPH_REPLAYS_H_
