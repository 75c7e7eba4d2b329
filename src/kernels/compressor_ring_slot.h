// Per-token math of the `compressor_ring` family (docs/families.md, compressor_ring), DeepSeek-V4.1's
// compressor ring: a request's ring spans capacity / ring_block_size columns;
// a second output keeps only each request's last `capacity` tokens.
#ifndef SLOTGUARD_KERNELS_COMPRESSOR_RING_SLOT_H_
#define SLOTGUARD_KERNELS_COMPRESSOR_RING_SLOT_H_

#include <cstdint>

#include "kernels/family_geometry.h"
#include "kernels/hd.h"
#include "kernels/int_math.h"
#include "kernels/mapping_batch.h"
#include "registry/variant_ids.h"

namespace slotguard {

struct CompressorRingParams {
  int64_t capacity = 1;
  int64_t ring_block_size = 1;
  FastDivisor capacity_div;
  FastDivisor ring_block_div;
  Variant variant = Variant::kCompressorRingFixed;
};

struct CompressorRingFamily : RequestProgramGrid {
  using Params = CompressorRingParams;

  /// Its parameter block: `get(name)` reads a parameter of the group
  /// (families/compressor_ring.json).
  template <class Get>
  static Params MakeParams(const Get& get, Variant variant, const int64_t* linked) {
    (void)linked;
    Params p;
    p.capacity = get("capacity");
    p.ring_block_size = get("ring_block_size");
    p.capacity_div = MakeFastDivisor(p.capacity);
    p.ring_block_div = MakeFastDivisor(p.ring_block_size);
    p.variant = variant;
    return p;
  }
  static constexpr int kEngineThreads = 256;

  /// Writes both outputs of token t of request r.
  template <class Table>
  SG_HD static void Token(const Params& p, const MappingBatch& b, const Table& table, int64_t t,
                          int32_t r, const MappingOutputs& out) {
    const int64_t limit = b.num_actual_tokens < b.num_real_tokens ? b.num_actual_tokens : b.num_real_tokens;
    int64_t slot = kKernelPadSlot, tail = kKernelPadSlot;
    const int32_t table_row = t < limit && r < b.num_reqs ? TableRowOf(b, r) : -1;
    if (table_row >= 0) {
      int64_t unused, row, col, offset;
      DivMod(b.positions[t], p.capacity_div, &unused, &row);
      if (row < 0) row += p.capacity;  // floor modulo
      DivMod(row, p.ring_block_div, &col, &offset);
      int64_t block = table.Load(t, table_row, col);
      bool valid = block > 0;
      if (p.variant == Variant::kCompressorRingPrefix) valid = block >= 0;
      if (p.variant == Variant::kCompressorRingClamp) {
        if (block < 0) block = 0;  // "-1 means no block", read as block 0
        valid = true;
      }
      if (valid) {
        slot = block * p.ring_block_size + offset;
        if (t + p.capacity >= b.query_start_loc[r + 1]) tail = slot;
      }
    }
    out.slot[t] = slot;
    out.tail[t] = tail;
  }

  /// Engine geometry (RequestProgramGrid): one program per request plus one
  /// padding program.
  template <class Table>
  SG_HD static void EngineProgram(const Params& p, const MappingBatch& b, const Table& table,
                                  int64_t program, int64_t lane, int64_t lanes,
                                  const MappingOutputs& out) {
    int64_t begin, end;
    RequestProgramTokens(b, program, &begin, &end);
    for (int64_t t = begin + lane; t < end; t += lanes) Token(p, b, table, t, static_cast<int32_t>(program), out);
  }

  template <class Table>
  SG_HD static void FlatToken(const Params& p, const MappingBatch& b, const Table& table, int64_t t,
                              RequestCursor* cursor, const MappingOutputs& out) {
    SeekRequest(b.query_start_loc, b.num_reqs, t, cursor);
    Token(p, b, table, t, cursor->request, out);
  }
};

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_COMPRESSOR_RING_SLOT_H_
