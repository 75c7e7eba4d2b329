// How far the tokens of a batch can address into a group's block table.
// The backends lay each table out with this row stride (padding columns hold
// a poison id), so even a kernel that ignores the row's width reads inside
// the allocation; the loader caps the padded size.
#ifndef SLOTGUARD_SCENARIO_TABLE_EXTENT_H_
#define SLOTGUARD_SCENARIO_TABLE_EXTENT_H_

#include <cstdint>

#include "scenario/scenario.h"

namespace slotguard {

/// Slots one table entry names: kernel_block_size (paged), kpool, ring,
/// block_size S (qsa_compressed), ring_block_size (compressor_ring).
int64_t SlotsPerEntry(const Group& group);

/// Entries below this id name the null block: block_size / kernel_block_size
/// for a hybrid paged group (manager block 0), else 1.
int64_t NullEntries(const Group& group);

/// Row stride of the padded table: at least width + 1 and past the farthest
/// column any real token's position could select.
int64_t PaddedRowStride(const Batch& batch, const Group& group);

}  // namespace slotguard

#endif  // SLOTGUARD_SCENARIO_TABLE_EXTENT_H_
