// A plugin of per-request families (docs/state-and-block-ops.md): vLLM's
// Mamba-style state indices (vllm_mamba, vllm_gdn, vllm_lightning: column 0
// of the row, the column of seq_len - 1 in align mode or of the last computed
// token in all mode (cache_all), num_accepted - 1 further with speculative
// decoding (spec); the marker 0 for a
// dummy, for a request without a row and for a column past its row) and its
// Mamba prefix-cache copy list (vllm_mamba_copy: one copy per request, the
// sources in output 0 and the destinations in output 1, -1 where a request
// copies nothing), on the GPU and the host. The parameters are read by name
// (ABI 3), and every output has call->output_length elements.
#include <string.h>

#include <slotguard/plugin.h>

namespace {

enum Kind { kState, kCopy };

struct Call {
  sg_mapping_call c;
  Kind kind;
  int64_t block_size;
  int64_t align;
  int64_t cache_all;
  int64_t spec;
  int64_t num_accepted;
};

__host__ __device__ int64_t Cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Request r's row, or -1 when it reads none (a dummy, a persistent table's missing row).
__host__ __device__ int32_t RowOf(const sg_mapping_call& c, int32_t r) {
  if (c.idx_mapping[r] < 0) return -1;
  const int32_t row = c.block_table_rows_by_idx_mapping ? c.idx_mapping[r] : r;
  return row >= 0 && row < c.block_table_rows ? row : -1;
}

__host__ __device__ int64_t Entry(const sg_mapping_call& c, int32_t row, int64_t col) {
  return c.block_table[row * c.block_table_row_stride + col];
}

__host__ __device__ void Request(const Call& k, int32_t r) {
  const sg_mapping_call& c = k.c;
  const int32_t row = RowOf(c, r);
  const int64_t seq = c.seq_lens[r], q = c.query_start_loc[r + 1] - c.query_start_loc[r];
  if (k.kind == kState) {
    int64_t col = 0;
    if (k.align) col += (seq - 1) / k.block_size > 0 ? (seq - 1) / k.block_size : 0;
    if (k.cache_all) col += Cdiv(seq - q, k.block_size) - 1 > 0 ? Cdiv(seq - q, k.block_size) - 1 : 0;
    if (k.spec) col += k.num_accepted - 1;
    c.slot_mapping[r] = row >= 0 && col < c.block_table_width ? Entry(c, row, col) : 0;
    return;
  }
  const int64_t prev = Cdiv(seq - q, k.block_size) - 1, curr = Cdiv(seq, k.block_size) - 1;
  int64_t src = -1, dst = -1;
  if (row >= 0 && prev >= 0 && prev != curr && prev < c.block_table_width && curr < c.block_table_width &&
      Entry(c, row, prev) != 0) {  // no copy from the null block
    src = Entry(c, row, prev);
    dst = Entry(c, row, curr);
  }
  c.slot_mapping[r] = src;
  c.tail_slot_mapping[r] = dst;
}

__global__ void RequestsKernel(Call k) {
  for (int64_t r = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; r < k.c.num_reqs; r += gridDim.x * blockDim.x)
    Request(k, static_cast<int32_t>(r));
}

int64_t Param(const sg_mapping_call* c, const char* name) {
  for (int32_t p = 0; p < c->num_params; ++p)
    if (strcmp(c->param_names[p], name) == 0) return c->param_values[p];
  return 0;
}

/// The call, checked: 0 and *k set, or an error code.
int Prepare(const sg_mapping_call* c, Call* k) {
  if (c->kind != SG_KIND_STATE_INDEX && c->kind != SG_KIND_BLOCK_OP) return 1;
  if (c->output_length != c->num_reqs) return 2;  // one element per request (one copy per request)
  k->c = *c;
  k->kind = c->kind == SG_KIND_STATE_INDEX ? kState : kCopy;
  k->block_size = Param(c, "block_size");
  k->align = Param(c, "align");
  k->cache_all = Param(c, "cache_all");  // vllm_mamba only: 0 for the others
  k->spec = Param(c, "spec");            // vllm_mamba and vllm_gdn
  k->num_accepted = Param(c, "num_accepted");
  if (k->block_size <= 0) return 3;
  if (k->kind == kCopy && c->num_outputs != 2) return 4;  // the count, never a pointer: an empty output may be NULL
  return 0;
}

}  // namespace

extern "C" const sg_plugin_info* slotguard_plugin_info(void) {
  static const char* const families[] = {"vllm_mamba", "vllm_gdn", "vllm_lightning", "vllm_mamba_copy", nullptr};
  static const sg_plugin_info info = {SLOTGUARD_PLUGIN_ABI_VERSION, "example-mamba-states", families};
  return &info;
}

extern "C" int slotguard_plugin_launch_device(const sg_mapping_call* c) {
  Call k;
  if (const int bad = Prepare(c, &k)) return bad;
  if (c->num_reqs == 0) return 0;
  RequestsKernel<<<(c->num_reqs + 127) / 128, 128, 0, static_cast<cudaStream_t>(c->stream)>>>(k);
  return static_cast<int>(cudaGetLastError());
}

extern "C" int slotguard_plugin_launch_host(const sg_mapping_call* c) {
  Call k;
  if (const int bad = Prepare(c, &k)) return bad;
  for (int32_t r = 0; r < c->num_reqs; ++r) Request(k, r);
  return 0;
}
