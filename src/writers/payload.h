// What the cache holds before and after the writers (docs/memory-and-graphs.md): the
// memory oracle's data format. Before the run block 0 is all zero and every
// other byte is kPoisonByte; a writer fills a token's slot with 8-byte words
// that each name (token, group, word index), so any word found in memory
// says who wrote it. A payload word never equals zero or the poison word:
// its bit 63 is 0 (tokens < 2^31) and its bits 28..31 are 0101.
#ifndef SLOTGUARD_WRITERS_PAYLOAD_H_
#define SLOTGUARD_WRITERS_PAYLOAD_H_

#include <cstdint>

#include "kernels/hd.h"

namespace slotguard {

constexpr uint8_t kPoisonByte = 0xA5;
constexpr int kPayloadWordBytes = 8;
constexpr int32_t kMaxHeadBytes = 4096;  // 512 words: the word index fits 12 bits
constexpr uint32_t kPayloadTag = 0x50000000u;

SG_HD uint64_t PayloadWord(int64_t token, int32_t group, int32_t word) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(token) & 0x7FFFFFFFu) << 32) | kPayloadTag |
         (static_cast<uint32_t>(group & 0xFFFF) << 12) | (static_cast<uint32_t>(word) & 0xFFFu);
}

/// Reads a word back: false when it is no payload word at all.
inline bool DecodePayloadWord(uint64_t w, int64_t* token, int32_t* group, int32_t* word) {
  if ((w >> 63) != 0 || (static_cast<uint32_t>(w) & 0xF0000000u) != kPayloadTag) return false;
  *token = static_cast<int64_t>(w >> 32);
  *group = static_cast<int32_t>((w >> 12) & 0xFFFF);
  *word = static_cast<int32_t>(w & 0xFFF);
  return true;
}

}  // namespace slotguard

#endif  // SLOTGUARD_WRITERS_PAYLOAD_H_
