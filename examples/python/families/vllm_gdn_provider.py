#!/usr/bin/env python3
"""A vllm_gdn provider for `slotguard --kernel-cmd`: vLLM's GDN state-index producer in numpy.

    slotguard check --backend host --kernel-cmd "python3 examples/python/families/vllm_gdn_provider.py" \\
        scenarios/engines/vllm_gdn/

Written from the description, families/vllm_gdn.json: GDNAttentionMetadataBuilder
takes column 0 of mamba_get_block_table_tensor, the same producer as vLLM's
Mamba builder (vllm_mamba_provider.py), padded rows carrying 0.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vllm_mamba_provider import serve  # noqa: E402

if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    serve("vllm_gdn", "numpy-vllm-gdn")
