// write_set: after the writers, exactly the slots the reference's mapping
// makes each output's writer write hold a payload, each word written by a
// token the reference maps to that slot; every other slot holds what it
// held before (zero in block 0, poison elsewhere; or what an earlier
// CUDA-graph step left, MemoryRun::before). Each writer skips what
// its description says (writer.skip: a negative slot, only -1, or nothing;
// a negative slot it does not skip lands where writer.negative puts it),
// the tokens another group's output gates (writer.gate) and, when it is not
// run for dummies, a dummy's tokens. Words are checked one
// by one: when several tokens map to one slot (a ring wrapping) their
// writes may interleave on the GPU.
#include <vector>

#include "invariants/invariants.h"
#include "invariants/memory_words.h"

namespace slotguard {

void CheckWriteSet(const GroupRun& run, const MemoryRun& memory, FindingSink* sink) {
  if (run.outputs.empty()) return;
  const int64_t slots = run.slot_limit;
  const size_t tokens = run.outputs[0].reference->size();
  // expected[slot]: a token the reference maps there through a written output, or -1.
  std::vector<int64_t> expected(static_cast<size_t>(slots), -1);
  // lands[o][t]: where output o's writer puts token t's write, or -1. The
  // tokens a writer skips whatever their slot (writer.gate, dummies) write nothing.
  std::vector<std::vector<int64_t>> lands;
  for (const OutputRun& out : run.outputs) {
    lands.emplace_back(tokens, -1);
    const WriterDesc* writer = out.reference_writer ? out.reference_writer : out.writer;
    if (!writer || !writer->writes) continue;
    const std::vector<int64_t>& reference = *out.reference;
    for (size_t t = 0; t < tokens && t < reference.size(); ++t) {
      if (out.writer_skips && (*out.writer_skips)[t]) continue;
      const WriteLanding l = LandingOf(*writer, reference[t], slots);
      if (l.where != WriteLanding::kInPool) continue;
      lands.back()[t] = l.slot;
      if (expected[l.slot] < 0) expected[l.slot] = static_cast<int64_t>(t);
    }
  }
  auto lands_at = [&](int64_t t, int64_t slot) {
    for (const auto& l : lands)
      if (l[t] == slot) return true;
    return false;
  };
  uint64_t poison;
  std::memset(&poison, kPoisonByte, sizeof(poison));
  const int32_t words = memory.head_bytes / kPayloadWordBytes;
  for (int64_t slot = 0; slot < slots; ++slot) {
    for (int32_t w = 0; w < words; ++w) {
      const uint64_t before = BeforeWord(memory, slot, w, run.page());
      const uint64_t word = SlotWord(memory, slot, w);
      int64_t writer;
      const std::string what = DescribeWord(memory, word, &writer);
      if (expected[slot] < 0) {
        if (word == before) continue;
        sink->Add(SlotFinding(run, memory, kInvariantWriteSet, slot, writer,
                              "holds " + what + "; the reference maps no token here, so it must still hold " +
                                  (before == 0 ? "zero" : before == poison ? "poison" : "what it held before")));
        break;
      }
      int64_t t;
      int32_t group, index;
      const bool ok = DecodePayloadWord(word, &t, &group, &index) && group == memory.group_index && index == w &&
                      t >= 0 && t < static_cast<int64_t>(tokens) && lands_at(t, slot);
      if (ok) continue;
      sink->Add(SlotFinding(run, memory, kInvariantWriteSet, slot, expected[slot],
                            "word " + std::to_string(w) + " holds " + what + "; expected token " +
                                std::to_string(expected[slot]) + "'s payload (the reference maps it here)"));
      break;
    }
  }
}

}  // namespace slotguard
