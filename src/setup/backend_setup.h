// The backend a command runs scenarios on, assembled from its flags: the
// kind, another implementation (--kernel-lib, --kernel-cubin, --kernel-cmd),
// fault isolation in worker processes and the cache writers. Assembly knows
// the backends and the implementations both; neither knows the other.
#ifndef SLOTGUARD_SETUP_BACKEND_SETUP_H_
#define SLOTGUARD_SETUP_BACKEND_SETUP_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "backend/backend.h"
#include "plugin/open_provider.h"  // ProviderSource
#include "scenario/found_by.h"
#include "scenario/memory_estimate.h"

namespace slotguard {

/// How scenarios run beyond the backend's kind: the cache writers, fault
/// isolation, the table layout. Shared by check, replay, mutants and fuzz.
struct RunSetup {
  bool writers = false;          // --writers: null_bytes and write_set on the caches
  int32_t head_bytes = 64;       // --head-bytes per slot
  int64_t max_cache_mib = 1024;  // --max-cache-mib per group
  bool cuda_graph = false;       // --cuda-graph (check, replay): implies writers
  int isolate = -1;              // --isolate 1 / --no-isolate 0; -1: on for gpu (not in fuzz) or another implementation
  double timeout_seconds = 120;  // --timeout per scenario, isolated runs
  ProviderSource provider;       // --kernel-lib, --kernel-cubin with --kernel-spec, or --kernel-cmd
  /// --table-layout: every scenario's tables laid out so (the runner sets
  /// it on each scenario it loads; fuzz generates them so); unset, each
  /// scenario's own (fuzz: the generator varies it).
  std::optional<TableLayoutKind> table_layout;
  /// --zero-null (check, replay): where the engine zeroes block 0 around
  /// its CUDA-graph capture, over each scenario's graph.zero_null.
  std::optional<ZeroNull> zero_null;
  int device = -1;  // --device K: the CUDA device (SelectCudaDevice); -1: CUDA's default
};

/// The backend asked for, or nullptr with a one-line *problem: bad setup
/// flags, or (*environment set) an environment problem, the GPU not
/// usable. With isolation (the gpu backend's default, and another
/// implementation's) it runs the kernels in worker processes; with the
/// writers on, it fills the caches.
std::unique_ptr<Backend> OpenBackend(BackendKind kind, const RunSetup& setup, std::string* problem,
                                     bool* environment);

/// What a reproducer found on `backend`, opened from `setup`, records
/// (scenario/found_by.h), so that its replay command reproduces it: the
/// backend that ran, the implementation (--kernel-lib, --kernel-cubin with
/// --kernel-spec, --kernel-cmd) and the writers. Every command that writes
/// reproducers (fuzz, prove) records it through this one function; the
/// campaign adds the family files of each reproducer's families.
FoundBy FoundByOf(const Backend& backend, const RunSetup& setup);

/// What a backend opened from `setup` holds of each scenario besides the
/// loaded one (a worker's copy, device copies, the writers' pools, graph
/// replays), for the memory budget (scenario/memory_estimate.h).
RunFootprint FootprintOf(const Backend& backend, const RunSetup& setup);

}  // namespace slotguard

#endif  // SLOTGUARD_SETUP_BACKEND_SETUP_H_
