#!/usr/bin/env python3
"""A vllm_lightning provider for `slotguard --kernel-cmd`: vLLM's linear-attention state-slot producer in numpy.

    slotguard check --backend host --kernel-cmd "python3 examples/python/families/vllm_lightning_provider.py" \\
        scenarios/engines/vllm_lightning/

Written from the description, families/vllm_lightning.json:
LinearAttentionMetadataBuilder takes column 0 of mamba_get_block_table_tensor
with no padding replacement, so padded rows carry the runner's 0 (the same
producer as vllm_mamba_provider.py). Whether the decode kernel skips that 0
is the consumers' business: slotguard judges it from the description (the
engine's kernel skips only -1: the engine_81be2e09 scenarios find it).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vllm_mamba_provider import serve  # noqa: E402

if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    serve("vllm_lightning", "numpy-vllm-lightning")
