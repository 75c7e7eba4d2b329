#!/usr/bin/env python3
"""A vllm_sliding_window provider for `slotguard --kernel-cmd`: the mapping in numpy.

    slotguard check --backend host --writers \\
        --kernel-cmd "python3 examples/python/families/vllm_sliding_window_provider.py" \\
        scenarios/engines/vllm_sliding_window/
    slotguard fuzz --backend host --writers --family vllm_sliding_window \\
        --kernel-cmd "python3 examples/python/families/vllm_sliding_window_provider.py" --runs 300

Written from the description, families/vllm_sliding_window.json
(docs/families.md). The slots are vLLM's paged mapping (model runner v2):

- a token of request r at position pos reads column pos / block_size of
  row idx_mapping[r] of a persistent table (row r of a gathered one); a
  dummy (idx_mapping -1) is PAD;
- the column is not bounded by the row (the engine's load has no bound):
  past the row it reads what lies there, as the kernel does;
- slot = entry * block_size + pos % block_size; padding tokens PAD (-1).

The sliding window is not the provider's business: which columns a token's
attention reads, and that they hold real blocks, is the batch's table, which
slotguard judges (window_reads).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402


def sliding_window_slots(request_of_token, positions, idx_mapping, rows_by_idx_mapping, table, row_stride,
                         num_real_tokens, block_size, out):
    """[cpu] Fills out (int64 [num_tokens]) with the group's slots."""
    out[:] = -1
    t = np.arange(num_real_tokens)
    r = request_of_token[:num_real_tokens].astype(np.int64)
    idx = idx_mapping[r].astype(np.int64)
    row = idx if rows_by_idx_mapping else r
    pos = positions[:num_real_tokens].astype(np.int64)
    flat = row * row_stride + pos // block_size  # unbounded, as the engine's load
    keep = (idx >= 0) & (row >= 0) & (flat < table.size)
    t, pos, flat = t[keep], pos[keep], flat[keep]
    out[t] = table[flat].astype(np.int64) * block_size + pos % block_size


provider = slotguard.Provider("numpy-vllm-sliding-window", arrays="numpy")


@provider.family("vllm_sliding_window")
def run(call):
    sliding_window_slots(call.request_of_token, call.positions, call.idx_mapping, call.rows_by_idx_mapping,
                         call.block_table, call.block_table_row_stride, call.num_real_tokens, call.block_size,
                         call.slot_mapping)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
