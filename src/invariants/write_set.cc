// write_set: after the writers, exactly the slots the reference's mapping
// makes the family's writer write hold a payload, each word written by a
// token the reference maps to that slot; every other slot holds what it
// held before (zero in block 0, poison elsewhere). The writer skips what
// its description says (writer.skip: a negative slot, only -1, or nothing,
// a negative slot it does not skip indexing from the pool's end) and the
// tokens another group's output gates (writer.gate). Words are checked one
// by one: when several tokens map to one slot (a ring wrapping) their
// writes may interleave on the GPU.
#include <vector>

#include "invariants/invariants.h"
#include "invariants/memory_words.h"
#include "scenario/family_params.h"

namespace slotguard {
namespace {

/// The slot a write of reference slot `s` lands in under the writer's skip
/// rule, or -1 when the writer skips it or it lies past the pool.
int64_t WriteOf(int64_t s, WriterSkip rule, int64_t slots) {
  if (s < 0) {
    if (rule == WriterSkip::kNegative || (rule == WriterSkip::kMinusOne && s == -1)) return -1;
    s += slots;
  }
  return s >= 0 && s < slots ? s : -1;
}

}  // namespace

void CheckWriteSet(const GroupRun& run, const MemoryRun& memory, FindingSink* sink) {
  if (run.outputs.empty()) return;
  const std::vector<int64_t>& reference = *run.outputs[0].reference;
  const int64_t slots = run.slot_limit;
  // expected[slot]: a token the reference maps there, or -1.
  std::vector<int64_t> expected(static_cast<size_t>(slots), -1);
  // The tokens the writers skip by another group's output (writer.gate) write nothing.
  const std::vector<uint8_t>* skips = memory.writer_skips;
  auto skipped = [&](size_t t) { return skips && (*skips)[t]; };
  const WriterSkip rule = MappingOf(*run.group).writer_skip;
  std::vector<int64_t> lands(reference.size(), -1);  // where token t's write lands
  for (size_t t = 0; t < reference.size(); ++t) {
    if (skipped(t)) continue;
    lands[t] = WriteOf(reference[t], rule, slots);
    if (lands[t] >= 0 && expected[lands[t]] < 0) expected[lands[t]] = static_cast<int64_t>(t);
  }
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
                      t >= 0 && t < static_cast<int64_t>(reference.size()) && lands[t] == slot;
      if (ok) continue;
      sink->Add(SlotFinding(run, memory, kInvariantWriteSet, slot, expected[slot],
                            "word " + std::to_string(w) + " holds " + what + "; expected token " +
                                std::to_string(expected[slot]) + "'s payload (the reference maps it here)"));
      break;
    }
  }
}

}  // namespace slotguard
