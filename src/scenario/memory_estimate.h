// The memory budget of one scenario (--max-memory-mib): what checking it
// will allocate, estimated from its sizes before anything of that size is
// allocated, so that a 300-byte file with num_tokens 2^26 is one error line
// (exit 2) instead of gigabytes and an abort.
//
// Two estimates, each checked against the budget:
//  - parsing: the file's text and the JSON document built from it
//    (util/json_reader.h: ParseJsonText counts the values first);
//  - checking: the parsing estimate again (the text and the document are
//    alive while the scenario is built from them), the scenario's arrays
//    and every copy the run makes of them
//    (the run's own copy of the scenario, a worker process's, CUDA-graph
//    replays, a --kernel-cmd provider's message and answers for the groups
//    it runs), each group's outputs (engine, reference, findings), laid-out
//    tables and the writers' pools, on the host and, on the gpu backend,
//    on the device. The loader adds each term as soon as its size is
//    known (the batch's token and request counts, then each group) and
//    fails at the first total over the budget, naming the term that drives
//    it.
// The per-element costs were measured (docs/limits.md,
// scripts/memory-footprint.py); tests/cli/memory_battery.sh runs hostile
// inputs under a memory limit set from these figures.
#ifndef SLOTGUARD_SCENARIO_MEMORY_ESTIMATE_H_
#define SLOTGUARD_SCENARIO_MEMORY_ESTIMATE_H_

#include <cstdint>
#include <string>

#include "registry/variant_ids.h"

namespace slotguard {

/// What the run does with a scenario beyond loading it (set by the
/// commands from their backend: FootprintOf, setup/backend_setup.h).
struct RunFootprint {
  bool isolated = false;        // a worker process holds a third copy
  bool device = false;          // the gpu backend: device copies of the arrays
  int32_t head_bytes = 0;       // the writers' bytes per slot (0: no writers)
  int64_t max_cache_bytes = 0;  // the writers' largest pool per group
  bool graph_replays = false;   // --cuda-graph: several replays of the batch
  // --kernel-cmd: a provider process is handed the groups of its families
  // (one bit per Family) and answers their outputs; the other groups run
  // in slotguard's process, which holds no worker's copy.
  bool provider_process = false;
  uint32_t provided_families = 0;
  bool Provides(Family family) const {
    return provider_process && (provided_families >> static_cast<int>(family) & 1) != 0;
  }
};

/// Bytes per element of each term, every copy of it on the host and the
/// device counted.
struct MemoryCosts {
  int64_t per_token = 0;         // positions, slot_mapping_in (request_of_token on the device)
  int64_t per_output_token = 0;  // one output of one group: engine, reference, findings scratch
  int64_t per_request = 0;       // query_start_loc, seq_lens, idx_mapping and their derived arrays
  int64_t per_table_entry = 0;   // the scenario's int32 entry, its laid-out and gathered copies
  int64_t pool_copies = 0;       // of each writers' pool (filled and written in place)
  int64_t per_expect_slot = 0;   // a golden output's slot (expect.slot_mapping), per copy of the scenario
  int64_t fixed = 0;             // once per scenario: each process's own code and data, the CUDA context
  // A scenario with a group a provider process runs (RunFootprint::Provides):
  int64_t per_provided_token = 0;         // the request message, in both processes
  int64_t per_provided_output_token = 0;  // per output of such a group: the reply in both, the parsed answer
};
MemoryCosts CostsOf(const RunFootprint& footprint);

/// A running estimate with the term that contributes most.
class MemoryEstimate {
 public:
  /// Adds `bytes` (saturating), for the dimension at JSON pointer `pointer`
  /// described by `what` ("num_tokens 67108864 x 3 outputs").
  void Add(int64_t bytes, const std::string& pointer, const std::string& what);
  /// Adds bytes no dimension of the file drives (the CUDA context): in the
  /// total, never the term an error names.
  void AddFixed(int64_t bytes);
  int64_t bytes() const { return bytes_; }
  bool Over(int64_t budget_bytes) const { return bytes_ > budget_bytes; }
  const std::string& largest_pointer() const { return largest_pointer_; }
  const std::string& largest_what() const { return largest_what_; }
  int64_t largest_bytes() const { return largest_bytes_; }

 private:
  int64_t bytes_ = 0;
  int64_t largest_bytes_ = -1;
  std::string largest_pointer_, largest_what_;
};

}  // namespace slotguard

#endif  // SLOTGUARD_SCENARIO_MEMORY_ESTIMATE_H_
