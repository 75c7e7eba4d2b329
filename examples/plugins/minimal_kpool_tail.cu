// The smallest useful plugin: kpool_tail (docs/families.md) on the GPU and the host.
#include <slotguard/plugin.h>

__host__ __device__ int64_t KpoolSlot(const sg_mapping_call& c, int64_t t) {
  if (t >= c.num_actual_tokens) return c.slot_mapping_in[t];
  if (c.num_reqs == 0 || c.block_table_width == 0) return -1;
  int32_t r = 0;  // the last request with query_start_loc[r] <= t, clamped to num_reqs - 1
  while (r + 1 < c.num_reqs && c.query_start_loc[r + 1] <= t) ++r;
  const int32_t row = c.block_table_rows_by_idx_mapping ? c.idx_mapping[r] : r;  // a persistent table?
  if (row < 0) return -1;  // a dummy request reads no row
  const int64_t b = c.block_table[row * c.block_table_row_stride];
  const int64_t k = c.kpool_tail.kpool, off = ((c.positions[t] % k) + k) % k;
  return b > 0 ? b * k + off : -1;
}

__global__ void KpoolKernel(sg_mapping_call c) {
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < c.num_tokens; t += gridDim.x * blockDim.x)
    c.slot_mapping[t] = KpoolSlot(c, t);
}

extern "C" const sg_plugin_info* slotguard_plugin_info(void) {
  static const char* const families[] = {"kpool_tail", nullptr};
  static const sg_plugin_info info = {SLOTGUARD_PLUGIN_ABI_VERSION, "minimal-kpool-tail", families};
  return &info;
}

extern "C" int slotguard_plugin_launch_device(const sg_mapping_call* c) {
  if (c->num_tokens == 0) return 0;
  KpoolKernel<<<(c->num_tokens + 255) / 256, 256, 0, static_cast<cudaStream_t>(c->stream)>>>(*c);
  return static_cast<int>(cudaGetLastError());
}

extern "C" int slotguard_plugin_launch_host(const sg_mapping_call* c) {
  for (int64_t t = 0; t < c->num_tokens; ++t) c->slot_mapping[t] = KpoolSlot(*c, t);
  return 0;
}
