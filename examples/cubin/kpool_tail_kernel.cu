// A kpool_tail kernel (docs/families.md, kpool_tail) as an engine ships it: compiled ahead of
// time to a fatbin (CMake: build/examples/kpool_tail_kernel.fatbin) and
// checked without its source through `--kernel-cubin` and
// kpool_tail_kernel.spec.json. Its launch is the engine's: one program per
// request, then one program per 256 padding tokens; the spec gives that grid
// as a formula.
#include <cstdint>

extern "C" __global__ void kpool_tail_map(int64_t* slot_mapping, const int64_t* positions,
                                          const int32_t* query_start_loc, const int32_t* block_table,
                                          int64_t row_stride, int32_t num_reqs, int64_t num_actual_tokens,
                                          int64_t num_tokens, int32_t kpool, const int64_t* slot_mapping_in,
                                          const int32_t* idx_mapping, int32_t rows_by_idx_mapping) {
  const int64_t program = blockIdx.x;
  const int64_t request_programs = num_reqs > 0 ? num_reqs : 1;
  if (program >= request_programs) {  // padding: copy slot_mapping_in through
    const int64_t t = num_actual_tokens + (program - request_programs) * 256 + threadIdx.x;
    for (int64_t u = t; u < num_actual_tokens + (program - request_programs + 1) * 256 && u < num_tokens; u += blockDim.x)
      slot_mapping[u] = slot_mapping_in[u];
    return;
  }
  if (num_reqs == 0) {  // no request to own the real tokens
    for (int64_t t = threadIdx.x; t < num_actual_tokens && t < num_tokens; t += blockDim.x) slot_mapping[t] = -1;
    return;
  }
  const int32_t r = static_cast<int32_t>(program);
  const int64_t begin = query_start_loc[r];
  // Tokens between qsl[R] and num_actual_tokens belong to the last request.
  int64_t end = query_start_loc[r + 1];
  if (r == num_reqs - 1 && end < num_actual_tokens) end = num_actual_tokens;
  // Row r, or row idx_mapping[r] of a persistent table (a dummy, -1, reads none).
  const int32_t row = rows_by_idx_mapping ? idx_mapping[r] : r;
  const int64_t b = row >= 0 ? block_table[row * row_stride] : 0;
  for (int64_t t = begin + threadIdx.x; t < end; t += blockDim.x) {
    if (t >= num_actual_tokens) {
      slot_mapping[t] = slot_mapping_in[t];
      continue;
    }
    const int64_t off = ((positions[t] % kpool) + kpool) % kpool;
    slot_mapping[t] = b > 0 ? b * kpool + off : -1;
  }
}
