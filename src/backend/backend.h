// Backends (DESIGN section 4): what runs a scenario's kernels.
//   host: the kernels' own per-token source on the CPU (CI, libFuzzer)
//   gpu:  the CUDA kernels on a device
// The reference (src/reference/) is not a backend: it is the oracle.
#ifndef SLOTGUARD_BACKEND_BACKEND_H_
#define SLOTGUARD_BACKEND_BACKEND_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace slotguard {

enum class BackendKind { kAuto, kHost, kGpu };

/// What one group's kernel produced, in both geometries.
struct GroupOutputs {
  std::vector<std::vector<int64_t>> engine;  // [outputs][num_tokens]
  std::vector<std::vector<int64_t>> flat;    // [outputs][num_tokens]
  std::vector<uint8_t> read_past_row;        // [num_tokens], 1 = read past its row
  std::string row_bounds_evidence;           // how read_past_row was observed
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
};

std::unique_ptr<Backend> MakeHostBackend();

/// A GPU backend, or nullptr with *why when this build has no CUDA or no
/// device is usable.
std::unique_ptr<Backend> MakeGpuBackend(std::string* why);

/// Resolves kAuto (gpu when usable, else host). Returns nullptr with *why
/// when kGpu was asked for and is not usable.
std::unique_ptr<Backend> MakeBackend(BackendKind kind, std::string* why);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_BACKEND_H_
