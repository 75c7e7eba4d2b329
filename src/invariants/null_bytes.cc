// null_bytes: after the writers, block 0 of the group's cache is all zero: a
// write, where null_block is a hazard. One finding per dirtied slot, naming
// the token whose payload it holds. A sink's block 0 may hold what the
// tokens that own no state wrote; without a null page there is nothing to
// check. After earlier CUDA-graph steps (MemoryRun::before), a slot that
// was already dirty is that step's write, judged there, unless this run's
// own output sends the token whose payload it holds there and the run
// judges rewrites (MemoryRun::judge_rewrites: a rewrite of the same bytes
// is this run's write too). Which token's bytes a slot holds when several
// write it is a race; whether this run sent it one of them is not.
#include <algorithm>

#include "invariants/invariants.h"
#include "invariants/memory_words.h"

namespace slotguard {

void CheckNullBytes(const GroupRun& run, const MemoryRun& memory, FindingSink* sink) {
  if (!HasNullBlock(run.null_page) || run.outputs.empty()) return;  // block 0 is a block like any other
  // A payload's token owns no state when it does in an output that writes.
  auto owns_no_state = [&](int64_t token) {
    for (const OutputRun& out : run.outputs)
      if (out.writer && out.writer->writes && token >= 0 && token < static_cast<int64_t>(out.kernel->size()) &&
          HasFact(out, token, kFactSinkOk))
        return true;
    return false;
  };
  // Whether an output's writer puts `token`'s write into `slot` in this run.
  auto writes_here = [&](int64_t token, int64_t slot) {
    for (const OutputRun& out : run.outputs) {
      if (!out.writer || !out.writer->writes || token < 0 || token >= static_cast<int64_t>(out.kernel->size()))
        continue;
      if (out.writer_skips && (*out.writer_skips)[static_cast<size_t>(token)]) continue;
      const WriteLanding l = LandingOf(*out.writer, (*out.kernel)[static_cast<size_t>(token)], run.slot_limit);
      if (l.where == WriteLanding::kInPool && l.slot == slot) return true;
    }
    return false;
  };
  const int32_t words = memory.head_bytes / kPayloadWordBytes;
  const int64_t null_slots = std::min(run.page(), run.slot_limit);
  for (int64_t slot = 0; slot < null_slots; ++slot) {
    const bool dirty_before = DirtyBefore(memory, slot);
    for (int32_t w = 0; w < words; ++w) {
      const uint64_t word = SlotWord(memory, slot, w);
      if (word == 0) continue;
      int64_t token;
      const std::string what = DescribeWord(memory, word, &token);
      if (dirty_before && (!memory.judge_rewrites || !writes_here(token, slot))) continue;  // an earlier step's, judged there
      // A sink takes what the tokens that own no state write.
      if (run.null_page == NullPage::kSink && owns_no_state(token)) continue;
      sink->Add(SlotFinding(run, memory, kInvariantNullBytes, slot, token,
                            "block 0 holds " + what + " (word " + std::to_string(w) + "); it must stay zero"));
      break;
    }
  }
}

}  // namespace slotguard
