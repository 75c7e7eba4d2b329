#!/usr/bin/env python3
"""A vllm_encoder_only provider for `slotguard --kernel-cmd`: the mapping in numpy.

    slotguard check --backend host --writers \\
        --kernel-cmd "python3 examples/python/families/vllm_encoder_only_provider.py" \\
        scenarios/engines/vllm_encoder_only/
    slotguard fuzz --backend host --writers --family vllm_encoder_only \\
        --kernel-cmd "python3 examples/python/families/vllm_encoder_only_provider.py" --runs 300

Written from the description, families/vllm_encoder_only.json
(docs/families.md). vLLM's encoder-only group has no cache, yet the runner
builds it a slot mapping:

- every real token whose request has a row (a persistent table: row
  idx_mapping[r]; a dummy reads its row like any request) and whose row has
  its one column holds slot 0 (torch.zeros);
- the padding tokens past the real ones hold -1.

Nothing writes through these slots, so slot 0 is no write: the description
says so (null_page "no_cache", writer "none").
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402


def encoder_only_slots(request_of_token, idx_mapping, rows_by_idx_mapping, width, num_real_tokens, out):
    """[cpu] Fills out (int64 [num_tokens]) with the group's slots."""
    out[:] = -1
    t = np.arange(num_real_tokens)
    r = request_of_token[:num_real_tokens].astype(np.int64)
    row = idx_mapping[r].astype(np.int64) if rows_by_idx_mapping else r
    keep = (row >= 0) & (width > 0)
    out[t[keep]] = 0


provider = slotguard.Provider("numpy-vllm-encoder-only", arrays="numpy")


@provider.family("vllm_encoder_only")
def run(call):
    encoder_only_slots(call.request_of_token, call.idx_mapping, call.rows_by_idx_mapping, call.block_table_width,
                       call.num_real_tokens, call.slot_mapping)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
