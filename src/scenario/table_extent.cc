#include "scenario/table_extent.h"

#include <algorithm>

namespace slotguard {

int64_t PaddedRowStride(const Batch& batch, const Group& group) {
  int64_t max_position = 0;
  const int64_t real = std::min<int64_t>(batch.num_real_tokens(), batch.positions.size());
  for (int64_t t = 0; t < real; ++t) max_position = std::max(max_position, batch.positions[t]);
  // Only the paged family has a variant that reads past the row (unguarded);
  // DCP only shrinks the local position, so pos / kernel_block_size bounds
  // every column it can select. The rings read inside their width.
  const int64_t farthest_col = group.family == Family::kPaged ? max_position / group.kernel_block_size : 0;
  // Past kMaxPoisonColumns the poison stops: a read that far misses the
  // allocation (the host backend still sees it; a GPU faults or reads
  // garbage, which the reference comparison catches).
  const int64_t width = LaidOutWidth(group);
  const int64_t reach = std::min<int64_t>(farthest_col + 1, width + kMaxPoisonColumns);
  return std::max<int64_t>(width, reach) + 1;
}

int32_t LaidOutWidth(const Group& group) {
  return static_cast<int32_t>(std::max<int64_t>(group.table.width, MinWidth(group)));
}

}  // namespace slotguard
