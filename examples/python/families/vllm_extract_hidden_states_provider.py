#!/usr/bin/env python3
"""A vllm_extract_hidden_states provider for `slotguard --kernel-cmd`: the mapping in numpy.

    slotguard check --backend host --writers \\
        --kernel-cmd "python3 examples/python/families/vllm_extract_hidden_states_provider.py" \\
        scenarios/engines/vllm_extract_hidden_states/
    slotguard fuzz --backend host --writers --family vllm_extract_hidden_states \\
        --kernel-cmd "python3 examples/python/families/vllm_extract_hidden_states_provider.py" --runs 300

Written from the description, families/vllm_extract_hidden_states.json
(docs/families.md). The drafter's slots are the target's paged mapping:

- a token of request r at position pos reads column pos / block_size of r's
  row (a persistent table: idx_mapping[r]); a dummy (idx_mapping -1) is PAD;
- a column past the row is PAD; the entry is used as read (the target's
  kernel has no null-entry test, and a live request's columns are its own);
- slot = entry * block_size + pos % block_size; padding tokens PAD (-1).

What makes the family is its writer, which is slotguard's, not the
provider's: the engine's basic_cache clamps every slot to 0 or more before
its store, so each PAD token writes slot 0 of the null block, a sink
(`check --writers` judges it).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402


def extract_hidden_states(request_of_token, positions, idx_mapping, rows_by_idx_mapping, table, row_stride, width,
                          num_real_tokens, block_size, out):
    """[cpu] Fills out (int64 [num_tokens]) with the drafter's slots."""
    out[:] = -1
    t = np.arange(num_real_tokens)
    r = request_of_token[:num_real_tokens].astype(np.int64)
    idx = idx_mapping[r].astype(np.int64)
    row = idx if rows_by_idx_mapping else r
    pos = positions[:num_real_tokens].astype(np.int64)
    col = pos // block_size
    keep = (idx >= 0) & (row >= 0) & (col < width)
    t, row, pos, col = t[keep], row[keep], pos[keep], col[keep]
    entry = table[row * row_stride + col].astype(np.int64)
    out[t] = entry * block_size + pos % block_size


provider = slotguard.Provider("numpy-vllm-extract-hidden-states", arrays="numpy")


@provider.family("vllm_extract_hidden_states")
def run(call):
    extract_hidden_states(call.request_of_token, call.positions, call.idx_mapping, call.rows_by_idx_mapping,
                          call.block_table, call.block_table_row_stride, call.block_table_width,
                          call.num_real_tokens, call.block_size, call.slot_mapping)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
