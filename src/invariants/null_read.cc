// null_read: a group whose readers load its null block and need it all
// zero (the description's null_page_read "zero") finds block 0 of its pool
// all zero at every step it runs. The bytes judged are those the step
// found, before its own writes (MemoryRun::before; without it the pool's
// initial state, whose block 0 is zero, so a plain run always holds). One
// finding per step: the first non-zero byte, what it holds and the step
// that last wrote it (MemoryRun::null_writers). Within the group's own
// pool only: slotguard gives each group a pool of its own.
#include <algorithm>
#include <string>

#include "invariants/invariants.h"
#include "invariants/memory_words.h"

namespace slotguard {

void CheckNullRead(const GroupRun& run, const MemoryRun& memory, FindingSink* sink) {
  if (run.null_page_read != NullPageRead::kZero || !HasNullBlock(run.null_page) || !memory.before) return;
  const int32_t words = memory.head_bytes / kPayloadWordBytes;
  const int64_t null_slots = std::min(run.page(), run.slot_limit);
  for (int64_t slot = 0; slot < null_slots; ++slot)
    for (int32_t w = 0; w < words; ++w) {
      const uint64_t word = BeforeWord(memory, slot, w, null_slots);
      if (word == 0) continue;
      int32_t byte = 0;  // the word's first non-zero byte (little-endian, as memory holds it)
      while (((word >> (8 * byte)) & 0xFF) == 0) ++byte;
      const int64_t offset = slot * memory.head_bytes + int64_t{w} * kPayloadWordBytes + byte;
      int64_t token;
      std::string detail = "byte " + std::to_string(offset) + " of block 0 (slot " + std::to_string(slot) +
                           ", word " + std::to_string(w) + ") is not zero when " +
                           (memory.step.empty() ? std::string("the group runs") : memory.step + " runs") +
                           ": it holds " + DescribeWord(memory, word, &token);
      const std::vector<std::string>* writers = memory.null_writers;
      if (writers && slot < static_cast<int64_t>(writers->size()) && !(*writers)[slot].empty())
        detail += ", written there by " + (*writers)[slot];
      detail += "; the group reads block 0 (null_page_read \"zero\") and needs it all zero";
      Finding f;
      f.invariant = kInvariantNullRead;
      f.output = run.outputs.empty() ? run.group->name : run.outputs[0].name;
      f.detail = std::move(detail);
      sink->Add(std::move(f));
      return;
    }
}

}  // namespace slotguard
