#!/usr/bin/env python3
"""A flashinfer_append provider for `slotguard --kernel-cmd`: FlashInfer's append, bounded, in numpy.

    slotguard check --backend host --kernel-cmd "python3 examples/python/families/flashinfer_append_provider.py" \\
        scenarios/engines/flashinfer_append/
    slotguard fuzz --backend host --family flashinfer_append \\
        --kernel-cmd "python3 examples/python/families/flashinfer_append_provider.py" --runs 300

Written from the description, families/flashinfer_append.json
(docs/families.md). The family's rows are ragged (CSR): request r's row is
its slice of FlashInfer's kv_indices. slotguard hands the rows over as a
padded table (block_table, block_table_row_stride) with each row's own width
(block_table_row_widths); the provider builds FlashInfer's arguments from
them, as a caller of append_paged_kv_cache does:

- kv_indptr = [0, w0, w0 + w1, ...], kv_indices = the rows' entries packed;
- kv_last_page_len[b] = seq_lens[b] - (pages - 1) * page_size (0 for a
  request with no pages): FlashInfer's append does not read it, it is built
  for completeness;
- batch_indices[t] = the token's request, positions[t] = its position.

The append itself, per token, then writes page
kv_indices[kv_indptr[b] + pos / page_size] at entry pos % page_size, i.e.
slot = page * page_size + pos % page_size. Unlike FlashInfer's kernel it
stops at the request's own pages (page_iter < kv_indptr[b + 1]) and skips a
-1 page id. FlashInfer has no null page: page 0 is a page like any other.

The output is the slot each token is appended at, and -1 for every token
the provider does not append: padding tokens (from query_start_loc[R]),
dummy requests (idx_mapping -1), positions past the request's pages, a -1
page id.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402


def flashinfer_arguments(table, row_stride, row_widths, seq_lens, page_size):
    """kv_indptr, kv_indices, kv_last_page_len from slotguard's ragged rows."""
    widths = np.asarray(row_widths, dtype=np.int64)
    kv_indptr = np.zeros(len(widths) + 1, dtype=np.int64)
    np.cumsum(widths, out=kv_indptr[1:])
    parts = [table[b * row_stride: b * row_stride + w] for b, w in enumerate(widths)]
    kv_indices = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)
    kv_last_page_len = np.where(widths > 0, np.asarray(seq_lens, np.int64) - (widths - 1) * page_size, 0)
    return kv_indptr, kv_indices, kv_last_page_len


def append_slots(kv_indptr, kv_indices, batch_indices, positions, page_size, out):
    """The slot each token is appended at; -1 where the token is not appended
    (batch index -1, a position past its request's pages, a -1 page id)."""
    out[:] = -1
    t = np.nonzero(batch_indices >= 0)[0]
    b = batch_indices[t]
    pos = positions[t]
    page_iter = kv_indptr[b] + pos // page_size
    keep = page_iter < kv_indptr[b + 1]
    t, pos, page_iter = t[keep], pos[keep], page_iter[keep]
    page = kv_indices[page_iter]
    keep = page >= 0
    out[t[keep]] = page[keep] * page_size + pos[keep] % page_size


provider = slotguard.Provider("numpy-flashinfer-append", arrays="numpy")


@provider.family("flashinfer_append")
def run(call):
    p = call.page_size
    kv_indptr, kv_indices, _ = flashinfer_arguments(call.block_table, call.block_table_row_stride,
                                                    call.block_table_row_widths, call.seq_lens, p)
    # The tokens appended: those of live requests (a dummy appends nothing); padding tokens are none's.
    r = call.request_of_token.astype(np.int64)
    batch_indices = np.full(call.num_tokens, -1, dtype=np.int64)
    owned = r >= 0
    batch_indices[owned] = np.where(call.idx_mapping[r[owned]] >= 0, r[owned], -1)
    append_slots(kv_indptr, kv_indices, batch_indices, call.positions, p, call.slot_mapping)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
