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

#include "plan/group_outputs.h"
#include "plan/mapping_provider.h"
#include "backend/graph_sequence.h"
#include "scenario/scenario.h"

namespace slotguard {

enum class BackendKind { kAuto, kHost, kGpu };

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;
  /// Runs every group of the scenario (outputs->at(i) for groups[i]).
  /// Output buffers start zeroed, like the engine's persistent buffers.
  /// Returns false with *err on an environment failure (a CUDA error).
  virtual bool Run(const Scenario& scenario, std::vector<GroupOutputs>* outputs,
                   std::string* err) = 0;

  /// The CUDA-graph protocol (`check --cuda-graph`): runs sequence.steps in
  /// order on one set of buffers (GraphSequence): outputs are never
  /// re-zeroed and the caches persist from step to step, as in the engine.
  /// The graph holds the engine-geometry mappings and the writers of every
  /// group, recorded from the kCapture step's batch with its scalars
  /// (num_reqs, num_actual_tokens, num_tokens). (*outputs)[k] is the state
  /// after steps[k] (no flat outputs): a kCapture or kZeroNull step's entry
  /// holds the outputs of the last batch run before it. Fewer entries than
  /// steps when a step faulted or the implementation skipped the batch: the
  /// last entry says so (GroupOutputs::fault, ::skipped). The GPU backend
  /// records a real CUDA graph, runs kEager steps as plain launches and
  /// zeroes with a memset between them; the host backend runs every batch
  /// eagerly and zeroes the bytes itself. Needs the writers on.
  virtual bool RunReplays(const GraphSequence& sequence, std::vector<std::vector<GroupOutputs>>* outputs,
                          std::string* err) = 0;

  /// Whether RunMany is much faster than one Run per scenario (the GPU
  /// backend's packed launch, a provider process's messages): a campaign
  /// then checks chunks of scenarios, and overlaps their generation and
  /// checking with RunMany.
  virtual bool Batches() const { return provider_ && provider_->prefers_batches(); }

  /// Runs many scenarios: (*outputs)[i] for scenarios[i]. The GPU backend
  /// packs their plans into one launch per family and geometry (its
  /// host-side packing on `threads` threads); the host backend runs them on
  /// `threads` threads, each wave's provider calls in one batch.
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
  /// --kernel-cubin, --kernel-cmd): it replaces the backend's own kernels
  /// for the families it implements (the plan's kProvider steps), in the
  /// engine geometry only (no flat outputs). Its failures are faults of the
  /// scenario (GroupOutputs::fault).
  void set_provider(std::shared_ptr<MappingProvider> provider) { provider_ = std::move(provider); }
  const std::shared_ptr<MappingProvider>& provider() const { return provider_; }

  /// For reports: "gpu", or "gpu with plugin NAME (PATH) for kpool_tail, qsa_ring".
  std::string Describe() const;

 protected:
  WriterOptions writers_;
  std::shared_ptr<MappingProvider> provider_;
};

/// The host backend; `name` is what reports call it ("gpu" when the
/// implementation under test is a provider process on the GPU).
std::unique_ptr<Backend> MakeHostBackend(const char* name = "host");

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
