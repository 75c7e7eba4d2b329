/*
 * slotguard plugin ABI, version 4: bring your own slot-mapping kernel.
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
 * Semantics of every field: docs/families.md and the family's description
 * (docs/family-format.md).
 * Plain C: no C++ types cross this boundary; usable from C, C++ and nvcc.
 *
 * Version 4 (this header) appends a family's extra inputs to version 3:
 * the arrays beside the table that a description declares in "inputs"
 * (docs/family-format.md), by name, each per request or per token. A
 * plugin built against version 3 or 2 keeps loading for every family
 * without inputs, and never reads them; listing a family with inputs needs
 * version 4.
 *
 * Version 3 appends the family-neutral call to version 2:
 * the parameters by name (num_params, param_names, param_values), the
 * outputs by name, the gate's linked output and each row's width. They
 * describe a group of any family, a user's described one too; a plugin for
 * a family that is not one of the five built in must read them (the
 * per-family members carry only the built-in families' parameters). A
 * plugin built against version 2 keeps loading and never reads them.
 *
 * Version 2 over version 1 (slotguard/plugin_v1.h, which
 * slotguard still loads): seq_lens is int64 (positions were already),
 * seq_lens_i32 carries the same values saturated at INT32_MAX for kernels
 * that take int32, num_real_tokens is query_start_loc[num_reqs] as a scalar, and block_table_rows_by_idx_mapping says whether the
 * table is a persistent one read through idx_mapping (format 2's
 * batch.table_rows). A version-1 plugin gets seq_lens_i32 as its seq_lens
 * and, instead of a persistent table (which it cannot know how to read),
 * the table the version-1 runner built from it: row r is request r's.
 */
#ifndef SLOTGUARD_PLUGIN_H_
#define SLOTGUARD_PLUGIN_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SLOTGUARD_PLUGIN_ABI_VERSION 4

/* One mapping call: one group of one scenario. */
typedef struct sg_mapping_call {
  uint32_t abi_version;   /* the plugin's own: 2, 3 or 4 */
  const char* family;     /* the family's name: "paged", ..., or a described family's (slotguard list) */
  const char* variant;    /* the scenario's variant name, "fixed" unless forced; a plugin may ignore it */

  /* The batch. R = num_reqs; token t belongs to request r when
     query_start_loc[r] <= t < query_start_loc[r + 1]. */
  const int32_t* query_start_loc; /* [num_reqs + 1] */
  const int64_t* positions;       /* [num_tokens] */
  const int64_t* seq_lens;        /* [num_reqs], 0 <= seq_len <= 2^62 */
  const int32_t* seq_lens_i32;    /* [num_reqs], seq_lens saturated at INT32_MAX */
  const int32_t* idx_mapping;     /* [num_reqs], -1 marks a dummy request */
  const int64_t* slot_mapping_in; /* [num_tokens] (kpool_tail copies it through) */
  int32_t num_reqs;
  int64_t num_actual_tokens;
  int64_t num_real_tokens;        /* query_start_loc[num_reqs], as a scalar (ABI 2) */
  int64_t num_tokens;             /* length of every per-token buffer */

  /* The group's block table: entry (row, c) at
     block_table[row * block_table_row_stride + c] for c < block_table_width.
     Request r reads row r, or, when block_table_rows_by_idx_mapping is 1,
     row idx_mapping[r] of a persistent table of block_table_rows rows whose
     other rows are stale (a dummy request, idx_mapping -1, reads no row and
     maps to PAD). The layout varies (--table-layout): the stride may equal
     the width (the next row follows directly), or exceed it with poison
     (INT32_MAX) or real-looking block ids in the columns between. */
  const int32_t* block_table;
  int64_t block_table_row_stride;
  int32_t block_table_width;
  int32_t block_table_rows;
  int32_t block_table_rows_by_idx_mapping;

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

  /* Appended to ABI 2 (a plugin built before it never reads it): the
     request of each token, r for query_start_loc[r] <= t <
     query_start_loc[r + 1], -1 for tokens past query_start_loc[num_reqs],
     as engines' metadata builders precompute it. */
  const int32_t* request_of_token; /* [num_tokens] */

  /* Appended in ABI 3: the family-neutral call. */
  int32_t num_params;
  const char* const* param_names; /* [num_params]: the description's parameter names, its order */
  const int64_t* param_values;    /* [num_params]: a bool is 0 or 1, a group parameter 0 */
  int32_t num_outputs;            /* 1, or 2: slot_mapping, then tail_slot_mapping */
  const char* output_names[2];    /* "" for the group's own output, then e.g. "tail" (NULL past num_outputs) */
  const int64_t* gate_slot_mapping; /* [num_tokens]: the output the family's gate reads (another group's,
                                       or its "absent" rule's); NULL when the family has no gate */
  const int32_t* block_table_row_widths; /* [block_table_rows]: each row's own width, for a family whose
                                            rows are ragged ("csr"); NULL when every row is
                                            block_table_width wide */
  int32_t kind;                   /* what the family computes: SG_KIND_SLOT_MAPPING (a slot per token),
                                     SG_KIND_STATE_INDEX (a state index per request), SG_KIND_BLOCK_OP
                                     (block operations per request) */
  int64_t output_length;          /* elements of each output: num_tokens for a slot per token;
                                     num_reqs for a state index; num_reqs * operations per request for
                                     block operations (operation k of request r at r * ops + k) */

  /* Appended in ABI 4: the family's extra inputs, in its description's order
     (0 and NULLs for a family without inputs). Host pointers, for
     launch_host: the GPU backend does not hand a plugin inputs yet. */
  int32_t num_inputs;
  const char* const* input_names;     /* [num_inputs] */
  const int32_t* input_per_token;     /* [num_inputs]: 0 per request ([num_reqs] values), 1 per token ([num_tokens]) */
  const int64_t* const* input_values; /* [num_inputs]: each input's array, the scenario's or its default */
} sg_mapping_call;

#define SG_KIND_SLOT_MAPPING 0
#define SG_KIND_STATE_INDEX 1
#define SG_KIND_BLOCK_OP 2
/* A gathered block table per request (docs/table-producers.md): output_length
   = num_reqs * the table's width. Each kind's number is its model's
   (src/family/kind_<name>.cc, abi_kind); it is listed here too because a C
   plugin compares call.kind against a name, and C cannot read the model. */
#define SG_KIND_TABLE_PRODUCER 3

#ifndef SLOTGUARD_PLUGIN_INFO_DEFINED
#define SLOTGUARD_PLUGIN_INFO_DEFINED
typedef struct sg_plugin_info {
  uint32_t abi_version;           /* SLOTGUARD_PLUGIN_ABI_VERSION the plugin was built against */
  const char* name;               /* shown in reports */
  const char* const* families;    /* the families it implements, NULL-terminated */
} sg_plugin_info;

typedef const sg_plugin_info* (*sg_plugin_info_fn)(void);
#endif
typedef int (*sg_plugin_launch_fn)(const sg_mapping_call* call);

#ifdef __cplusplus
}
#endif

#endif /* SLOTGUARD_PLUGIN_H_ */
