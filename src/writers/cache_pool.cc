#include "writers/cache_pool.h"

#include <algorithm>

#include "family/group_model.h"
#include "scenario/table_extent.h"

namespace slotguard {

CacheView CacheGeometry(const Scenario& scenario, const Group& group, int32_t head_bytes) {
  CacheView view;
  view.page_slots = SlotsPerEntry(group) * NullEntries(group);
  view.slots = PoolSlots(scenario.num_blocks, group);
  view.head_bytes = head_bytes;
  return view;
}

void FillInitialCache(const CacheView& view, std::vector<uint8_t>* cache) {
  cache->assign(static_cast<size_t>(CacheBytes(view)), kPoisonByte);
  std::fill_n(cache->begin(), std::min<int64_t>(NullBlockBytes(view), CacheBytes(view)), uint8_t{0});
}

WriterKind WriterFor(const Group& group, int output) {
  return WriterMappingOf(group).outputs[output].writer.style == WriterStyle::kPaged ? WriterKind::kPaged : WriterKind::kRing;
}

WriterJob WriterJobFor(const Group& group, int output, const int64_t* slots, int64_t num_tokens, int32_t index) {
  WriterJob job{slots, num_tokens, index};
  const WriterDesc& w = WriterMappingOf(group).outputs[output].writer;
  switch (w.skip) {
    case WriterSkip::kNegative: job.skip_rule = kSkipNegative; break;
    case WriterSkip::kMinusOne: job.skip_rule = kSkipMinusOne; break;
    case WriterSkip::kNone: job.skip_rule = kSkipNone; break;
  }
  switch (w.negative) {
    case WriterNegative::kIndex: job.negative = kLandIndex; break;
    case WriterNegative::kPointer: job.negative = kLandPointer; break;
    case WriterNegative::kClamp0: job.negative = kLandClamp0; break;
  }
  return job;
}

}  // namespace slotguard
