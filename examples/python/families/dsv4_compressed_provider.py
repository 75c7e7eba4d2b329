#!/usr/bin/env python3
"""A dsv4_compressed provider for `slotguard --kernel-cmd`: the null-safe mapping in numpy.

    slotguard check --backend host --kernel-cmd "python3 examples/python/families/dsv4_compressed_provider.py" \\
        scenarios/engines/dsv4_compressed/
    slotguard fuzz --backend host --family dsv4_compressed \\
        --kernel-cmd "python3 examples/python/families/dsv4_compressed_provider.py" --runs 300

Written from the description, families/dsv4_compressed.json (docs/families.md):

- request r's tokens t = qsl[r] + i, i < q, have the logical position
  lp = seq_lens[r] - q + i (positions[] are not read);
- a token is kept when lp >= 0 and (lp + 1) % compress_ratio == 0; then
  cp = lp / compress_ratio, column cp / block_size, offset cp % block_size;
- the row is r's (a persistent table: idx_mapping[r]; a dummy there reads no
  row); a dummy of a gathered table reads its own (null) row;
- a column past the row, or an entry <= 0 (the null block, or no block), is
  PAD; otherwise slot = entry * block_size + offset;
- every other token, and every token from query_start_loc[R], is PAD (-1).

The `state` parameter names the compressor-state group: it gates the cache
writers, not the mapping, so the provider does not read it; nor does it
read positions[], which only the writers test ((positions[t] + 1) %
compress_ratio, writer.skip_token_if). The engine's sparse-MLA caller
clamps the table to >= 0 first (variant engine_81be2e09's entry_map); the
null-safe mapping PADs an entry <= 0 either way.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402


def dsv4_compressed(qsl, seq_lens, idx_mapping, rows_by_idx_mapping, table, row_stride, width, block_size,
                    compress_ratio, out):
    """[cpu] Fills out (int64 [num_tokens]) with the compressed slots."""
    out[:] = -1
    for r in range(len(qsl) - 1):
        begin, end = int(qsl[r]), int(qsl[r + 1])
        q = end - begin
        if q == 0:
            continue
        row = int(idx_mapping[r]) if rows_by_idx_mapping else r
        if row < 0:
            continue  # a dummy of a persistent table reads no row
        lp = int(seq_lens[r]) - q + np.arange(q, dtype=np.int64)
        keep = (lp >= 0) & ((lp + 1) % compress_ratio == 0)   # lp >= 0: numpy's % is C's here
        cp = lp // compress_ratio
        col = cp // block_size
        keep &= col < width
        i = np.nonzero(keep)[0]
        if i.size == 0:
            continue
        entry = table[row * row_stride + col[i]].astype(np.int64)
        live = entry > 0
        i, entry = i[live], entry[live]
        out[begin + i] = entry * block_size + cp[i] % block_size


provider = slotguard.Provider("numpy-dsv4-compressed", arrays="numpy")


@provider.family("dsv4_compressed")
def run(call):
    dsv4_compressed(call.query_start_loc, call.seq_lens, call.idx_mapping, call.rows_by_idx_mapping,
                    call.block_table, call.block_table_row_stride, call.block_table_width, call.block_size,
                    call.compress_ratio, call.slot_mapping)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
