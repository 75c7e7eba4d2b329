// Per-token math of the `kpool_tail` family (docs/families.md, kpool_tail), GLM-5.3-Flash's
// kpool tail ring: column 0 of the request's row names its ring block.
#ifndef SLOTGUARD_KERNELS_KPOOL_TAIL_SLOT_H_
#define SLOTGUARD_KERNELS_KPOOL_TAIL_SLOT_H_

#include <cstdint>

#include "kernels/family_geometry.h"
#include "kernels/hd.h"
#include "kernels/int_math.h"
#include "kernels/mapping_batch.h"
#include "registry/variant_ids.h"

namespace slotguard {

struct KpoolTailParams {
  int64_t kpool = 1;
  FastDivisor kpool_div;
  Variant variant = Variant::kKpoolTailFixed;
};

struct KpoolTailFamily : OneSlotFlat<KpoolTailFamily> {
  using Params = KpoolTailParams;

  /// Its parameter block: `get(name)` reads a parameter of the group
  /// (families/kpool_tail.json).
  template <class Get>
  static Params MakeParams(const Get& get, Variant variant, const int64_t* linked) {
    (void)linked;
    Params p;
    p.kpool = get("kpool");
    p.kpool_div = MakeFastDivisor(p.kpool);
    p.variant = variant;
    return p;
  }
  static constexpr int kEngineThreads = 256;
  static constexpr int64_t kPadTokensPerProgram = 256;

  /// Token t of request `r` (clamped to [0, R-1]: tokens between qsl[R] and
  /// num_actual_tokens belong to the last request). Tokens from
  /// num_actual_tokens on are copied through from slot_mapping_in.
  template <class Table>
  SG_HD static int64_t Slot(const Params& p, const MappingBatch& b, const Table& table, int64_t t,
                            int32_t r) {
    if (t >= b.num_actual_tokens) return b.slot_mapping_in[t];
    if (b.num_reqs == 0) return kKernelPadSlot;
    if (r >= b.num_reqs) r = b.num_reqs - 1;
    const int32_t row = TableRowOf(b, r);
    if (row < 0) return kKernelPadSlot;  // a dummy of a persistent table reads no row
    const int64_t block = table.Load(t, row, 0);
    const bool valid = p.variant == Variant::kKpoolTailPrefix ? block >= 0 : block > 0;
    if (!valid) return kKernelPadSlot;
    int64_t unused, offset;
    DivMod(b.positions[t], p.kpool_div, &unused, &offset);
    if (offset < 0) offset += p.kpool;  // floor modulo
    return block * p.kpool + offset;
  }

  /// Where the request programs end and the padding programs begin.
  SG_HD static int64_t PadStart(const MappingBatch& b) {
    if (b.num_reqs == 0) return 0;
    const int64_t end = b.num_real_tokens > b.num_actual_tokens ? b.num_real_tokens : b.num_actual_tokens;
    return end < b.num_tokens ? end : b.num_tokens;
  }

  /// Engine geometry: one program per request (the last one also covers
  /// tokens up to num_actual_tokens) plus one per 256 padding tokens.
  static int64_t EnginePrograms(const Params&, const MappingBatch& b) {
    return b.num_reqs + CeilDiv(b.num_tokens - PadStart(b), kPadTokensPerProgram);
  }

  template <class Table>
  SG_HD static void EngineProgram(const Params& p, const MappingBatch& b, const Table& table,
                                  int64_t program, int64_t lane, int64_t lanes,
                                  const MappingOutputs& out) {
    int64_t begin, end;
    int32_t r = b.num_reqs;
    if (program < b.num_reqs) {
      r = static_cast<int32_t>(program);
      begin = b.query_start_loc[r];
      end = r + 1 < b.num_reqs ? b.query_start_loc[r + 1] : PadStart(b);
    } else {
      begin = PadStart(b) + (program - b.num_reqs) * kPadTokensPerProgram;
      end = begin + kPadTokensPerProgram < b.num_tokens ? begin + kPadTokensPerProgram : b.num_tokens;
    }
    for (int64_t t = begin + lane; t < end; t += lanes) out.slot[t] = Slot(p, b, table, t, r);
  }
};

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_KPOOL_TAIL_SLOT_H_
