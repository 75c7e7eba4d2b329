// Another implementation (a plugin or a compiled kernel) at GPU speed: a
// chunk of scenarios packed into one upload, every call enqueued on one
// stream (the provider's calls, slotguard's own kernels for the rest), one
// download and one synchronization for the chunk. A call the provider
// reports as failed costs its scenario; a fault that breaks the context
// fails the chunk, which the isolated backend then bisects.
#ifndef SLOTGUARD_BACKEND_GPU_PROVIDER_CHUNKS_H_
#define SLOTGUARD_BACKEND_GPU_PROVIDER_CHUNKS_H_

#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "backend/backend.h"
#include "backend/cuda_check.h"

namespace slotguard {

/// The packed buffers of one stream, kept between chunks (grow-only).
struct ProviderChunkBuffers {
  PinnedBuffer<uint8_t> host_in, host_out;
  DeviceBuffer<uint8_t> device_in, device_out;
};

/// Runs `scenarios` (mappings only: no writers) with `provider` on `stream`.
/// False with *err on a CUDA error (a context broken by a fault included).
bool RunProviderChunk(const std::vector<const Scenario*>& scenarios, MappingProvider& provider, cudaStream_t stream,
                      ProviderChunkBuffers& buffers, std::vector<std::vector<GroupOutputs>>* outputs,
                      std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_GPU_PROVIDER_CHUNKS_H_
