#!/usr/bin/env python3
"""A vllm_hisparse_compressed provider for `slotguard --kernel-cmd`: the derive in numpy.

    slotguard check --backend host --kernel-cmd "python3 examples/python/families/vllm_hisparse_compressed_provider.py" \\
        scenarios/engines/vllm_hisparse_compressed/
    slotguard fuzz --backend host --family vllm_hisparse_compressed --writers \\
        --kernel-cmd "python3 examples/python/families/vllm_hisparse_compressed_provider.py" --runs 300

Written from the engine's kernel (vLLM HiSparse at d10b2d53,
vllm/v1/kv_offload/sparse/hisparse_runtime.py:74-93) and the description,
families/vllm_hisparse_compressed.json (docs/families.md):

- the group reads no table: its slot per token comes from the source
  group's slot at the same token (call.common_slot_mapping, the output the
  family's gate reads) and from the position;
- a token keeps a slot when its source is >= 0 and (pos + 1) %
  compress_ratio == 0; then slot = src // L * S + src % L // compress_ratio
  (L = logical_block_size, S = storage_block_size); every other token is -1.

Triton's integer // and % truncate towards zero, as C's do; numpy's floor.
The provider computes them as Triton does (c_div, c_mod), so that it gives
what the engine's kernel gives even where the source test did not hold.

--planted drops the source test (valid = (pos + 1) % compress_ratio == 0):
a PAD source (-1) at a compression boundary then maps to -1 // L * S +
(-1 % L) // cr, which truncates to slot 0 for cr > 1: block 0. The curated
scenarios' PAD sources sit at positions that are boundaries only in
fixed-v2-dummy-pad-source-at-boundaries.json, which catches it; `fuzz` finds it
from nothing (a dummy or a padding token at a boundary).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402

PLANTED = "--planted" in sys.argv[1:]


def c_div(a, b):
    """Integer division truncating towards zero (Triton's and C's //)."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def c_mod(a, b):
    """The remainder of c_div (the sign of a)."""
    return a - c_div(a, b) * b


def compress(source, positions, logical_block_size, storage_block_size, compress_ratio, out, test_source=True):
    """[cpu] hisparse_runtime.py:74-93 over the first len(out) tokens."""
    n = min(len(source), len(positions), len(out))
    out[:] = -1                                                      # L109: out.fill_(-1)
    src = np.asarray(source[:n], dtype=np.int64)
    pos = np.asarray(positions[:n], dtype=np.int64)
    valid = c_mod(pos + 1, compress_ratio) == 0                      # L88
    if test_source:
        valid &= src >= 0
    compressed = (c_div(src, logical_block_size) * storage_block_size
                  + c_div(c_mod(src, logical_block_size), compress_ratio))  # L89-92
    out[:n] = np.where(valid, compressed, -1)                        # L93


provider = slotguard.Provider("numpy-vllm-hisparse-compressed", arrays="numpy")


@provider.family("vllm_hisparse_compressed")
def run(call):
    if call.common_slot_mapping is None:
        raise slotguard.Skip("no source group: a derived group's slots come from its source's")
    compress(call.common_slot_mapping, call.positions, call.logical_block_size, call.storage_block_size,
             call.compress_ratio, call.slot_mapping, test_source=not PLANTED)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
