// write_set: after the writers, exactly the slots the reference maps hold a
// payload (but for the tokens the writers skip by another group's output), each word written by a token the reference maps to that slot;
// every other slot holds what it held before (zero in block 0, poison
// elsewhere). Words are checked one by one: when several tokens map to one
// slot (a ring wrapping) their writes may interleave on the GPU.
#include <vector>

#include "invariants/invariants.h"
#include "invariants/memory_words.h"

namespace slotguard {

void CheckWriteSet(const GroupRun& run, const MemoryRun& memory, FindingSink* sink) {
  if (run.outputs.empty()) return;
  const std::vector<int64_t>& reference = *run.outputs[0].reference;
  const int64_t slots = run.slot_limit;
  // expected[slot]: a token the reference maps there, or -1.
  std::vector<int64_t> expected(static_cast<size_t>(slots), -1);
  // The tokens the writers skip by another group's output (writer.gate) write nothing.
  const std::vector<uint8_t>* skips = memory.writer_skips;
  auto skipped = [&](size_t t) { return skips && (*skips)[t]; };
  for (size_t t = 0; t < reference.size(); ++t)
    if (reference[t] >= 0 && reference[t] < slots && expected[reference[t]] < 0 && !skipped(t))
      expected[reference[t]] = t;
  uint64_t poison;
  std::memset(&poison, kPoisonByte, sizeof(poison));
  const int32_t words = memory.head_bytes / kPayloadWordBytes;
  for (int64_t slot = 0; slot < slots; ++slot) {
    const uint64_t before = slot < run.page() ? 0 : poison;
    for (int32_t w = 0; w < words; ++w) {
      const uint64_t word = SlotWord(memory, slot, w);
      int64_t writer;
      const std::string what = DescribeWord(memory, word, &writer);
      if (expected[slot] < 0) {
        if (word == before) continue;
        sink->Add(SlotFinding(run, memory, kInvariantWriteSet, slot, writer,
                              "holds " + what + "; the reference maps no token here, so it must still hold " +
                                  (before == 0 ? "zero" : "poison")));
        break;
      }
      int64_t t;
      int32_t group, index;
      const bool ok = DecodePayloadWord(word, &t, &group, &index) && group == memory.group_index && index == w &&
                      t < static_cast<int64_t>(reference.size()) && reference[t] == slot && !skipped(t);
      if (ok) continue;
      sink->Add(SlotFinding(run, memory, kInvariantWriteSet, slot, expected[slot],
                            "word " + std::to_string(w) + " holds " + what + "; expected token " +
                                std::to_string(expected[slot]) + "'s payload (the reference maps it here)"));
      break;
    }
  }
}

}  // namespace slotguard
