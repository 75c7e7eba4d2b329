// Per-token math of the `qsa_compressed` family (docs/families.md, qsa_compressed): Qwen4 QSA's
// compressed path, one slot per compress_ratio logical positions, gated by
// the common (paged) slot mapping so that dummy rows stay inert.
#ifndef SLOTGUARD_KERNELS_QSA_COMPRESSED_SLOT_H_
#define SLOTGUARD_KERNELS_QSA_COMPRESSED_SLOT_H_

#include <cstdint>

#include "kernels/family_geometry.h"
#include "kernels/hd.h"
#include "kernels/int_math.h"
#include "kernels/mapping_batch.h"
#include "registry/variant_ids.h"

namespace slotguard {

struct QsaCompressedParams {
  int64_t block_size = 1;  // S
  FastDivisor block_div;
  FastDivisor ratio_div;   // compress_ratio
  const int64_t* common = nullptr;  // [num_tokens], the common slot mapping
  Variant variant = Variant::kQsaCompressedFixed;
};

struct QsaCompressedFamily : QsaTokenTiles<QsaCompressedFamily> {
  using Params = QsaCompressedParams;

  /// Its parameter block: `get(name)` reads a parameter of the group
  /// (families/qsa_compressed.json), `linked` is its common mapping.
  template <class Get>
  static Params MakeParams(const Get& get, Variant variant, const int64_t* linked) {
    Params p;
    p.block_size = get("block_size");
    p.block_div = MakeFastDivisor(p.block_size);
    p.ratio_div = MakeFastDivisor(get("compress_ratio"));
    p.common = linked;
    p.variant = variant;
    return p;
  }

  template <class Table>
  SG_HD static int64_t Slot(const Params& p, const MappingBatch& b, const Table& table, int64_t t,
                            int32_t r) {
    if (r >= b.num_reqs) return kKernelPadSlot;
    const int64_t lp = LogicalPosition(b, t, r);
    if (lp < 0) return kKernelPadSlot;
    int64_t cp, rest;
    DivMod(lp + 1, p.ratio_div, &cp, &rest);
    if (rest != 0) return kKernelPadSlot;  // not the last position of a compressed group
    cp -= 1;                               // lp / cr, as (lp + 1) is a multiple of cr
    int64_t col, offset;
    DivMod(cp, p.block_div, &col, &offset);
    if (col >= table.layout.width) return kKernelPadSlot;
    const int32_t row = TableRowOf(b, r);
    if (row < 0) return kKernelPadSlot;  // a dummy of a persistent table reads no row
    const int64_t block = table.Load(t, row, col);
    if (block < 0) return kKernelPadSlot;
    if (p.variant != Variant::kQsaCompressedNoCommonGuard && p.common[t] < 0) return kKernelPadSlot;
    return block * p.block_size + offset;
  }
};

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_QSA_COMPRESSED_SLOT_H_
