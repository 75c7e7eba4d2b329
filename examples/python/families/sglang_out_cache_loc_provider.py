#!/usr/bin/env python3
"""A sglang_out_cache_loc provider for `slotguard --kernel-cmd`: SGLang's out_cache_loc in numpy.

    slotguard check --backend host --kernel-cmd "python3 examples/python/families/sglang_out_cache_loc_provider.py" \\
        scenarios/engines/sglang_out_cache_loc/
    slotguard fuzz --backend host --family sglang_out_cache_loc \\
        --kernel-cmd "python3 examples/python/families/sglang_out_cache_loc_provider.py" --runs 300

Written from the description, families/sglang_out_cache_loc.json
(docs/families.md). The block table is SGLang's req_to_token: row = the
request's pool index (a persistent table: idx_mapping[r]; else row r), one
slot per position, so a live token's slot is req_to_token[row, pos]
(page 1, offset 0). What the provider builds is the step's out_cache_loc:

- a live token: req_to_token[row, pos] as it is (no test: the allocator
  hands out pages from 1, so a slot in page 0, [0, page_size), is the
  batch's fault and slotguard's null_block finding);
- every other token holds 0, the sink slot page 0 keeps for them
  (pad_value 0): a CUDA-graph padded token (from query_start_loc[R]), a
  dummy request (idx_mapping -1: an idle DP rank's padding) and a position
  past the row. SGLang zeroes out_cache_loc and copies the live tokens in
  (cuda_graph_runner.py replay_prepare); it never writes -1, which its
  writer (a torch index, no skip) would put in the pool's last slot.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402


def out_cache_loc(request_of_token, positions, idx_mapping, rows_by_idx_mapping, req_to_token, row_stride, width,
                  num_real_tokens, out):
    """[cpu] Fills out (int64 [num_tokens]): the live tokens' slots, 0 for every other token."""
    out[:] = 0                       # the zero fill: the sink slot of every token not mapped
    t = np.arange(num_real_tokens)
    r = request_of_token[:num_real_tokens].astype(np.int64)
    idx = idx_mapping[r].astype(np.int64)
    row = idx if rows_by_idx_mapping else r
    pos = positions[:num_real_tokens]
    keep = (idx >= 0) & (row >= 0) & (pos >= 0) & (pos < width)
    t, row, pos = t[keep], row[keep], pos[keep]
    out[t] = req_to_token[row * row_stride + pos]


provider = slotguard.Provider("numpy-sglang-out-cache-loc", arrays="numpy")


@provider.family("sglang_out_cache_loc")
def run(call):
    # page_size names the null page (slots [0, page_size)); the mapping itself does not read it.
    out_cache_loc(call.request_of_token, call.positions, call.idx_mapping, call.rows_by_idx_mapping,
                  call.block_table, call.block_table_row_stride, call.block_table_width, call.num_real_tokens,
                  call.slot_mapping)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
