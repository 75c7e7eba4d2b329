#!/usr/bin/env python3
"""A kpool_tail provider for `slotguard --kernel-cmd`: a Triton kernel behind its
own launcher, with the torch fallback engines use for an empty batch.

    slotguard check --backend gpu  --kernel-cmd "python3 examples/python/kpool_tail_provider.py" scenarios/
    slotguard check --backend host --kernel-cmd "python3 examples/python/kpool_tail_provider.py" scenarios/
    slotguard fuzz  --backend gpu  --kernel-cmd "python3 examples/python/kpool_tail_provider.py" --time 300 -j 8

kpool_tail (docs/families.md, docs/families.md, kpool_tail): only column 0 of a request's row is
read; a positive entry b maps token t to b * kpool + pos mod kpool, 0 or -1
is PAD (-1). Tokens between query_start_loc[R] and num_actual_tokens belong
to the last request; tokens from num_actual_tokens copy slot_mapping_in bit
for bit. With a persistent table (rows_by_idx_mapping) request r reads row
idx_mapping[r], and a dummy (idx_mapping -1) reads no row: PAD.

What runs where:
  SLOTGUARD_DEVICE=cuda (--backend gpu): the Triton kernel for num_reqs >= 1,
      torch ops for num_reqs == 0 (the engine's route). torch and Triton are
      imported only here.
  SLOTGUARD_DEVICE=cpu (--backend host, CI): a numpy path (pure Python when
      numpy is missing), the same semantics.
Needs PYTHONPATH to hold python/ (this file adds the repository's python/ itself).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import slotguard  # noqa: E402

CUDA = slotguard.device() == "cuda"
BLOCK = 256

# ----------------------------------------------------------------------------- cuda only
if CUDA:
    import torch
    import triton
    import triton.language as tl
    jit = triton.jit
else:  # stand-ins so that the kernel below can be defined (never launched) on cpu
    torch = triton = None

    class tl(object):
        constexpr = int

    def jit(*args, **kwargs):
        return args[0] if args and callable(args[0]) else (lambda fn: fn)

_SCALARS = ["row_stride", "rows_by_idx", "num_reqs", "num_actual_tokens", "pad_start", "num_tokens", "kpool"]


# [cuda] One program per request (the last one also owns the tokens up to
# num_actual_tokens), then one per BLOCK padding tokens, which copy
# slot_mapping_in through. Nothing is specialized on values or alignment: the
# arrays are views into one device copy of slotguard's message (8-aligned).
@jit(do_not_specialize=["out_ptr", "pos_ptr", "qsl_ptr", "idx_ptr", "bt_ptr", "slot_in_ptr"] + _SCALARS)
def kpool_tail_kernel(out_ptr, pos_ptr, qsl_ptr, idx_ptr, bt_ptr, slot_in_ptr, row_stride, rows_by_idx, num_reqs,
                      num_actual_tokens, pad_start, num_tokens, kpool, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid < num_reqs:
        begin = tl.load(qsl_ptr + pid)
        end = tl.load(qsl_ptr + pid + 1)
        end = tl.where(pid == num_reqs - 1, pad_start, end)
        row = tl.where(rows_by_idx != 0, tl.load(idx_ptr + pid), pid)
        b = tl.load(bt_ptr + tl.maximum(row, 0).to(tl.int64) * row_stride, mask=row >= 0, other=0).to(tl.int64)
        for start in range(begin, end, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            mask = offs < end
            pos = tl.load(pos_ptr + offs, mask=mask, other=0)
            ring = pos % kpool
            ring = tl.where(ring < 0, ring + kpool, ring)
            slot = tl.where(b > 0, b * kpool + ring, -1)
            keep = tl.load(slot_in_ptr + offs, mask=mask & (offs >= num_actual_tokens), other=-1)
            tl.store(out_ptr + offs, tl.where(offs < num_actual_tokens, slot, keep), mask=mask)
    else:
        offs = pad_start + (pid - num_reqs) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < num_tokens
        tl.store(out_ptr + offs, tl.load(slot_in_ptr + offs, mask=mask, other=-1), mask=mask)


def kpool_tail_launch(slot_mapping, positions, query_start_loc, idx_mapping, block_table, slot_mapping_in,
                      row_stride, rows_by_idx, num_reqs, num_real_tokens, num_actual_tokens, num_tokens, kpool):
    """[cuda] The engine's launcher: torch for an empty batch, Triton otherwise."""
    n_act = min(num_actual_tokens, num_tokens)
    if num_reqs == 0:
        # The fallback engines route num_reqs == 0 to: no request to own a token.
        slot_mapping[:n_act].fill_(-1)
        slot_mapping[n_act:].copy_(slot_mapping_in[n_act:])
        return
    pad_start = min(max(num_real_tokens, n_act), num_tokens)
    grid = (num_reqs + triton.cdiv(num_tokens - pad_start, BLOCK),)
    kpool_tail_kernel[grid](slot_mapping, positions, query_start_loc, idx_mapping, block_table, slot_mapping_in,
                            row_stride, rows_by_idx, num_reqs, n_act, pad_start, num_tokens, kpool, BLOCK=BLOCK)


# ----------------------------------------------------------------------------- cpu only
def kpool_tail_host(call):
    """[cpu] numpy (vectorized over tokens), or pure Python on memoryviews."""
    T = call.num_tokens
    n_act = min(call.num_actual_tokens, T)
    out = call.slot_mapping
    R = call.num_reqs
    if np is None:
        return _kpool_tail_python(call, out, T, n_act, R)
    out[n_act:] = call.slot_mapping_in[n_act:]
    if n_act == 0:
        return
    if R == 0:
        out[:n_act] = -1
        return
    t = np.arange(n_act)
    r = np.searchsorted(call.query_start_loc, t, side="right") - 1   # the last r with qsl[r] <= t
    np.minimum(r, R - 1, out=r)                                       # ... clamped to the last request
    rows = (call.idx_mapping[r] if call.rows_by_idx_mapping else r).astype(np.int64)
    live = rows >= 0
    b = np.where(live, call.block_table[np.where(live, rows, 0) * call.block_table_row_stride], 0).astype(np.int64)
    k = call.kpool
    out[:n_act] = np.where(b > 0, b * k + call.positions[:n_act] % k, -1)


def _kpool_tail_python(call, out, T, n_act, R):
    sin = call.slot_mapping_in
    for t in range(n_act, T):
        out[t] = sin[t]
    if R == 0:
        for t in range(n_act):
            out[t] = -1
        return
    qsl, pos, bt, k = call.query_start_loc, call.positions, call.block_table, call.kpool
    idx = call.idx_mapping
    stride = call.block_table_row_stride
    r = 0
    for t in range(n_act):
        while r + 1 < R and qsl[r + 1] <= t:
            r += 1
        row = idx[r] if call.rows_by_idx_mapping else r
        b = bt[row * stride] if row >= 0 else 0
        out[t] = b * k + pos[t] % k if b > 0 else -1


try:
    import numpy as np
except ImportError:
    np = None

# ----------------------------------------------------------------------------- the provider
provider = slotguard.Provider("python-kpool-tail")


@provider.family("kpool_tail")
def run(call):
    if CUDA and call.arrays == "torch-cuda":
        kpool_tail_launch(call.slot_mapping, call.positions, call.query_start_loc, call.idx_mapping, call.block_table,
                          call.slot_mapping_in, call.block_table_row_stride, call.rows_by_idx_mapping, call.num_reqs,
                          call.num_real_tokens, call.num_actual_tokens, call.num_tokens, call.kpool)
    else:
        kpool_tail_host(call)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
