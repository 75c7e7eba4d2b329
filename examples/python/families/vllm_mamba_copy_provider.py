#!/usr/bin/env python3
"""A vllm_mamba_copy provider for `slotguard --kernel-cmd`: vLLM's Mamba prefix-cache copy list in numpy.

    slotguard check --backend host --kernel-cmd "python3 examples/python/families/vllm_mamba_copy_provider.py" \\
        scenarios/engines/vllm_mamba_copy/

Written from the description, families/vllm_mamba_copy.json (align mode, no
speculative tokens), as preprocess_mamba / precopy_mamba_align_fused_kernel
choose the columns: one operation per request (outputs: the source blocks,
then the destination blocks, -1 where a request copies nothing):

- num_computed = seq_len - q; prev = cdiv(num_computed, block_size) - 1 (the
  running column, -1 for a fresh request); curr = cdiv(seq_len, block_size) - 1;
- a copy when prev >= 0 and prev != curr: src = row[prev], dst = row[curr];
- null-safe: no copy from a null source (block 0), and none for a dummy.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402

provider = slotguard.Provider("numpy-vllm-mamba-copy", arrays="numpy")


def cdiv(a, b):
    return -(-a // b)


@provider.family("vllm_mamba_copy")
def run(call):
    src_out, dst_out = call.outputs
    src_out[:] = -1
    dst_out[:] = -1
    n = call.num_reqs
    q = np.diff(call.query_start_loc[:n + 1].astype(np.int64))
    seq = call.seq_lens[:n].astype(np.int64)
    bs = call.block_size
    prev = cdiv(seq - q, bs) - 1
    curr = cdiv(seq, bs) - 1
    idx = call.idx_mapping[:n].astype(np.int64)
    row = idx if call.rows_by_idx_mapping else np.arange(n)
    width = call.block_table_width
    ok = (idx >= 0) & (row >= 0) & (prev >= 0) & (prev != curr) & (prev < width) & (curr < width)
    r = np.arange(n)[ok]
    src = call.block_table[row[ok] * call.block_table_row_stride + prev[ok]].astype(np.int64)
    dst = call.block_table[row[ok] * call.block_table_row_stride + curr[ok]].astype(np.int64)
    real = src != 0  # nothing to copy from the null block
    src_out[r[real]] = src[real]
    dst_out[r[real]] = dst[real]


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
