#!/usr/bin/env python3
"""An lmcache_vllm_adapter provider for `slotguard --kernel-cmd`: the mapping in numpy.

    slotguard check --backend host --writers \\
        --kernel-cmd "python3 examples/python/families/lmcache_vllm_adapter_provider.py" \\
        scenarios/engines/lmcache_vllm_adapter/
    slotguard fuzz --backend host --writers --family lmcache_vllm_adapter \\
        --kernel-cmd "python3 examples/python/families/lmcache_vllm_adapter_provider.py" --runs 300

Written from the description, families/lmcache_vllm_adapter.json
(docs/families.md). LMCache's vLLM adapter builds each request's slots on
the host from its block ids, and its retrieve writes K/V back through them:

- a token of request r at position pos reads column pos / block_size of r's
  row (a persistent table: idx_mapping[r], which a dummy, idx_mapping -1,
  does not have: PAD); a dummy of a plain table reads its row of null ids
  like any request; a column past the row is PAD;
- the caller's transform of the id read: clamp_min(0), then the null block
  (id 0 after the clamp, so a negative id too) is PAD;
- slot = id * block_size + pos % block_size; padding tokens PAD (-1).

With --pr2984 it computes LMCache PR #2984's order instead (the mask tests
the raw id, so a negative id is clamped into block 0 and written there):
`check` and `fuzz` then find it.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402

PR2984 = "--pr2984" in sys.argv[1:]


def lmcache_slots(request_of_token, positions, idx_mapping, rows_by_idx_mapping, table, row_stride, width,
                  num_real_tokens, block_size, out):
    """[cpu] Fills out (int64 [num_tokens]) with the retrieve's slots."""
    out[:] = -1
    t = np.arange(num_real_tokens)
    r = request_of_token[:num_real_tokens].astype(np.int64)
    idx = idx_mapping[r].astype(np.int64)
    row = idx if rows_by_idx_mapping else r
    pos = positions[:num_real_tokens].astype(np.int64)
    col = pos // block_size
    keep = (row >= 0) & (col < width)
    t, row, pos, col = t[keep], row[keep], pos[keep], col[keep]
    raw = table[row * row_stride + col].astype(np.int64)
    ids = np.maximum(raw, 0)  # clamp_min(0) before the multiply
    live = (raw != 0) if PR2984 else (ids != 0)  # the null-block mask
    out[t[live]] = ids[live] * block_size + pos[live] % block_size


provider = slotguard.Provider("numpy-lmcache-vllm-adapter", arrays="numpy")


@provider.family("lmcache_vllm_adapter")
def run(call):
    lmcache_slots(call.request_of_token, call.positions, call.idx_mapping, call.rows_by_idx_mapping,
                  call.block_table, call.block_table_row_stride, call.block_table_width,
                  call.num_real_tokens, call.block_size, call.slot_mapping)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
