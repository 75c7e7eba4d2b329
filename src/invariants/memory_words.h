// Reading the cache back for the memory invariants: what a slot holds, in
// words, and who wrote it (writers/payload.h is the format).
#ifndef SLOTGUARD_INVARIANTS_MEMORY_WORDS_H_
#define SLOTGUARD_INVARIANTS_MEMORY_WORDS_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "invariants/group_run.h"
#include "writers/payload.h"

namespace slotguard {

/// Word w of slot s of the pool.
inline uint64_t SlotWord(const MemoryRun& memory, int64_t slot, int32_t w) {
  uint64_t word;
  std::memcpy(&word, memory.cache->data() + slot * memory.head_bytes + w * kPayloadWordBytes, sizeof(word));
  return word;
}

/// Word w of slot s of the pool before the run (MemoryRun::before): the
/// initial state's (zero in block 0 of `page` slots, poison elsewhere) when
/// the run started from it.
inline uint64_t BeforeWord(const MemoryRun& memory, int64_t slot, int32_t w, int64_t page) {
  if (!memory.before) {
    uint64_t poison;
    std::memset(&poison, kPoisonByte, sizeof(poison));
    return slot < page ? 0 : poison;
  }
  uint64_t word = 0;
  const size_t at = static_cast<size_t>(slot * memory.head_bytes + w * kPayloadWordBytes);
  if (at + sizeof(word) <= memory.before->size()) std::memcpy(&word, memory.before->data() + at, sizeof(word));
  return word;
}

/// Whether block-0 slot `slot` held anything but zero before the run.
inline bool DirtyBefore(const MemoryRun& memory, int64_t slot) {
  for (int32_t w = 0; w < memory.head_bytes / kPayloadWordBytes; ++w)
    if (BeforeWord(memory, slot, w, slot + 1) != 0) return true;
  return false;
}

/// A word, named for a finding: "token 7's payload", "poison", "zero" or
/// "0x...". *token is the writer when the word is a payload word of this
/// group, else -1.
std::string DescribeWord(const MemoryRun& memory, uint64_t word, int64_t* token);

/// Appends memory.when (", after ...") to a finding's detail.
std::string WithWhen(const MemoryRun& memory, std::string detail);

/// A finding on one slot of the pool, attributed to `token` when known.
Finding SlotFinding(const GroupRun& run, const MemoryRun& memory, const char* invariant, int64_t slot,
                    int64_t token, std::string detail);

}  // namespace slotguard

#endif  // SLOTGUARD_INVARIANTS_MEMORY_WORDS_H_
