// An example plugin that crashes: a paged mapping (docs/families.md, paged, without DCP)
// that, like a kernel with a device-side assert, traps when it meets a dummy
// request (idx_mapping == -1) instead of writing PAD. On the GPU the trap is
// a sticky CUDA error that ends the process's context; on the host, abort().
// With fault isolation each such scenario becomes a no_fault finding and the
// run goes on. Built as build/examples/libsg_asserting_paged.so.
#include <cstdlib>

#include <slotguard/plugin.h>

namespace {

__host__ __device__ void Trap() {
#ifdef __CUDA_ARCH__
  __trap();
#else
  std::abort();
#endif
}

__host__ __device__ int64_t PagedSlot(const sg_mapping_call& c, int64_t t) {
  if (!c.paged.enabled || c.num_reqs == 0 || t >= c.query_start_loc[c.num_reqs]) return -1;
  int32_t r = 0;
  while (c.query_start_loc[r + 1] <= t) ++r;
  if (c.idx_mapping[r] < 0) Trap();  // "every request in a batch is live"
  const int64_t kb = c.paged.kernel_block_size;
  const int64_t col = c.positions[t] / kb;
  if (col >= c.block_table_width) return -1;
  const int32_t row = c.block_table_rows_by_idx_mapping ? c.idx_mapping[r] : r;
  return c.block_table[row * c.block_table_row_stride + col] * kb + c.positions[t] % kb;
}

__global__ void PagedKernel(sg_mapping_call c) {
  const int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (t < c.num_tokens) c.slot_mapping[t] = PagedSlot(c, t);
}

}  // namespace

extern "C" const sg_plugin_info* slotguard_plugin_info(void) {
  static const char* const families[] = {"paged", nullptr};
  static const sg_plugin_info info = {SLOTGUARD_PLUGIN_ABI_VERSION, "example-asserting-paged", families};
  return &info;
}

extern "C" int slotguard_plugin_launch_device(const sg_mapping_call* c) {
  if (c->paged.dcp_world != 1) return 1;  // this example has no DCP
  if (c->num_tokens == 0) return 0;
  PagedKernel<<<static_cast<unsigned>((c->num_tokens + 255) / 256), 256, 0, static_cast<cudaStream_t>(c->stream)>>>(*c);
  return static_cast<int>(cudaGetLastError());
}

extern "C" int slotguard_plugin_launch_host(const sg_mapping_call* c) {
  if (c->paged.dcp_world != 1) return 1;
  for (int64_t t = 0; t < c->num_tokens; ++t) c->slot_mapping[t] = PagedSlot(*c, t);
  return 0;
}
