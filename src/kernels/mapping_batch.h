// The batch as the kernels see it: raw pointers (device pointers on the GPU,
// host pointers on the host backend) and the scalar sizes.
#ifndef SLOTGUARD_KERNELS_MAPPING_BATCH_H_
#define SLOTGUARD_KERNELS_MAPPING_BATCH_H_

#include <cstdint>

#include "kernels/hd.h"
#include "kernels/table_view.h"

namespace slotguard {

constexpr int64_t kKernelPadSlot = -1;

struct MappingBatch {
  const int32_t* query_start_loc = nullptr;  // [num_reqs + 1]
  const int64_t* positions = nullptr;        // [num_tokens]
  const int64_t* seq_lens = nullptr;         // [num_reqs]
  const int32_t* seq_lens_i32 = nullptr;     // [num_reqs], saturated at INT32_MAX (for ABI-1 kernels)
  const int32_t* idx_mapping = nullptr;      // [num_reqs]
  const int64_t* slot_mapping_in = nullptr;  // [num_tokens]
  const int32_t* request_of_token = nullptr; // [num_tokens], r or -1 past qsl[num_reqs] (for other implementations)
  int32_t num_reqs = 0;
  int64_t num_real_tokens = 0;  // qsl[num_reqs], as a scalar the host can read
  int64_t num_actual_tokens = 0;
  int64_t num_tokens = 0;
  int32_t rows_by_idx_mapping = 0;  // 1: request r reads row idx_mapping[r] of a persistent table
  int32_t dummy_run = 0;            // 1: a dummy run: every request is a dummy, whatever idx_mapping says
};

/// Whether request r is a dummy: idx_mapping -1, or any request of a dummy run.
SG_HD bool IsDummyRequest(const MappingBatch& b, int32_t r) { return b.dummy_run || b.idx_mapping[r] == -1; }

/// The table row request r reads: r, or with a persistent table
/// idx_mapping[r] (-1 for a dummy request, which reads no row).
SG_HD int32_t TableRowOf(const MappingBatch& b, int32_t r) {
  return b.rows_by_idx_mapping ? b.idx_mapping[r] : r;
}

/// A kernel's output buffers, [num_tokens] each. `tail` only for the
/// compressor ring's second output.
struct MappingOutputs {
  int64_t* slot = nullptr;
  int64_t* tail = nullptr;
};

/// One group of one scenario in a batched launch (device pointers).
template <class Params>
struct MappingJob {
  Params params;
  MappingBatch batch;
  TableLayout table;
  MappingOutputs engine;  // the engine geometry's buffers
  MappingOutputs flat;    // the flat geometry's buffers
  int64_t engine_programs = 0;
};

/// Ceiling division for launch sizes.
SG_HD int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The request that owns token t: the last r with qsl[r] <= t (so zero-length
/// requests own nothing), or num_reqs when t >= qsl[num_reqs].
///
/// `hint` is a request found for an earlier, smaller token (or -1): the
/// search gallops forward from it, so a loop over increasing tokens costs
/// O(1) per token instead of O(log num_reqs). The answer never depends on it.
SG_HD int32_t FindRequest(const int32_t* query_start_loc, int32_t num_reqs, int64_t t,
                          int32_t hint = -1) {
  if (t >= query_start_loc[num_reqs]) return num_reqs;
  int32_t lo = 0, hi = num_reqs;  // invariant: qsl[lo] <= t < qsl[hi]
  if (hint > 0 && hint < num_reqs && query_start_loc[hint] <= t) {
    lo = hint;
    int32_t step = 1;
    hi = lo + 1;
    while (hi < num_reqs && query_start_loc[hi] <= t) {
      lo = hi;
      step *= 2;
      hi = lo + step;
    }
    if (hi > num_reqs) hi = num_reqs;
  }
  while (hi - lo > 1) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (query_start_loc[mid] <= t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// A cached FindRequest answer: tokens [begin, end) belong to `request`
/// (request == num_reqs: the tokens from qsl[R] on). Start at the default.
struct RequestCursor {
  int32_t request = -1;
  int64_t begin = 0;
  int64_t end = 0;
};

/// Moves the cursor to token t's request: two compares while t stays in
/// the cached range, a galloping FindRequest from the cached request when not.
SG_HD void SeekRequest(const int32_t* query_start_loc, int32_t num_reqs, int64_t t,
                       RequestCursor* cursor) {
  if (t >= cursor->begin && t < cursor->end) return;
  const int32_t r = FindRequest(query_start_loc, num_reqs, t, cursor->request);
  cursor->request = r;
  cursor->begin = query_start_loc[r];
  cursor->end = r < num_reqs ? query_start_loc[r + 1] : INT64_MAX;
}

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_MAPPING_BATCH_H_
