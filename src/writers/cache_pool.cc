#include "writers/cache_pool.h"

#include <algorithm>

#include "scenario/family_params.h"
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

WriterKind WriterFor(const Group& group) {
  return MappingOf(group).writer == WriterStyle::kPaged ? WriterKind::kPaged : WriterKind::kRing;
}

WriterJob WriterJobFor(const Group& group, const int64_t* slots, int64_t num_tokens, int32_t index) {
  WriterJob job{slots, num_tokens, index};
  switch (MappingOf(group).writer_skip) {
    case WriterSkip::kNegative: job.skip_rule = kSkipNegative; break;
    case WriterSkip::kMinusOne: job.skip_rule = kSkipMinusOne; break;
    case WriterSkip::kNone: job.skip_rule = kSkipNone; break;
  }
  return job;
}

}  // namespace slotguard
