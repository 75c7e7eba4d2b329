// Per-token math of the `qsa_ring` family (docs/families.md, qsa_ring), Qwen4's QSA circular
// ring metadata builder: each request keeps its last `ring` tokens in the
// ring block named by column 0.
#ifndef SLOTGUARD_KERNELS_QSA_RING_SLOT_H_
#define SLOTGUARD_KERNELS_QSA_RING_SLOT_H_

#include <cstdint>

#include "kernels/family_geometry.h"
#include "kernels/hd.h"
#include "kernels/int_math.h"
#include "kernels/mapping_batch.h"
#include "registry/variant_ids.h"

namespace slotguard {

struct QsaRingParams {
  int64_t ring = 1;
  FastDivisor ring_div;
  Variant variant = Variant::kQsaRingFixed;
};

struct QsaRingFamily : QsaTokenTiles<QsaRingFamily> {
  using Params = QsaRingParams;

  /// Its parameter block: `get(name)` reads a parameter of the group
  /// (families/qsa_ring.json).
  template <class Get>
  static Params MakeParams(const Get& get, Variant variant, const int64_t* linked) {
    (void)linked;
    Params p;
    p.ring = get("ring");
    p.ring_div = MakeFastDivisor(p.ring);
    p.variant = variant;
    return p;
  }

  template <class Table>
  SG_HD static int64_t Slot(const Params& p, const MappingBatch& b, const Table& table, int64_t t,
                            int32_t r) {
    if (r >= b.num_reqs) return kKernelPadSlot;  // at or past qsl[R]: no clamp
    const int64_t lp = LogicalPosition(b, t, r);
    if (lp < 0 || t + p.ring < b.query_start_loc[r + 1] || table.layout.width <= 0) return kKernelPadSlot;
    const int32_t row = TableRowOf(b, r);
    if (row < 0) return kKernelPadSlot;  // a dummy of a persistent table reads no row
    const int64_t block = table.Load(t, row, 0);
    const bool valid = p.variant == Variant::kQsaRingPrefix ? block >= 0 : block > 0;
    if (!valid) return kKernelPadSlot;
    int64_t unused, offset;
    DivMod(lp, p.ring_div, &unused, &offset);
    return block * p.ring + offset;
  }
};

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_QSA_RING_SLOT_H_
