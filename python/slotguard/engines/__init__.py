"""An engine's own kernels behind `--kernel-cmd`, loaded from the user's engine tree: no provider to write.

    python -m slotguard.engines vllm --family dflash                 # the installed vllm package
    python -m slotguard.engines vllm --family dflash --source DIR    # a checkout (DIR/vllm/...)
    python -m slotguard.engines vllm --family dflash --check         # bind only: one line, exit 0 or 2
    python -m slotguard.engines vllm --list                          # the bindings: family, file, function

As a provider: slotguard fuzz --family dflash --conform \\
    --kernel-cmd "python3 -m slotguard.engines vllm --family dflash"   (docs/conformance.md)

Each binding (slotguard.engines.vllm.BINDINGS) compiles the named definitions of one engine file
(slotguard.engines.source: the file is parsed, not imported) and calls them as the engine's caller does.
"""

from .source import BindingError, EngineTree, find_tree
from .engine_provider import bind, make_provider, ENGINES

__all__ = ["BindingError", "EngineTree", "find_tree", "bind", "make_provider", "ENGINES"]
