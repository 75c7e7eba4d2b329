// Geometry pieces shared by several families' traits (see paged_slot.h for
// what a family provides to the launch layer).
#ifndef SLOTGUARD_KERNELS_FAMILY_GEOMETRY_H_
#define SLOTGUARD_KERNELS_FAMILY_GEOMETRY_H_

#include <cstdint>

#include "kernels/hd.h"
#include "kernels/mapping_batch.h"

namespace slotguard {

/// The tokens of a "one program per request plus a padding program" grid:
/// program r < num_reqs walks request r, program num_reqs [qsl[R], num_tokens).
SG_HD void RequestProgramTokens(const MappingBatch& b, int64_t program, int64_t* begin, int64_t* end) {
  const int32_t r = static_cast<int32_t>(program);
  *begin = b.query_start_loc[r];
  *end = r < b.num_reqs ? b.query_start_loc[r + 1] : b.num_tokens;
}

/// docs/families.md, qsa_ring's logical position of token t of request r (the QSA paths):
/// lp = seq_lens[r] - q + (t - qsl[r]), negative for tokens before the context.
SG_HD int64_t LogicalPosition(const MappingBatch& b, int64_t t, int32_t r) {
  const int64_t begin = b.query_start_loc[r];
  return b.seq_lens[r] - (b.query_start_loc[r + 1] - begin) + (t - begin);
}

/// The engine geometry's grid size for RequestProgramTokens.
struct RequestProgramGrid {
  template <class Params>
  static int64_t EnginePrograms(const Params&, const MappingBatch& b) {
    return int64_t{b.num_reqs} + 1;
  }
};

/// Flat geometry of a family whose token has one slot,
/// F::Slot(params, batch, table, t, request).
template <class F>
struct OneSlotFlat {
  template <class Params, class Table>
  SG_HD static void FlatToken(const Params& p, const MappingBatch& b, const Table& table, int64_t t,
                              RequestCursor* cursor, const MappingOutputs& out) {
    SeekRequest(b.query_start_loc, b.num_reqs, t, cursor);
    out.slot[t] = F::Slot(p, b, table, t, cursor->request);
  }
};

/// Engine geometry of the QSA metadata builders: kQsaEngineTokens tokens per
/// program, each token's request by binary search over query_start_loc.
constexpr int kQsaEngineTokens = 128;

template <class F>
struct QsaTokenTiles : OneSlotFlat<F> {
  static constexpr int kEngineThreads = kQsaEngineTokens;

  template <class Params>
  static int64_t EnginePrograms(const Params&, const MappingBatch& b) {
    return CeilDiv(b.num_tokens, kQsaEngineTokens);
  }

  template <class Params, class Table>
  SG_HD static void EngineProgram(const Params& p, const MappingBatch& b, const Table& table,
                                  int64_t program, int64_t lane, int64_t lanes,
                                  const MappingOutputs& out) {
    const int64_t begin = program * kQsaEngineTokens;
    const int64_t end = begin + kQsaEngineTokens < b.num_tokens ? begin + kQsaEngineTokens : b.num_tokens;
    // A lane that walks several tokens (the host) resumes from its last answer.
    RequestCursor cursor;
    for (int64_t t = begin + lane; t < end; t += lanes) {
      SeekRequest(b.query_start_loc, b.num_reqs, t, &cursor);
      out.slot[t] = F::Slot(p, b, table, t, cursor.request);
    }
  }
};

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_FAMILY_GEOMETRY_H_
