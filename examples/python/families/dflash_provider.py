#!/usr/bin/env python3
"""A dflash provider for `slotguard --kernel-cmd`: the null-safe mapping in numpy.

    slotguard check --backend host --kernel-cmd "python3 examples/python/families/dflash_provider.py" \\
        scenarios/engines/dflash/
    slotguard fuzz --backend host --family dflash \\
        --kernel-cmd "python3 examples/python/families/dflash_provider.py" --runs 300

Written from the description, families/dflash.json (docs/families.md).

The batch encoding. The engine's DFlash kernels write two buffers: one slot
per context (target) token, and num_query_per_req query slots per request
at r * num_query_per_req + k. slotguard hands both over as ONE batch:
request r's tokens are its context tokens followed by its num_query_per_req
query tokens (query_start_loc covers both), each with its position given:
the context positions, then last_valid + 1 + k. So token i of a request of
q tokens is

- a context token when i < q - num_query_per_req: its slot goes to the
  group's output (call.slot_mapping), PAD in the second;
- a query token otherwise: its slot goes to output "query"
  (call.outputs[1]), PAD in the first.

An engine-side adapter would scatter the engine's query buffer to those
tokens (query slot r * num_query_per_req + k is token
qsl[r + 1] - num_query_per_req + k).

Each token: PAD at pos >= max_model_len; column pos / block_size of the
request's row (a persistent table: idx_mapping[r]); a dummy (idx_mapping -1)
is PAD; a column past the row or an entry <= 0 is PAD; else
slot = entry * block_size + pos % block_size. Padding tokens: PAD.

The two outputs' writers are slotguard's, not the provider's (check
--writers): the context output's skips a dummy's tokens (the engine never
stores context K/V in a dummy run), the query output's writes them.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402


def dflash(query_start_loc, request_of_token, positions, idx_mapping, rows_by_idx_mapping, table, row_stride, width,
           num_real_tokens, block_size, num_query_per_req, max_model_len, context_out, query_out):
    """[cpu] Fills the context and query outputs (int64 [num_tokens] each)."""
    context_out[:] = -1
    query_out[:] = -1
    t = np.arange(num_real_tokens, dtype=np.int64)
    r = request_of_token[:num_real_tokens].astype(np.int64)
    begin = query_start_loc[r].astype(np.int64)
    q = query_start_loc[r + 1].astype(np.int64) - begin
    is_context = (t - begin) < q - num_query_per_req
    idx = idx_mapping[r].astype(np.int64)
    row = idx if rows_by_idx_mapping else r
    pos = positions[:num_real_tokens]
    col = pos // block_size
    keep = (idx >= 0) & (row >= 0) & (pos < max_model_len) & (col < width)
    t, row, pos, col, is_context = t[keep], row[keep], pos[keep], col[keep], is_context[keep]
    entry = table[row * row_stride + col].astype(np.int64)
    live = entry > 0
    t, pos, entry, is_context = t[live], pos[live], entry[live], is_context[live]
    slot = entry * block_size + pos % block_size
    context_out[t[is_context]] = slot[is_context]
    query_out[t[~is_context]] = slot[~is_context]


provider = slotguard.Provider("numpy-dflash", arrays="numpy")


@provider.family("dflash")
def run(call):
    context_out, query_out = call.outputs
    dflash(call.query_start_loc, call.request_of_token, call.positions, call.idx_mapping, call.rows_by_idx_mapping,
           call.block_table, call.block_table_row_stride, call.block_table_width, call.num_real_tokens,
           call.block_size, call.num_query_per_req, call.max_model_len, context_out, query_out)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
