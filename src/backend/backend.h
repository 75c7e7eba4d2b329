// Backends (docs/architecture.md): what runs a scenario's kernels.
//   host: the kernels' own per-token source on the CPU (CI, libFuzzer)
//   gpu:  the CUDA kernels on a device
// The reference (src/reference/) is not a backend: it is the oracle.
#ifndef SLOTGUARD_BACKEND_BACKEND_H_
#define SLOTGUARD_BACKEND_BACKEND_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "plugin/mapping_provider.h"
#include "scenario/scenario.h"

namespace slotguard {

enum class BackendKind { kAuto, kHost, kGpu };

/// What one group's kernel produced, in both geometries.
struct GroupOutputs {
  std::vector<std::vector<int64_t>> engine;  // [outputs][num_tokens]
  std::vector<std::vector<int64_t>> flat;    // [outputs][num_tokens]
  std::vector<uint8_t> read_past_row;        // [num_tokens], 1 = read past its row
  std::string row_bounds_evidence;           // how read_past_row was observed
  // With the writers on (Backend::set_writers): the group's KV pool after
  // its writer ran from engine[0] (writers/cache_pool.h); else empty.
  std::vector<uint8_t> cache;
  int32_t head_bytes = 0;
  // Non-empty when the run did not complete: the kernel faulted (illegal
  // address), the worker process crashed or timed out. The outputs are then
  // empty; the runner reports the fault as a `no_fault` finding.
  std::string fault;
  // With `fault`: this group's call is the one that faulted (when known; a
  // worker process that died mid-scenario cannot say which).
  bool culprit = false;
  // Non-empty when the implementation being checked does not take the
  // scenario (MappingProvider::SkipReason, a provider's skip reply): the
  // outputs are empty and the scenario is reported as skipped.
  std::string skipped;
};

/// A run that did not complete: `groups` outputs, each empty but for `fault`;
/// `culprit` is the group whose call faulted, when known.
inline void MarkFaulted(const std::string& fault, size_t groups, std::vector<GroupOutputs>* outputs,
                        size_t culprit = SIZE_MAX) {
  outputs->assign(groups, GroupOutputs());
  for (GroupOutputs& out : *outputs) out.fault = fault;
  if (culprit < groups) (*outputs)[culprit].culprit = true;
}

/// A run that was not made: each output empty but for `skipped`.
inline void MarkSkipped(const std::string& why, size_t groups, std::vector<GroupOutputs>* outputs) {
  outputs->assign(groups, GroupOutputs());
  for (GroupOutputs& out : *outputs) out.skipped = why;
}

/// The cache writers (docs/memory-and-graphs.md): off while head_bytes is 0.
struct WriterOptions {
  int32_t head_bytes = 0;                      // bytes per slot, a multiple of 8, at most kMaxHeadBytes
  // Per group. A group whose pool would be bigger is skipped, not an
  // error: no pool, no writer, GroupOutputs::cache stays empty and its
  // memory invariants are not checked; the report says so (SkippedCaches,
  // runner/scenario_run.h).
  int64_t max_cache_bytes = int64_t{1} << 30;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;
  /// Runs every group of the scenario (outputs->at(i) for groups[i]).
  /// Output buffers start zeroed, like the engine's persistent buffers.
  /// Returns false with *err on an environment failure (a CUDA error).
  virtual bool Run(const Scenario& scenario, std::vector<GroupOutputs>* outputs,
                   std::string* err) = 0;

  /// The CUDA-graph protocol (`check --cuda-graph`): the engine-geometry
  /// mappings and the writers of every group are captured once with the
  /// scalars of replays[0] (num_reqs, num_actual_tokens, num_tokens), then
  /// replayed for each scenario of `replays` (same sizes, new contents) on
  /// the same buffers: outputs are not re-zeroed between replays and the
  /// caches persist. (*outputs)[k] is the state after replay k (no flat
  /// outputs). The GPU backend captures a real CUDA graph; the host backend
  /// runs the same sequence eagerly. Needs the writers on.
  virtual bool RunReplays(const std::vector<Scenario>& replays,
                          std::vector<std::vector<GroupOutputs>>* outputs, std::string* err) = 0;

  /// Whether RunMany is much faster than one Run per scenario (the GPU
  /// backend's packed launch): a campaign then checks chunks of scenarios,
  /// and overlaps their generation and checking with RunMany.
  virtual bool Batches() const { return false; }

  /// Runs many scenarios: (*outputs)[i] for scenarios[i]. The GPU backend
  /// packs them into one launch per family and geometry (its host-side
  /// packing on `threads` threads); others loop.
  virtual bool RunMany(const std::vector<const Scenario*>& scenarios,
                       std::vector<std::vector<GroupOutputs>>* outputs, std::string* err,
                       int threads = 1) {
    (void)threads;
    outputs->resize(scenarios.size());
    for (size_t i = 0; i < scenarios.size(); ++i)
      if (!Run(*scenarios[i], &(*outputs)[i], err)) return false;
    return true;
  }

  void set_writers(const WriterOptions& writers) { writers_ = writers; }
  const WriterOptions& writers() const { return writers_; }

  /// An implementation slotguard did not write (--kernel-lib,
  /// --kernel-cubin): it replaces the backend's own kernels for the families
  /// it implements, in the engine geometry only (no flat outputs). Its
  /// failures are faults of the scenario (GroupOutputs::fault).
  void set_provider(std::shared_ptr<MappingProvider> provider) { provider_ = std::move(provider); }
  const std::shared_ptr<MappingProvider>& provider() const { return provider_; }

  /// For reports: "gpu", or "gpu with plugin NAME (PATH) for kpool_tail, qsa_ring".
  std::string Describe() const;

 protected:
  WriterOptions writers_;
  std::shared_ptr<MappingProvider> provider_;
};

std::unique_ptr<Backend> MakeHostBackend();

/// A GPU backend, or nullptr with *why when this build has no CUDA or no
/// device is usable.
std::unique_ptr<Backend> MakeGpuBackend(std::string* why);

/// Resolves kAuto (gpu when usable, else host). Returns nullptr with *why
/// when kGpu was asked for and is not usable.
std::unique_ptr<Backend> MakeBackend(BackendKind kind, std::string* why);

/// "slotguard" for slotguard's own kernels, else the provider's name
/// without the path of its file ("plugin example-rings", "kernel SYMBOL"):
/// a finding signature's implementation (findings/finding_signature.h).
std::string ImplementationName(const Backend& backend);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_BACKEND_H_
