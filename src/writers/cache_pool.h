// One group's KV pool for the writers (docs/memory-and-graphs.md): its
// geometry, its contents before the run, and which writer fills it.
#ifndef SLOTGUARD_WRITERS_CACHE_POOL_H_
#define SLOTGUARD_WRITERS_CACHE_POOL_H_

#include <cstdint>
#include <vector>

#include "scenario/scenario.h"
#include "writers/writer_launch.h"

namespace slotguard {

/// num_blocks pages of the group's manager block (page_slots slots each),
/// head_bytes per slot. bytes is null until a backend points it somewhere.
CacheView CacheGeometry(const Scenario& scenario, const Group& group, int32_t head_bytes);

/// Bytes the pool of `view` spans: slots * head_bytes (saturated at
/// INT64_MAX: num_blocks * block_size * head_bytes can pass 2^63).
inline int64_t CacheBytes(const CacheView& view) {
  return view.head_bytes > 0 && view.slots > INT64_MAX / view.head_bytes ? INT64_MAX : view.slots * view.head_bytes;
}

/// Bytes of block 0: page_slots * head_bytes (kept zero before the run).
inline int64_t NullBlockBytes(const CacheView& view) { return view.page_slots * view.head_bytes; }

/// Whether the backends build this pool: a pool over `max_bytes` (a huge
/// num_blocks) is skipped, and its group's memory invariants with it.
inline bool CacheFits(const CacheView& view, int64_t max_bytes) { return CacheBytes(view) <= max_bytes; }

/// The pool before the run: block 0 all zero, every other byte kPoisonByte.
void FillInitialCache(const CacheView& view, std::vector<uint8_t>* cache);

/// The writer of output `output` of the group: the paged writer
/// (reshape_and_cache) or the ring writer, as its description says.
WriterKind WriterFor(const Group& group, int output);

/// The job of output `output`'s writer over `slots` ([num_tokens]) for
/// group `index` of the scenario: its skip rule (writer.skip) and where a
/// negative slot lands (writer.negative).
WriterJob WriterJobFor(const Group& group, int output, const int64_t* slots, int64_t num_tokens, int32_t index);

}  // namespace slotguard

#endif  // SLOTGUARD_WRITERS_CACHE_POOL_H_
