#!/usr/bin/env python3
"""An eagle_step_chain provider for `slotguard --kernel-cmd`: the null-safe mapping in numpy.

    slotguard check --backend host --kernel-cmd "python3 examples/python/families/eagle_step_chain_provider.py" \\
        scenarios/engines/eagle_step_chain/
    slotguard fuzz --backend host --family eagle_step_chain \\
        --kernel-cmd "python3 examples/python/families/eagle_step_chain_provider.py" --runs 300

Written from the description, families/eagle_step_chain.json (docs/families.md).
EAGLE's chained draft steps: request r's token i is its draft step i + 1,
at its true (unclamped) input position; the mapping of each token is one
launch of the step kernel, null-safe:
- the token's next position is c = positions[t] + 1; c >= max_model_len: PAD;
- column c / block_size of the request's row (a persistent table:
  idx_mapping[r]); a dummy request (idx_mapping -1) is PAD;
- a column past the row, or an entry <= 0, is PAD (the engine's kernel
  clamps the column to the table's last one and writes through 0: that is
  the description's engine variant, not this provider);
- slot = entry * block_size + c % block_size; padding tokens PAD (-1).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import slotguard  # noqa: E402


# Each token's mapping is one launch of the step kernel: eagle_step's own.
from eagle_step_provider import eagle_step  # noqa: E402


provider = slotguard.Provider("numpy-eagle-step-chain", arrays="numpy")


@provider.family("eagle_step_chain")
def run(call):
    eagle_step(call.request_of_token, call.positions, call.idx_mapping, call.rows_by_idx_mapping, call.block_table,
               call.block_table_row_stride, call.block_table_width, call.num_real_tokens, call.block_size,
               call.max_model_len, call.slot_mapping)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
