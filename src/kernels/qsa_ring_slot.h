// Per-token math of the `qsa_ring` family (DESIGN 2.3), Qwen4's QSA circular
// ring metadata builder: each request keeps its last `ring` tokens in the
// ring block named by column 0.
#ifndef SLOTGUARD_KERNELS_QSA_RING_SLOT_H_
#define SLOTGUARD_KERNELS_QSA_RING_SLOT_H_

#include <cstdint>

#include "kernels/hd.h"
#include "kernels/int_math.h"
#include "kernels/mapping_batch.h"
#include "registry/variant_ids.h"

namespace slotguard {

struct QsaRingParams {
  int64_t ring = 1;
  FastDivisor ring_div;
  Variant variant = kQsaRingFixed;
};

/// Engine geometry of the QSA builders: 128 tokens per program, each
/// token's request found by binary search over query_start_loc.
constexpr int kQsaEngineTokens = 128;

struct QsaRingFamily {
  using Params = QsaRingParams;
  static constexpr int kEngineThreads = kQsaEngineTokens;

  template <class Table>
  SG_HD static int64_t Slot(const Params& p, const MappingBatch& b, const Table& table, int64_t t,
                            int32_t r) {
    if (r >= b.num_reqs) return kKernelPadSlot;  // at or past qsl[R]: no clamp
    const int64_t begin = b.query_start_loc[r], end = b.query_start_loc[r + 1];
    const int64_t lp = b.seq_lens[r] - (end - begin) + (t - begin);
    if (lp < 0 || t + p.ring < end || table.layout.width <= 0) return kKernelPadSlot;
    const int64_t block = table.Load(t, r, 0);
    const bool valid = p.variant == kQsaRingPrefix ? block >= 0 : block > 0;
    if (!valid) return kKernelPadSlot;
    int64_t unused, offset;
    DivMod(lp, p.ring_div, &unused, &offset);
    return block * p.ring + offset;
  }

  static int64_t EnginePrograms(const Params&, const MappingBatch& b) {
    return CeilDiv(b.num_tokens, kQsaEngineTokens);
  }

  template <class Table>
  SG_HD static void EngineProgram(const Params& p, const MappingBatch& b, const Table& table,
                                  int64_t program, int64_t lane, int64_t lanes,
                                  const MappingOutputs& out) {
    const int64_t begin = program * kQsaEngineTokens;
    const int64_t end = begin + kQsaEngineTokens < b.num_tokens ? begin + kQsaEngineTokens : b.num_tokens;
    // Each token's request by binary search, as the engine's builder does; a
    // lane that walks several tokens (the host) resumes from its last answer.
    RequestCursor cursor;
    for (int64_t t = begin + lane; t < end; t += lanes) {
      SeekRequest(b.query_start_loc, b.num_reqs, t, &cursor);
      out.slot[t] = Slot(p, b, table, t, cursor.request);
    }
  }

  template <class Table>
  SG_HD static void FlatToken(const Params& p, const MappingBatch& b, const Table& table, int64_t t,
                              RequestCursor* cursor, const MappingOutputs& out) {
    SeekRequest(b.query_start_loc, b.num_reqs, t, cursor);
    out.slot[t] = Slot(p, b, table, t, cursor->request);
  }
};

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_QSA_RING_SLOT_H_
