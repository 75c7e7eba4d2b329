// Per-token math of the `paged` family (docs/families.md, paged) and its two launch
// geometries, shared by the CUDA kernels (paged_kernels.cu) and the host
// backend (kernels/host_loop.h). Every variant is a branch on a uniform parameter.
#ifndef SLOTGUARD_KERNELS_PAGED_SLOT_H_
#define SLOTGUARD_KERNELS_PAGED_SLOT_H_

#include <cstdint>

#include "kernels/family_geometry.h"
#include "kernels/hd.h"
#include "kernels/int_math.h"
#include "kernels/mapping_batch.h"
#include "registry/variant_ids.h"

namespace slotguard {

struct PagedParams {
  int32_t block_size = 0;         // manager block, in tokens
  int32_t kernel_block_size = 0;  // divides block_size
  int32_t dcp_world = 1;
  int32_t dcp_rank = 0;
  int32_t dcp_interleave = 1;
  int32_t enabled = 1;
  Variant variant = Variant::kPagedFixed;
  // The same sizes as divisors (MakePagedParams fills them).
  FastDivisor kernel_block_div;        // kernel_block_size
  FastDivisor virtual_block_div;       // block_size * dcp_world
  FastDivisor interleave_div;          // dcp_interleave
  FastDivisor world_div;               // dcp_world
  FastDivisor interleave_world_div;    // dcp_interleave * dcp_world
};

/// Tokens per program-loop tile in the engine geometry (the engine's
/// BLOCK_SIZE): a request longer than this is walked in several tiles.
constexpr int32_t kPagedEngineTile = 1024;

/// The slot of token t of request r (r == num_reqs: a token past the real
/// ones) at position `pos` (= positions[t], loaded by the caller so a kernel
/// can issue its loads early). Returns false when out[t] stays unwritten.
template <class Table>
SG_HD bool PagedTokenSlot(const PagedParams& p, const MappingBatch& b, const Table& table,
                          int64_t t, int32_t r, int64_t pos, int64_t* slot) {
  if (r >= b.num_reqs) {
    // Padding tokens. The historical pad program started at num_tokens.
    if (p.variant == Variant::kPagedPadFromN) return false;
    *slot = kKernelPadSlot;
    return true;
  }
  const bool dummy = IsDummyRequest(b, r);
  if (!p.enabled || (dummy && p.variant != Variant::kPagedDummyReadsRow)) {
    *slot = kKernelPadSlot;
    return true;
  }
  int32_t row = p.variant == Variant::kPagedGatheredRow ? r : TableRowOf(b, r);
  if (row < 0) row = 0;  // dummy_reads_row on a persistent table: idx -1 clamped to row 0
  int64_t local = pos;
  if (p.dcp_world > 1) {
    int64_t vblock, off, lane, in_lane, group, unused;
    DivMod(pos, p.virtual_block_div, &vblock, &off);
    DivMod(off, p.interleave_div, &lane, &in_lane);
    DivMod(lane, p.world_div, &unused, &group);
    if (group != p.dcp_rank) {
      *slot = kKernelPadSlot;  // another rank owns this token's KV
      return true;
    }
    DivMod(off, p.interleave_world_div, &group, &unused);
    local = vblock * p.block_size + group * p.dcp_interleave + in_lane;
  }
  int64_t col, offset;
  DivMod(local, p.kernel_block_div, &col, &offset);
  if (col >= table.layout.width && p.variant != Variant::kPagedUnguarded) {
    *slot = kKernelPadSlot;  // range guard: the position is past the row
    return true;
  }
  const int64_t block = table.Load(t, row, col);
  *slot = block * p.kernel_block_size + offset;
  return true;
}

/// The `paged` family for the launch layer (family_kernels.cuh, host_loop.h).
struct PagedFamily : RequestProgramGrid {
  using Params = PagedParams;

  /// Its parameter block: `get(name)` reads a parameter of the group
  /// (families/paged.json), `linked` is unused.
  template <class Get>
  static Params MakeParams(const Get& get, Variant variant, const int64_t* linked) {
    (void)linked;
    Params p;
    p.block_size = static_cast<int32_t>(get("block_size"));
    p.kernel_block_size = static_cast<int32_t>(get("kernel_block_size"));
    p.dcp_world = static_cast<int32_t>(get("dcp_world"));
    p.dcp_rank = static_cast<int32_t>(get("dcp_rank"));
    p.dcp_interleave = static_cast<int32_t>(get("dcp_interleave"));
    p.enabled = get("enabled") ? 1 : 0;
    p.variant = variant;
    p.kernel_block_div = MakeFastDivisor(p.kernel_block_size);
    p.virtual_block_div = MakeFastDivisor(int64_t{p.block_size} * p.dcp_world);
    p.interleave_div = MakeFastDivisor(p.dcp_interleave);
    p.world_div = MakeFastDivisor(p.dcp_world);
    p.interleave_world_div = MakeFastDivisor(int64_t{p.dcp_interleave} * p.dcp_world);
    return p;
  }
  static constexpr int kEngineThreads = kPagedEngineTile;

  /// Engine geometry (RequestProgramGrid): program r < num_reqs walks request
  /// r's tokens in tiles; program num_reqs pads [qsl[R], num_tokens).
  template <class Table>
  SG_HD static void EngineProgram(const Params& p, const MappingBatch& b, const Table& table,
                                  int64_t program, int64_t lane, int64_t lanes,
                                  const MappingOutputs& out) {
    int64_t begin, end;
    RequestProgramTokens(b, program, &begin, &end);
    for (int64_t t = begin + lane; t < end; t += lanes) {
      int64_t slot;
      if (PagedTokenSlot(p, b, table, t, static_cast<int32_t>(program), b.positions[t], &slot)) out.slot[t] = slot;
    }
  }

  /// Flat geometry: one token, its request through the caller's cursor.
  template <class Table>
  SG_HD static void FlatToken(const Params& p, const MappingBatch& b, const Table& table,
                              int64_t t, RequestCursor* cursor, const MappingOutputs& out) {
    SeekRequest(b.query_start_loc, b.num_reqs, t, cursor);
    int64_t slot;
    if (PagedTokenSlot(p, b, table, t, cursor->request, b.positions[t], &slot)) out.slot[t] = slot;
  }
};

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_PAGED_SLOT_H_
