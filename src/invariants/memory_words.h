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
