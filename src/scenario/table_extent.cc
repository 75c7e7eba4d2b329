#include "scenario/table_extent.h"

#include <algorithm>

#include "family/family_plan.h"

namespace slotguard {

int64_t PaddedRowStride(const Batch& batch, const Group& group) {
  // The farthest column the description's column formula selects for any
  // token of a request, whatever the selects and the row's width say: a
  // kernel without its range guard reads that far.
  int64_t farthest_col = 0;
  GroupPlan plan;
  std::string unused;
  const GroupModel model(group);
  if (model.MakePlan(model.mapping(), batch, &plan, &unused))
    farthest_col = std::max<int64_t>(0, FarthestColumn(plan, batch));
  // Past kMaxPoisonColumns the laid-out poison stops: a read that far is
  // outside the allocation, and both backends' table views load the poison
  // there instead (kernels/table_view.h), so it reads the same value.
  const int64_t width = LaidOutWidth(group);
  const int64_t reach = std::min<int64_t>(farthest_col + 1, width + kMaxPoisonColumns);
  return std::max<int64_t>(width, reach) + 1;
}

int32_t LaidOutWidth(const Group& group) {
  return static_cast<int32_t>(std::max<int64_t>(group.table.width, MinWidth(group)));
}

}  // namespace slotguard
