#!/usr/bin/env python3
"""A vllm_parallel_drafting provider for `slotguard --kernel-cmd`: the mapping in numpy.

    slotguard check --backend host --writers \\
        --kernel-cmd "python3 examples/python/families/vllm_parallel_drafting_provider.py" \\
        scenarios/engines/vllm_parallel_drafting/
    slotguard fuzz --backend host --writers --family vllm_parallel_drafting \\
        --kernel-cmd "python3 examples/python/families/vllm_parallel_drafting_provider.py" --runs 300

Written from the description, families/vllm_parallel_drafting.json
(docs/families.md), as vLLM's compute_new_slot_mapping does it
(vllm/v1/spec_decode/utils.py:241-270):

- token t of request r (its index i in r's extended range of q tokens)
  clamps its position to max_model_len - 1 and reads column
  clamped // block_size of row r (a persistent table: idx_mapping[r]), with
  no bound: a column past the row reads on into the next row of the flat
  table, which slotguard's row_bounds judges; a dummy (idx_mapping -1) is
  PAD;
- slot = entry * block_size + clamped % block_size;
- PAD where pos >= max_model_len, and PAD for the last num_rejected[r]
  tokens of r (i >= q - num_rejected[r]): the rejected-token mask, built
  from the per-request input num_rejected (call.num_rejected);
- tokens past the extended batch are PAD.

--no-reject-mask plants a bug: the mask is dropped (what a provider that
forgets num_rejected computes). Only a batch whose num_rejected is not 0
shows it: the rejected token then writes its row's column 0.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402

NO_REJECT_MASK = "--no-reject-mask" in sys.argv[1:]


def parallel_drafting(query_start_loc, positions, num_rejected, idx_mapping, rows_by_idx_mapping, table, row_stride,
                      table_elements, num_real_tokens, block_size, max_model_len, out):
    """[cpu] Fills out (int64 [num_tokens]) with the drafter's slots."""
    out[:] = -1
    qsl = query_start_loc.astype(np.int64)
    q = np.diff(qsl)
    r = np.repeat(np.arange(len(q)), q)
    t = np.arange(num_real_tokens)
    i = t - qsl[r]
    pos = positions[:num_real_tokens].astype(np.int64)
    clamped = np.minimum(pos, max_model_len - 1)
    idx = idx_mapping[r].astype(np.int64)
    row = idx if rows_by_idx_mapping else r
    flat = row * row_stride + clamped // block_size
    keep = (idx >= 0) & (row >= 0) & (pos < max_model_len) & (flat < table_elements)
    if not NO_REJECT_MASK:
        keep &= i < q[r] - num_rejected[r]
    t, flat, clamped = t[keep], flat[keep], clamped[keep]
    entry = table[flat].astype(np.int64)
    out[t] = entry * block_size + clamped % block_size


provider = slotguard.Provider("numpy-vllm-parallel-drafting", arrays="numpy")


@provider.family("vllm_parallel_drafting")
def run(call):
    parallel_drafting(call.query_start_loc, call.positions, np.asarray(call.num_rejected, dtype=np.int64),
                      call.idx_mapping, call.rows_by_idx_mapping, call.block_table, call.block_table_row_stride, call.block_table_elements,
                      call.num_real_tokens, call.block_size, call.max_model_len, call.slot_mapping)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
