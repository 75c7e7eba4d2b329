// The cache writers' per-token math (docs/memory-and-graphs.md), shared by
// the CUDA kernels (writer_kernels.cu) and the host loops (host_writers.cc):
//   paged_writer  reshape_and_cache: a token's lanes each copy one word of
//                 its slot (lane = (token, word), consecutive lanes write
//                 consecutive words).
//   ring_writer   the kpool seed / ring update: programs over tiles of
//                 kRingWriterTile tokens, each token's words by consecutive
//                 lanes, addressing (page, offset) of a ring page.
// Both skip what the output's writer skips (WrittenSlot): a negative slot,
// only -1, or nothing, and a token the job's skip mask names (a writer gate
// over another group's output, a dummy's token the writer is not run for). Both write from the mapping the kernel
// produced, so a wrong slot becomes wrong memory. A slot past the pool is
// not written (in_range reports it; the engine's writer would fault there).
#ifndef SLOTGUARD_WRITERS_CACHE_WRITER_H_
#define SLOTGUARD_WRITERS_CACHE_WRITER_H_

#include <cstdint>

#include "kernels/hd.h"
#include "writers/payload.h"

namespace slotguard {

/// One group's KV pool: `slots` slots of `head_bytes` bytes, in pages of
/// `page_slots` slots (the group's manager block: block 0 is page 0).
struct CacheView {
  uint8_t* bytes = nullptr;
  int64_t slots = 0;
  int64_t page_slots = 1;
  int32_t head_bytes = 64;  // a multiple of kPayloadWordBytes
};

/// What one writer call writes: the slot of every token, and the group id
/// that goes into the payload.
struct WriterJob {
  const int64_t* slot_mapping = nullptr;  // [num_tokens], the kernel's output
  int64_t num_tokens = 0;
  int32_t group = 0;
  // [num_tokens] or nullptr: 1 for a token the writer skips whatever its
  // slot (a family's writer gate over another group's output).
  const uint8_t* skip = nullptr;
  uint8_t skip_rule = 0;  // kSkipNegative, kSkipMinusOne or kSkipNone: the output's writer.skip
  uint8_t negative = 0;   // kLandIndex, kLandPointer or kLandClamp0: the output's writer.negative
};

// Which slots a writer skips (a family description's writer.skip).
constexpr uint8_t kSkipNegative = 0;  // slot < 0
constexpr uint8_t kSkipMinusOne = 1;  // slot == -1 only
constexpr uint8_t kSkipNone = 2;      // no slot

// Where a negative slot the writer does not skip lands (writer.negative).
constexpr uint8_t kLandIndex = 0;    // a tensor index: from the pool's end
constexpr uint8_t kLandPointer = 1;  // pointer arithmetic: before the pool (never written here: the
                                     // invariant negative_lands reports it out of bounds)
constexpr uint8_t kLandClamp0 = 2;   // clamped to slot 0 first (clamp_min(0))

/// The slot a token's write lands in, or -1 for none. A negative slot the
/// writer does not skip lands where the engine's writer puts it: from the
/// pool's end as a tensor index does (SGLang's set_kv_buffer writes
/// `buffer[loc]`), in slot 0 after a clamp, or before the pool through a
/// pointer (not written here: that memory is not the pool's).
SG_HD int64_t WrittenSlot(const CacheView& cache, const WriterJob& job, int64_t token) {
  int64_t slot = job.slot_mapping[token];
  if (job.skip && job.skip[token]) return -1;
  if (slot < 0) {
    if (job.skip_rule == kSkipNegative || (job.skip_rule == kSkipMinusOne && slot == -1)) return -1;
    if (job.negative == kLandPointer) return -1;
    slot = job.negative == kLandClamp0 ? 0 : slot + cache.slots;
  }
  return slot >= 0 && slot < cache.slots ? slot : -1;
}

constexpr int kPagedWriterThreads = 256;  // (token, word) lanes per program
constexpr int kRingWriterTile = 32;       // tokens per program

/// paged_writer, one lane: word w of token's slot.
SG_HD void PagedWriterWord(const CacheView& cache, const WriterJob& job, int64_t token, int32_t w) {
  const int64_t slot = WrittenSlot(cache, job, token);
  if (slot < 0) return;
  uint64_t* dst = reinterpret_cast<uint64_t*>(cache.bytes + slot * cache.head_bytes);
  dst[w] = PayloadWord(token, job.group, w);
}

/// ring_writer, one lane: word w of token's slot, addressed as (page,
/// offset) of a ring page.
SG_HD void RingWriterWord(const CacheView& cache, const WriterJob& job, int64_t token, int32_t w) {
  const int64_t slot = WrittenSlot(cache, job, token);
  if (slot < 0) return;
  const int64_t page = slot / cache.page_slots;
  const int64_t offset = slot - page * cache.page_slots;
  uint8_t* page_base = cache.bytes + page * cache.page_slots * cache.head_bytes;
  uint64_t* dst = reinterpret_cast<uint64_t*>(page_base + offset * cache.head_bytes);
  dst[w] = PayloadWord(token, job.group, w);
}

}  // namespace slotguard

#endif  // SLOTGUARD_WRITERS_CACHE_WRITER_H_
