// The GPU half of Backend::RunReplays: one CUDA graph, many replays.
#ifndef SLOTGUARD_BACKEND_GPU_GRAPH_REPLAYS_H_
#define SLOTGUARD_BACKEND_GPU_GRAPH_REPLAYS_H_

#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "backend/backend.h"

namespace slotguard {

/// Captures the engine-geometry mappings and the writers of replays[0]'s
/// groups into a CUDA graph on static buffers, then for each replay copies
/// its contents into those buffers and launches the graph.
/// `provider` (or nullptr) is captured in place of slotguard's kernels for
/// its families.
bool RunGraphReplays(const std::vector<Scenario>& replays, const WriterOptions& writers, MappingProvider* provider,
                     cudaStream_t stream, std::vector<std::vector<GroupOutputs>>* outputs, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_GPU_GRAPH_REPLAYS_H_
