/* A plugin in plain C, host entry point only: kpool_tail (docs/families.md)
   as minimal_kpool_tail.cu computes it, for CI without a GPU or nvcc.
   Compile it with any C compiler against slotguard's one header:

     cc -shared -fPIC -O2 -I include -o build/libkpool_tail_host.so examples/plugins/kpool_tail_host.c

   and check it with --kernel-lib build/libkpool_tail_host.so --backend host
   (docs/bring-your-own-kernel.md, docs/ci-recipes.md). -DPLANTED plants the
   kpool tail's historical bug (a table entry of 0, the null block, is taken
   as a block), which `slotguard fuzz` finds and minimizes. */
#include <stddef.h>
#include <stdint.h>

#include <slotguard/plugin.h>

static const char* const families[] = {"kpool_tail", NULL};
static const sg_plugin_info info = {SLOTGUARD_PLUGIN_ABI_VERSION, "kpool-tail-host-c", families};

const sg_plugin_info* slotguard_plugin_info(void) { return &info; }

static int64_t KpoolSlot(const sg_mapping_call* c, int64_t t) {
  if (t >= c->num_actual_tokens) return c->slot_mapping_in[t];
  if (c->num_reqs == 0 || c->block_table_width == 0) return -1;
  int32_t r = 0; /* the last request with query_start_loc[r] <= t, clamped to num_reqs - 1 */
  while (r + 1 < c->num_reqs && c->query_start_loc[r + 1] <= t) ++r;
  const int32_t row = c->block_table_rows_by_idx_mapping ? c->idx_mapping[r] : r; /* a persistent table? */
  if (row < 0) return -1; /* a dummy request reads no row */
  const int64_t b = c->block_table[row * c->block_table_row_stride];
  const int64_t k = c->kpool_tail.kpool;
  const int64_t off = ((c->positions[t] % k) + k) % k;
#ifdef PLANTED
  return b >= 0 ? b * k + off : -1; /* the bug: block 0 taken as a block */
#else
  return b > 0 ? b * k + off : -1;
#endif
}

/* Required by the ABI; this plugin has no kernel for the GPU. */
int slotguard_plugin_launch_device(const sg_mapping_call* call) {
  (void)call;
  return 1;
}

int slotguard_plugin_launch_host(const sg_mapping_call* c) {
  for (int64_t t = 0; t < c->num_tokens; ++t) c->slot_mapping[t] = KpoolSlot(c, t);
  return 0;
}
