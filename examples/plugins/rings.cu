// An example plugin: hand-written kpool_tail and qsa_ring kernels (docs/families.md), as an engine might ship them, checked by slotguard through
// include/slotguard/plugin.h. Built by CMake as build/examples/libsg_rings.so;
// rings_buggy.cu builds the same source with one boundary bug.
//
// Both families run one thread per token; the request of a token comes from a
// binary search over query_start_loc. The host entry runs the same
// __host__ __device__ functions, so CI (no GPU) and libFuzzer can check it.
#include <slotguard/plugin.h>

namespace {

constexpr int64_t kPad = -1;

// The last request r with query_start_loc[r] <= t (num_reqs when t is past
// the real tokens; zero-length requests own nothing).
__host__ __device__ int32_t RequestOf(const sg_mapping_call& c, int64_t t) {
  int32_t lo = 0, hi = c.num_reqs + 1;  // query_start_loc[lo] <= t < query_start_loc[hi] (hi past the end: +inf)
  while (hi - lo > 1) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (c.query_start_loc[mid] <= t) lo = mid;
    else hi = mid;
  }
  return lo;
}

// The block-table row request r reads: r, or row idx_mapping[r] of a
// persistent table (-1: a dummy request, which reads no row).
__host__ __device__ int32_t TableRow(const sg_mapping_call& c, int32_t r) {
  return c.block_table_rows_by_idx_mapping ? c.idx_mapping[r] : r;
}

__host__ __device__ int64_t FloorMod(int64_t a, int64_t m) { return ((a % m) + m) % m; }

__host__ __device__ int64_t KpoolTailSlot(const sg_mapping_call& c, int64_t t) {
  if (t >= c.num_actual_tokens) return c.slot_mapping_in[t];
#ifdef SG_EXAMPLE_EMPTY_BATCH_WRITES_SLOT_0
  if (c.num_reqs == 0) return 0;  // the known difference: an empty batch maps its tokens to slot 0
#endif
  if (c.num_reqs == 0 || c.block_table_width == 0) return kPad;
  int32_t r = RequestOf(c, t);
  if (r > c.num_reqs - 1) r = c.num_reqs - 1;  // tokens past qsl[R] belong to the last request
  const int32_t row = TableRow(c, r);
  if (row < 0) return kPad;
  const int64_t b = c.block_table[row * c.block_table_row_stride];
#ifdef SG_EXAMPLE_KPOOL_ACCEPTS_BLOCK_0
  if (b < 0) return kPad;  // the bug: block 0, the null block, is accepted
#else
  if (b <= 0) return kPad;  // block 0 is the null block: never write it
#endif
  return b * c.kpool_tail.kpool + FloorMod(c.positions[t], c.kpool_tail.kpool);
}

__host__ __device__ int64_t QsaRingSlot(const sg_mapping_call& c, int64_t t) {
  const int32_t r = RequestOf(c, t);
  if (r >= c.num_reqs) return kPad;  // past the real tokens: no clamp here
  const int64_t begin = c.query_start_loc[r], end = c.query_start_loc[r + 1];
  const int64_t ring = c.qsa_ring.ring;
  const int64_t lp = c.seq_lens[r] - (end - begin) + (t - begin);
#ifdef SG_EXAMPLE_KEEP_LAST_OFF_BY_ONE
  const bool kept = t + ring > end;  // the bug: keeps only the last ring - 1 tokens
#else
  const bool kept = t + ring >= end;  // only each request's last `ring` tokens are kept
#endif
  const int32_t row = TableRow(c, r);
  if (lp < 0 || !kept || c.block_table_width == 0 || row < 0) return kPad;
  const int64_t b = c.block_table[row * c.block_table_row_stride];
  if (b <= 0) return kPad;
  return b * ring + FloorMod(lp, ring);
}

__host__ __device__ bool IsKpool(const sg_mapping_call& c) { return c.family[0] == 'k'; }

__global__ void RingsKernel(sg_mapping_call c, bool kpool) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < c.num_tokens; t += stride)
    c.slot_mapping[t] = kpool ? KpoolTailSlot(c, t) : QsaRingSlot(c, t);
}

}  // namespace

extern "C" const sg_plugin_info* slotguard_plugin_info(void) {
  static const char* const families[] = {"kpool_tail", "qsa_ring", nullptr};
#if defined(SG_EXAMPLE_KPOOL_ACCEPTS_BLOCK_0)
  static const sg_plugin_info info = {SLOTGUARD_PLUGIN_ABI_VERSION, "example-rings-campaign", families};
#elif defined(SG_EXAMPLE_KEEP_LAST_OFF_BY_ONE)
  static const sg_plugin_info info = {SLOTGUARD_PLUGIN_ABI_VERSION, "example-rings-buggy", families};
#else
  static const sg_plugin_info info = {SLOTGUARD_PLUGIN_ABI_VERSION, "example-rings", families};
#endif
  return &info;
}

extern "C" int slotguard_plugin_launch_device(const sg_mapping_call* c) {
  if (c->num_tokens == 0) return 0;
  const int64_t blocks = (c->num_tokens + 255) / 256;
  RingsKernel<<<static_cast<unsigned>(blocks < 65535 ? blocks : 65535), 256, 0,
                static_cast<cudaStream_t>(c->stream)>>>(*c, IsKpool(*c));
  return static_cast<int>(cudaGetLastError());
}

extern "C" int slotguard_plugin_launch_host(const sg_mapping_call* c) {
  const bool kpool = IsKpool(*c);
  for (int64_t t = 0; t < c->num_tokens; ++t) c->slot_mapping[t] = kpool ? KpoolTailSlot(*c, t) : QsaRingSlot(*c, t);
  return 0;
}
