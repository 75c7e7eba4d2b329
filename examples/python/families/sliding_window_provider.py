#!/usr/bin/env python3
"""A sliding_window provider for `slotguard --kernel-cmd` (a user family: --family-file), in numpy.

    slotguard check --family-file examples/families/sliding_window.json \\
        --kernel-cmd "python3 examples/python/families/sliding_window_provider.py" examples/families/scenarios/
    slotguard fuzz --family-file examples/families/sliding_window.json --family sliding_window \\
        --kernel-cmd "python3 examples/python/families/sliding_window_provider.py --planted" --runs 2000

Written from the description, examples/families/sliding_window.json (the
worked example of docs/family-format.md): a request keeps its last
window_blocks blocks in a ring of table columns.

- token t of request r reads column (pos / block_size) % window_blocks of
  r's row (a persistent table: row idx_mapping[r]); every row has at least
  window_blocks columns, so the ring's columns need no bound;
- a dummy request (idx_mapping -1) is PAD;
- an entry <= 0 (the null block: a ring column the request has not filled;
  -1: no block) is PAD;
- slot = entry * block_size + pos % block_size; padding tokens PAD (-1).

--planted plants a null-block bug for `slotguard fuzz` to find: the
provider then knows nothing of dummies (it leaves them to their rows, which
hold only null entries) and its null test accepts block 0 (entry >= 0:
"only -1 means no block"). A dummy on a zero row is then written into
block 0. `check` of examples/families/scenarios/ catches it
(wrap-unfilled-dummy.json has such a dummy), and fuzz finds it on its own
and minimizes it to a single dummy request.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402

PLANTED = "--planted" in sys.argv[1:]


def sliding_window(request_of_token, positions, idx_mapping, rows_by_idx_mapping, table, row_stride,
                   num_real_tokens, block_size, window_blocks, out, planted=False):
    """[cpu] Fills out (int64 [num_tokens]) with the window's slots."""
    out[:] = -1
    t = np.arange(num_real_tokens)
    r = request_of_token[:num_real_tokens].astype(np.int64)
    idx = idx_mapping[r].astype(np.int64)
    row = idx if rows_by_idx_mapping else r
    pos = positions[:num_real_tokens]
    col = pos // block_size % window_blocks
    keep = row >= 0  # a dummy of a persistent table reads no row
    if not planted:
        keep &= idx >= 0  # a dummy is PAD
    t, row, pos, col = t[keep], row[keep], pos[keep], col[keep]
    entry = table[row * row_stride + col].astype(np.int64)
    live = entry >= 0 if planted else entry > 0  # PLANTED BUG: block 0 accepted
    out[t[live]] = entry[live] * block_size + pos[live] % block_size


provider = slotguard.Provider("numpy-sliding-window" + ("-planted" if PLANTED else ""), arrays="numpy")


@provider.family("sliding_window")
def run(call):
    sliding_window(call.request_of_token, call.positions, call.idx_mapping, call.rows_by_idx_mapping,
                   call.block_table, call.block_table_row_stride, call.num_real_tokens, call.block_size,
                   call.window_blocks, call.slot_mapping, planted=PLANTED)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
