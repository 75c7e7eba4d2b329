#!/usr/bin/env python3
"""A vllm_mamba_postcopy provider for `slotguard --kernel-cmd`: vLLM's Mamba post-copy list in numpy.

    slotguard check --backend host --kernel-cmd "python3 examples/python/families/vllm_mamba_postcopy_provider.py" \\
        scenarios/engines/vllm_mamba_postcopy/
    slotguard fuzz --backend host --family vllm_mamba_postcopy \\
        --kernel-cmd "python3 examples/python/families/vllm_mamba_postcopy_provider.py" --runs 300

Written from vLLM 81be2e09's postprocess_mamba_fused_kernel (V2 call:
HAS_IDX_MAPPING, PRECOMPUTED_NEW_COMPUTED; vllm/v1/worker/mamba_utils.py:
210-277) and the counts its caller hands it. Per batch row b, two operations
(op 0 the temporal state, op 1 the conv state; outputs: the source blocks,
then the destination blocks, -1 where an operation is not done):

- a row whose idx_mapping is negative returns (L217-220);
- the advanced count: num_computed + q - num_rejected, with num_rejected =
  1 + num_draft - num_sampled (gpu/input_batch.py:453-456, 533-538) and
  num_accepted = max(num_sampled, 1); so new = seq_len - 1 - num_draft +
  num_accepted, where num_draft is q - 1 for a decode and 0 for a prefill
  chunk (the per-request inputs call.num_accepted and call.prefill);
- running = new - num_accepted + 1 (L230); aligned = new // B * B (L238);
  nothing unless aligned >= running (L240);
- bias = aligned - running, dest = aligned // B - 1 (L246-247); src is the
  running column preprocess left, cdiv(seq_len, B) - 1 (L318-320);
- nothing when src == dest and bias == 0 (L255);
- op 0 copies row[src + bias] into row[dest] (L122, L78), op 1 row[src]
  into row[dest] (L107);
- null-safe, as the description (the engine has no such test: variant
  engine_81be2e09): an operation whose source or destination is the null
  block (0) is not done;
- a column outside the row is not read (the engine's allocator keeps every
  column it reads inside the row).

--stale-accepted plants a bug: num_accepted is taken as 1 for every request
(a provider reading a stale or reset count), so it misses every copy that
accepted drafts cause, and copies where a count of 1 would.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402

STALE_ACCEPTED = "--stale-accepted" in sys.argv[1:]

provider = slotguard.Provider("numpy-vllm-mamba-postcopy", arrays="numpy")


def cdiv(a, b):
    return -(-a // b)


def tdiv(a, b):
    """C's (and Triton's) truncating integer division, for a negative count too."""
    return np.sign(a) * (np.abs(a) // b)


@provider.family("vllm_mamba_postcopy")
def run(call):
    src_out, dst_out = call.outputs
    src_out[:] = -1
    dst_out[:] = -1
    n = call.num_reqs
    if n == 0:
        return
    q = np.diff(call.query_start_loc[:n + 1].astype(np.int64))
    seq = call.seq_lens[:n].astype(np.int64)
    bs = np.int64(call.block_size)
    accepted = np.ones(n, dtype=np.int64) if STALE_ACCEPTED else np.asarray(call.num_accepted, dtype=np.int64)[:n]
    prefill = np.asarray(call.prefill, dtype=np.int64)[:n]
    draft = np.where(prefill != 0, 0, np.maximum(q - 1, 0))
    new = seq - 1 - draft + accepted
    running = new - accepted + 1
    aligned = tdiv(new, bs) * bs
    bias = aligned - running
    dest = tdiv(aligned, bs) - 1
    src = cdiv(seq, bs) - 1
    idx = call.idx_mapping[:n].astype(np.int64)
    row = idx if call.rows_by_idx_mapping else np.arange(n)
    width = call.block_table_width
    live = (idx >= 0) & (row >= 0) & (aligned >= running) & ~((src == dest) & (bias == 0))
    for op, col in ((0, src + bias), (1, src)):
        ok = live & (col >= 0) & (col < width) & (dest >= 0) & (dest < width)
        r = np.arange(n)[ok]
        base = row[ok] * call.block_table_row_stride
        src_blk = call.block_table[base + col[ok]].astype(np.int64)
        dst_blk = call.block_table[base + dest[ok]].astype(np.int64)
        real = (src_blk != 0) & (dst_blk != 0)  # nothing from or into the null block
        src_out[r[real] * 2 + op] = src_blk[real]
        dst_out[r[real] * 2 + op] = dst_blk[real]


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
