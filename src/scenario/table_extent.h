// How far the tokens of a batch can address into a group's block table.
// The backends' table layouts (plan/table_memory.h) reach this far (the
// padded and strided row stride; the tight layout's poison after the last
// row), so even a kernel that ignores the row's width reads inside the
// allocation; the loader caps the padded size.
#ifndef SLOTGUARD_SCENARIO_TABLE_EXTENT_H_
#define SLOTGUARD_SCENARIO_TABLE_EXTENT_H_

#include <cstdint>

#include "family/group_model.h"  // SlotsPerEntry, NullEntries
#include "scenario/scenario.h"

namespace slotguard {

/// Poison columns past a row at most (besides the one every row gets).
constexpr int64_t kMaxPoisonColumns = 4096;

/// Row stride of the padded table: at least width + 1 and past the farthest
/// column any real token's position could select.
int64_t PaddedRowStride(const Batch& batch, const Group& group);

/// The width a table is laid out with: its own, or the family's minimum
/// when it has none (a persistent table without rows, every request a
/// dummy, still hands an ABI-1 kernel the columns it reads unguarded).
int32_t LaidOutWidth(const Group& group);

}  // namespace slotguard

#endif  // SLOTGUARD_SCENARIO_TABLE_EXTENT_H_
