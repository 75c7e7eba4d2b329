// negative_lands: a negative slot that an output's writer does not skip is
// not "no write": it lands where the engine's writer puts it (the writer's
// `negative` rule): from the pool's end (a tensor index), in slot 0 (a
// clamp_min(0) before the write), or before the pool (pointer arithmetic).
// Judged where it lands: before the pool is out of bounds; block 0 is the
// null block (a sink's may take a token that owns no state); any other
// block must be one the token's request holds in its own row.
#include "invariants/invariants.h"

namespace slotguard {
namespace {

const char* NegativeRule(const WriterDesc& w) {
  switch (w.negative) {
    case WriterNegative::kPointer: return "through a pointer";
    case WriterNegative::kClamp0: return "clamped to 0";
    case WriterNegative::kIndex: break;
  }
  return "as a tensor index, from the pool's end";
}

}  // namespace

void CheckNegativeLands(const GroupRun& run, FindingSink* sink) {
  for (const OutputRun& out : run.outputs) {
    if (!out.writer || !out.writer->writes) continue;
    const std::vector<int64_t>& kernel = *out.kernel;
    for (size_t t = 0; t < kernel.size(); ++t) {
      if (kernel[t] >= 0 || (out.writer_skips && (*out.writer_skips)[t])) continue;
      const WriteLanding l = LandingOf(*out.writer, kernel[t], run.slot_limit);
      if (!l.negative) continue;
      const std::string what = "negative slot " + std::to_string(kernel[t]) + ", written " + NegativeRule(*out.writer);
      if (l.where == WriteLanding::kBeforePool) {
        sink->Add(TokenFinding(run, out, kInvariantNegativeLands, t, what + ", lands before the pool: out of bounds"));
        continue;
      }
      if (l.where != WriteLanding::kInPool) continue;  // past the pool: not a negative slot's landing
      const std::string at = what + ", lands in slot " + std::to_string(l.slot);
      if (HasNullBlock(run.null_page) && l.slot < run.page()) {
        if (SinkWrite(run, out, t, l.slot)) continue;
        sink->Add(TokenFinding(run, out, kInvariantNegativeLands, t, at + ", in block 0 (the null block)"));
        continue;
      }
      const int64_t entry = l.slot / run.slots_per_entry;
      const int32_t r = (*run.request_of_token)[t];
      if (RowHolds(run, r, entry)) continue;
      sink->Add(TokenFinding(run, out, kInvariantNegativeLands, t,
                             at + " (block entry " + std::to_string(entry) + "), which " +
                                 (r < 0 ? std::string("no request of this token owns")
                                        : "request " + std::to_string(r) + " does not own")));
    }
  }
}

}  // namespace slotguard
