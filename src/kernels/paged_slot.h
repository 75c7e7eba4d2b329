// Per-token math of the `paged` family (DESIGN 2.1) and its two launch
// geometries, shared by the CUDA kernels (paged_kernels.cu) and the host
// backend (paged_host.cc). Every variant is a branch on a uniform parameter.
#ifndef SLOTGUARD_KERNELS_PAGED_SLOT_H_
#define SLOTGUARD_KERNELS_PAGED_SLOT_H_

#include <cstdint>

#include "kernels/hd.h"
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
  Variant variant = kPagedFixed;
};

/// Tokens per program-loop tile in the engine geometry (the engine's
/// BLOCK_SIZE): a request longer than this is walked in several tiles.
constexpr int32_t kPagedEngineTile = 1024;

/// The slot of token t of request r (r == num_reqs: a token past the real
/// ones). Returns false when the kernel leaves out[t] unwritten.
template <class Table>
SG_HD bool PagedTokenSlot(const PagedParams& p, const MappingBatch& b, const Table& table,
                          int64_t t, int32_t r, int64_t* slot) {
  if (r >= b.num_reqs) {
    // Padding tokens. The historical pad program started at num_tokens.
    if (p.variant == kPagedPadFromN) return false;
    *slot = kKernelPadSlot;
    return true;
  }
  if (!p.enabled || (b.idx_mapping[r] == -1 && p.variant != kPagedDummyReadsRow)) {
    *slot = kKernelPadSlot;
    return true;
  }
  const int64_t pos = b.positions[t];
  int64_t local = pos;
  if (p.dcp_world > 1) {
    const int64_t virtual_block = int64_t{p.block_size} * p.dcp_world;
    const int64_t off = pos % virtual_block;
    if ((off / p.dcp_interleave) % p.dcp_world != p.dcp_rank) {
      *slot = kKernelPadSlot;  // another rank owns this token's KV
      return true;
    }
    local = pos / virtual_block * p.block_size +
            off / (int64_t{p.dcp_interleave} * p.dcp_world) * p.dcp_interleave +
            off % p.dcp_interleave;
  }
  const int64_t col = local / p.kernel_block_size;
  if (col >= table.layout.width && p.variant != kPagedUnguarded) {
    *slot = kKernelPadSlot;  // range guard: the position is past the row
    return true;
  }
  const int64_t block = table.Load(t, r, col);
  *slot = block * p.kernel_block_size + local % p.kernel_block_size;
  return true;
}

/// Engine geometry: program r < num_reqs walks request r's tokens; program
/// num_reqs pads [qsl[R], num_tokens). `lane` of `lanes` cooperating threads.
template <class Table>
SG_HD void PagedEngineProgram(const PagedParams& p, const MappingBatch& b, const Table& table,
                              int32_t program, int64_t lane, int64_t lanes, int64_t* out) {
  const int64_t begin = b.query_start_loc[program];
  const int64_t end = program < b.num_reqs ? b.query_start_loc[program + 1] : b.num_tokens;
  for (int64_t t = begin + lane; t < end; t += lanes) {
    int64_t slot;
    if (PagedTokenSlot(p, b, table, t, program, &slot)) out[t] = slot;
  }
}

/// Flat geometry: one token, its request found by search over
/// query_start_loc. `*hint` carries the request of the caller's previous
/// (smaller) token between calls; start it at -1.
template <class Table>
SG_HD void PagedFlatToken(const PagedParams& p, const MappingBatch& b, const Table& table,
                          int64_t t, int32_t* hint, int64_t* out) {
  const int32_t r = FindRequest(b.query_start_loc, b.num_reqs, t, *hint);
  *hint = r;
  int64_t slot;
  if (PagedTokenSlot(p, b, table, t, r, &slot)) out[t] = slot;
}

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_PAGED_SLOT_H_
