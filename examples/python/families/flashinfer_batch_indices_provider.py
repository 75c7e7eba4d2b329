#!/usr/bin/env python3
"""A flashinfer_batch_indices provider for `slotguard --kernel-cmd`: FlashInfer's append over the caller's batch_indices, bounded, in numpy.

    slotguard check --backend host --writers \\
        --kernel-cmd "python3 examples/python/families/flashinfer_batch_indices_provider.py" \\
        scenarios/engines/flashinfer_batch_indices/
    slotguard fuzz --backend host --writers --family flashinfer_batch_indices \\
        --kernel-cmd "python3 examples/python/families/flashinfer_batch_indices_provider.py" --runs 300

Written from the description, families/flashinfer_batch_indices.json
(docs/families.md). The rows are ragged (CSR): request b's row is its slice
of FlashInfer's kv_indices (kv_indptr from block_table_row_widths, as
flashinfer_append_provider.py builds them). The token's request is the
per-token input batch_indices (call.batch_indices), FlashInfer's own array:
by default the token's query_start_loc request and -1 for a padded entry,
but a scenario may give any int32. Per token t (every one: no tail):

- b = batch_indices[t]; outside [0, B), or a dummy (idx_mapping[b] -1): not
  appended;
- page_iter = kv_indptr[b] + pos // page_size, not appended past b's own
  pages (page_iter >= kv_indptr[b + 1]);
- page = kv_indices[page_iter], not appended when negative;
- slot = page * page_size + pos % page_size.

The output is the slot each token is appended at, -1 where it is not.

--qsl-owner plants a bug: the token's request is taken from query_start_loc
(call.request_of_token) instead of batch_indices, what a provider that
rebuilds FlashInfer's arguments from the batch computes. Only a batch whose
batch_indices differ from query_start_loc's owners shows it.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402

QSL_OWNER = "--qsl-owner" in sys.argv[1:]


def append_slots(kv_indptr, kv_indices, live, batch_indices, positions, page_size, out):
    """[cpu] The slot each token is appended at (out, int64 [num_tokens]); -1
    where it is not (a batch index outside [0, B) or of a request not live, a
    position past its request's pages, a negative page id)."""
    out[:] = -1
    batch = min(len(kv_indptr) - 1, len(live))  # B: the requests
    b = np.asarray(batch_indices, dtype=np.int64)
    t = np.nonzero((b >= 0) & (b < batch))[0]
    b = b[t]
    keep = live[b]
    t, b = t[keep], b[keep]
    pos = positions[t].astype(np.int64)
    page_iter = kv_indptr[b] + pos // page_size
    keep = page_iter < kv_indptr[b + 1]
    t, pos, page_iter = t[keep], pos[keep], page_iter[keep]
    page = kv_indices[page_iter]
    keep = page >= 0
    out[t[keep]] = page[keep] * page_size + pos[keep] % page_size


provider = slotguard.Provider("numpy-flashinfer-batch-indices", arrays="numpy")


@provider.family("flashinfer_batch_indices")
def run(call):
    widths = np.asarray(call.block_table_row_widths, dtype=np.int64)
    kv_indptr = np.zeros(len(widths) + 1, dtype=np.int64)
    np.cumsum(widths, out=kv_indptr[1:])
    stride = call.block_table_row_stride
    parts = [call.block_table[b * stride: b * stride + w] for b, w in enumerate(widths)]
    kv_indices = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)
    live = np.asarray(call.idx_mapping, dtype=np.int64) >= 0
    batch_indices = call.request_of_token if QSL_OWNER else call.batch_indices
    append_slots(kv_indptr, kv_indices, live, batch_indices, call.positions, call.page_size, call.slot_mapping)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
