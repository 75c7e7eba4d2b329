#!/usr/bin/env python3
"""A vllm_gather_block_tables provider for `slotguard --kernel-cmd`: vLLM's input block table gather in numpy.

    slotguard check --backend host --kernel-cmd "python3 examples/python/families/vllm_gather_block_tables_provider.py" \\
        scenarios/engines/vllm_gather_block_tables/

Written from the description, families/vllm_gather_block_tables.json, as
_gather_block_tables_kernel (vllm/v1/worker/gpu/block_table.py) fills the
step's input block table: one output of num_reqs rows, each as wide as the
table (the persistent table's stride):

- a live request r copies the first num_blocks = cdiv(seq_len + lookahead,
  block_size) * (block_size / kernel_block_size) entries of the row it reads
  (row idx_mapping[r] of a persistent table, else row r); the rest of its row
  keeps what the buffer held, 0 (the engine's buffer starts zeroed; a
  provider's buffer is its own to fill, so it writes the 0);
- a padded or dummy row (idx_mapping -1) is all 0: the null block.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402

provider = slotguard.Provider("numpy-vllm-gather-block-tables", arrays="numpy")


def cdiv(a, b):
    return -(-a // b)


@provider.family("vllm_gather_block_tables")
def run(call):
    out = call.outputs[0]
    out[:] = 0
    n = call.num_reqs
    width = call.block_table_width
    if n == 0 or width == 0:
        return
    seq = call.seq_lens[:n].astype(np.int64)
    bs = call.block_size
    count = cdiv(seq + call.lookahead, bs) * (bs // call.kernel_block_size)
    idx = call.idx_mapping[:n].astype(np.int64)
    row = idx if call.rows_by_idx_mapping else np.arange(n)
    rows = call.block_table_rows
    stride = call.block_table_row_stride
    for r in range(n):
        if idx[r] < 0 or row[r] < 0 or row[r] >= rows:
            continue  # a padded or dummy row: all 0
        k = int(min(max(count[r], 0), width))
        start = int(row[r]) * stride
        out[r * width:r * width + k] = call.block_table[start:start + k]


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
