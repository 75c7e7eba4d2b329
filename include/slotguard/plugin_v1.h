/*
 * slotguard plugin ABI, version 1, frozen: what plugins built before ABI 2
 * were compiled against. slotguard still loads them (see plugin.h for
 * what version 2 changed); new plugins include slotguard/plugin.h.
 *
 * (This copy names the call struct sg_mapping_call_v1; the library's
 * binary interface is the same as when it was named sg_mapping_call.)
 *
 * slotguard plugin ABI, version 1: bring your own slot-mapping kernel.
 *
 * A plugin is a shared library (.so) that exports, with C linkage:
 *
 *   const sg_plugin_info* slotguard_plugin_info(void);              required
 *   int slotguard_plugin_launch_device(const sg_mapping_call* call); required
 *   int slotguard_plugin_launch_host(const sg_mapping_call* call);   optional
 *
 * `slotguard check --kernel-lib lib.so` (also replay, fuzz, mutants) then
 * runs the plugin's implementation instead of slotguard's own for every
 * group whose family the plugin lists; the scenarios, the reference, the
 * invariants, the fuzzers and the reports stay the same.
 *
 * launch_device gets device pointers and a CUDA stream: enqueue the kernel on
 * that stream and return (slotguard synchronizes). launch_host gets host
 * pointers and must finish before returning; without it, the plugin runs only
 * on the gpu backend. Both return 0 on success; any other value is an error
 * slotguard reports (for launch_device, a cudaError_t is a good choice).
 * A plugin that crashes, traps or hangs costs only the scenario it ran (the
 * kernels run in worker processes).
 *
 * Semantics of every field: docs/families.md.
 * Plain C: no C++ types cross this boundary; usable from C, C++ and nvcc.
 */
#ifndef SLOTGUARD_PLUGIN_V1_H_
#define SLOTGUARD_PLUGIN_V1_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SLOTGUARD_PLUGIN_V1_ABI_VERSION 1

/* One mapping call: one group of one scenario. */
typedef struct sg_mapping_call_v1 {
  uint32_t abi_version;   /* SLOTGUARD_PLUGIN_V1_ABI_VERSION */
  const char* family;     /* "paged", "kpool_tail", "qsa_ring", "qsa_compressed", "compressor_ring" */
  const char* variant;    /* the scenario's variant name, "fixed" unless forced; a plugin may ignore it */

  /* The batch. R = num_reqs; token t belongs to request r when
     query_start_loc[r] <= t < query_start_loc[r + 1]. */
  const int32_t* query_start_loc; /* [num_reqs + 1] */
  const int64_t* positions;       /* [num_tokens] */
  const int32_t* seq_lens;        /* [num_reqs] */
  const int32_t* idx_mapping;     /* [num_reqs], -1 marks a dummy request */
  const int64_t* slot_mapping_in; /* [num_tokens] (kpool_tail copies it through) */
  int32_t num_reqs;
  int64_t num_actual_tokens;
  int64_t num_tokens;             /* length of every per-token buffer */

  /* The group's block table: row r is request r's, entry (r, c) at
     block_table[r * block_table_row_stride + c] for c < block_table_width.
     The stride is larger than the width: the columns past the width hold a
     poison id (INT32_MAX), so a read past the row shows up in the output.
     (Since ABI 2 slotguard may lay the table out tight or strided for a
     version-1 plugin too: see plugin.h.) */
  const int32_t* block_table;
  int64_t block_table_row_stride;
  int32_t block_table_width;
  int32_t block_table_rows;

  /* Outputs, [num_tokens] each, zeroed before the call (as the engine's
     persistent buffers are): write every element. */
  int64_t* slot_mapping;
  int64_t* tail_slot_mapping;     /* compressor_ring's second output; NULL for the others */

  /* The family's parameters: only the member named by `family` is meaningful. */
  struct {
    int32_t block_size;           /* manager block, in tokens */
    int32_t kernel_block_size;    /* divides block_size; table entries are kernel block ids */
    int32_t dcp_world, dcp_rank, dcp_interleave;
    int32_t enabled;              /* 0: the whole output is PAD */
  } paged;
  struct { int32_t kpool; } kpool_tail;
  struct { int32_t ring; } qsa_ring;
  struct {
    int32_t block_size;
    int32_t compress_ratio;
    const int64_t* common_slot_mapping; /* [num_tokens], the common (paged) group's output */
  } qsa_compressed;
  struct { int32_t capacity, ring_block_size; } compressor_ring;

  void* stream;                   /* cudaStream_t for launch_device; NULL for launch_host */
} sg_mapping_call_v1;

#ifndef SLOTGUARD_PLUGIN_INFO_DEFINED
#define SLOTGUARD_PLUGIN_INFO_DEFINED
typedef struct sg_plugin_info {
  uint32_t abi_version;           /* SLOTGUARD_PLUGIN_V1_ABI_VERSION the plugin was built against */
  const char* name;               /* shown in reports */
  const char* const* families;    /* the families it implements, NULL-terminated */
} sg_plugin_info;

typedef const sg_plugin_info* (*sg_plugin_info_fn)(void);
#endif
typedef int (*sg_plugin_launch_v1_fn)(const sg_mapping_call_v1* call);

#ifdef __cplusplus
}
#endif

#endif /* SLOTGUARD_PLUGIN_V1_H_ */
