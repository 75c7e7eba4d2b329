#!/usr/bin/env python3
"""A vllm_offload_store provider for `slotguard --kernel-cmd`: the KV offloading connector's store list in numpy.

    slotguard check --backend host --kernel-cmd "python3 examples/python/families/vllm_offload_store_provider.py" \\
        scenarios/engines/vllm_offload_store/

Written from the description, families/vllm_offload_store.json: operation k
of request r (element r * ops + k, ops = the table's width) stores block
column k when the block is fully computed (k < (seq_len - q) // block_size);
the null block (0) is skipped (if block_id == 0: continue); -1 where no
block is stored, and for a dummy.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402

provider = slotguard.Provider("numpy-vllm-offload-store", arrays="numpy")


@provider.family("vllm_offload_store")
def run(call):
    out = call.slot_mapping
    out[:] = -1
    n, ops = call.num_reqs, call.ops_per_request
    if n == 0 or ops == 0:
        return
    q = np.diff(call.query_start_loc[:n + 1].astype(np.int64))
    computed = (call.seq_lens[:n].astype(np.int64) - q) // call.block_size
    idx = call.idx_mapping[:n].astype(np.int64)
    row = idx if call.rows_by_idx_mapping else np.arange(n)
    for r in range(n):
        if idx[r] < 0 or row[r] < 0:
            continue
        for k in range(min(ops, int(computed[r]), call.block_table_width)):
            block = int(call.block_table[row[r] * call.block_table_row_stride + k])
            if block != 0:
                out[r * ops + k] = block


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
