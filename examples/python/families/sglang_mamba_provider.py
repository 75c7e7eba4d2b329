#!/usr/bin/env python3
"""An sglang_mamba provider for `slotguard --kernel-cmd`: SGLang's Mamba state-slot replay metadata in numpy.

    slotguard check --backend host --kernel-cmd "python3 examples/python/families/sglang_mamba_provider.py" \\
        scenarios/engines/sglang_mamba/

Written from the description, families/sglang_mamba.json, as
HybridLinearAttnBackend's replay computes it: a live request's slot is its
request-to-mamba mapping (column 0 of its row: the pool index), a padded or
dummy row is set to -1 (mamba_indices[bs - num_padding:] = -1), which the
decode kernels skip. Slot 0 is the allocator's reserved sink.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402

provider = slotguard.Provider("numpy-sglang-mamba", arrays="numpy")


@provider.family("sglang_mamba")
def run(call):
    out = call.slot_mapping
    out[:] = -1
    n = call.num_reqs
    r = np.arange(n)
    idx = call.idx_mapping[:n].astype(np.int64)
    row = idx if call.rows_by_idx_mapping else r
    live = (idx >= 0) & (row >= 0) & (call.block_table_width > 0)
    out[r[live]] = call.block_table[row[live] * call.block_table_row_stride]


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
