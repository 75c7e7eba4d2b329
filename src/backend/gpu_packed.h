// The GPU executor: many scenario plans (plan/scenario_plan.h) packed into
// one upload, slotguard's steps of each wave in one launch per family (both
// geometries), the implementation's steps of each wave enqueued on the same
// stream between them, the writers, then one download and one
// synchronization for them all.
#ifndef SLOTGUARD_BACKEND_GPU_PACKED_H_
#define SLOTGUARD_BACKEND_GPU_PACKED_H_

#include <array>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "backend/cuda_check.h"
#include "plan/group_outputs.h"
#include "plan/scenario_plan.h"

namespace slotguard {

struct PackedRun {
  const ScenarioPlan* plan = nullptr;  // not host_only
  std::vector<GroupOutputs>* outputs = nullptr;
};

struct PackedExecution {
  MappingProvider* provider = nullptr;  // runs the plans' kProvider steps (device calls)
  WriterOptions writers;
  int threads = 1;                      // host threads that pack and unpack
};

/// Where one plan lives in the packed buffers (byte offsets).
struct PackedPlace {
  size_t in_at = 0, in_bytes = 0, out_at = 0, out_bytes = 0;
  size_t qsl = 0, positions = 0, seq_lens = 0, idx = 0, slot_in = 0, seq_i32 = 0, owner = 0;
  std::array<size_t, 2> absent = {0, 0};
  std::vector<size_t> table;                  // [step]
  std::vector<std::array<size_t, 4>> out;     // [step]: engine 0, 1, flat 0, 1
  std::vector<size_t> cache;                  // [step]
  MappingBatch batch;                         // device pointers (after the upload is placed)
  bool failed = false;                        // skipped, or a provider call failed
};

/// The buffers of one stream, kept between calls (grow-only).
struct PackedBuffers {
  PinnedBuffer<uint8_t> host_in, host_out;
  DeviceBuffer<uint8_t> device_in, device_out;
  std::vector<PackedPlace> places;
  struct Jobs;                                // the family job lists (gpu_family_jobs.h)
  std::unique_ptr<Jobs> jobs;
  PackedBuffers();
  ~PackedBuffers();
};

/// Runs `runs` on `stream`. Every run's outputs are rewritten whole. False
/// with *err on a CUDA error (a context broken by a fault included).
bool RunPacked(const std::vector<PackedRun>& runs, const PackedExecution& how, cudaStream_t stream,
               PackedBuffers* buffers, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_GPU_PACKED_H_
