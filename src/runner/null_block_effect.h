// What a group's findings say about block 0: a hazard (a mapping sends a
// token into the null block) and a write (memory in block 0 changed) are
// different facts, and the reports keep them apart. A mapping can send a
// token into block 0 while the kernels that write through it skip that
// token (a description's writer.gate: DeepSeek-V4's compressor writers skip
// a token whose state group's slot is negative), so no byte is written.
#ifndef SLOTGUARD_RUNNER_NULL_BLOCK_EFFECT_H_
#define SLOTGUARD_RUNNER_NULL_BLOCK_EFFECT_H_

#include <cstdint>
#include <map>
#include <string>

namespace slotguard {

enum class NullBlockEffect : uint8_t {
  kNone,           // no finding about block 0
  kHazard,         // null_block fired; no writers ran, so whether a byte lands is not known
  kHazardNoWrite,  // null_block fired; the writers ran and block 0's bytes are unchanged
  kWrite,          // null_bytes fired: block 0's bytes changed
};

/// A group's effect from its findings per invariant, and whether the
/// writers ran for it (--writers and its cache fit).
NullBlockEffect EffectOf(const std::map<std::string, int64_t>& counts, bool writers_ran);

/// "hazard", "hazard, no write", "write"; "" for kNone.
const char* EffectName(NullBlockEffect effect);

}  // namespace slotguard

#endif  // SLOTGUARD_RUNNER_NULL_BLOCK_EFFECT_H_
