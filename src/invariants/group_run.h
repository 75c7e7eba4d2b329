// Everything an invariant may look at for one group of one scenario: the
// kernel's outputs (both geometries), the reference's, the golden values and
// the group's addressing facts. Invariants never re-run a kernel.
#ifndef SLOTGUARD_INVARIANTS_GROUP_RUN_H_
#define SLOTGUARD_INVARIANTS_GROUP_RUN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "invariants/finding.h"
#include "scenario/scenario.h"

namespace slotguard {

struct OutputRun {
  std::string name;
  const std::vector<int64_t>* kernel = nullptr;     // engine geometry, [num_tokens]
  const std::vector<int64_t>* flat = nullptr;       // flat geometry, or nullptr
  const std::vector<int64_t>* reference = nullptr;  // [num_tokens]
  const std::vector<int64_t>* golden = nullptr;     // expect.slot_mapping, or nullptr
};

struct GroupRun {
  const Scenario* scenario = nullptr;
  const Group* group = nullptr;
  std::vector<OutputRun> outputs;
  const std::vector<int32_t>* request_of_token = nullptr;  // [num_tokens], RequestOfToken()
  const std::vector<uint8_t>* read_past_row = nullptr;     // [num_tokens]
  std::string row_bounds_evidence;

  // Addressing (DESIGN section 3): a table entry names `slots_per_entry`
  // slots; entries below `null_entries` name the null block; so the null
  // block is slots [0, page()) and the pool is [0, slot_limit).
  int64_t slots_per_entry = 1;
  int64_t null_entries = 1;
  int64_t slot_limit = 0;
  int64_t page() const { return slots_per_entry * null_entries; }
  // Tokens [0, mapped_end) are mapped by the kernel; the rest are copied
  // through (kpool_tail from num_actual_tokens) and skip the slot invariants.
  int64_t mapped_end = 0;

  const Batch& batch() const { return scenario->batch; }
};

/// A group's KV pool after the writers (DESIGN 2.6), for the memory
/// invariants: num_blocks * page() slots of head_bytes bytes each.
struct MemoryRun {
  const std::vector<uint8_t>* cache = nullptr;
  int32_t head_bytes = 0;
  int32_t group_index = 0;   // what the writer put into each payload word
  std::string when;          // "" after the run, or e.g. "after the dummy-batch graph replay"
};

/// Fills the addressing facts (and mapped_end) of `run` from its group.
void SetAddressing(GroupRun* run);

/// The request of every token in a group's family: r for
/// qsl[r] <= t < qsl[r+1]; -1 for tokens of no request. kpool_tail gives
/// tokens in [qsl[R], num_actual_tokens) to the last request (DESIGN 2.2).
std::vector<int32_t> RequestOfToken(const Batch& batch, const Group& group);

/// False for tokens the kernel copies through instead of mapping
/// (kpool_tail, t >= num_actual_tokens): the slot invariants skip them.
inline bool KernelMaps(const GroupRun& run, int64_t t) { return t < run.mapped_end; }

/// The first token past the real ones: qsl[R] (paged, qsa), min(N_act,
/// qsl[R]) (compressor_ring), num_actual_tokens (kpool_tail).
int64_t PaddingStart(const GroupRun& run);

/// What a padding token must hold: PAD, or slot_mapping_in[t] for kpool_tail.
int64_t PaddingValue(const GroupRun& run, int64_t t);

/// True when token t's request is a dummy (paged; every family with a
/// persistent table) or the block-table entry it addresses, in the row the
/// request reads, is null (rings), so the token must be PAD (null_owner_pad).
bool HasNullOwner(const GroupRun& run, int64_t t);

/// A finding on token t of `out`, with request, position and both values.
/// When the kernel agrees with the reference on a non-differential finding,
/// the detail says the batch state routed the token there.
Finding TokenFinding(const GroupRun& run, const OutputRun& out, const char* invariant, int64_t t,
                     std::string detail);

}  // namespace slotguard

#endif  // SLOTGUARD_INVARIANTS_GROUP_RUN_H_
