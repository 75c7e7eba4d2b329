"""slotguard from Python: kernel providers for `--kernel-cmd`, the check and
fuzz commands as pytest helpers, and scenario capture from a serving run.

    slotguard.Provider, slotguard.Skip        write a provider (slotguard.provider)
    slotguard.check, slotguard.fuzz           run the CLI (slotguard.cli)
    slotguard.capture                         one engine step -> a scenario file (slotguard.capture)
    slotguard.pytest_plugin                   one test per scenario, regressions replayed first (pytest11)
    python -m slotguard ARGS                  the slotguard binary

See docs/python.md. The protocol itself is slotguard.protocol (standard library only).
"""

from .provider import Provider, Skip, Call, Step, device
from .cli import (check, fuzz, replay, find_binary, BinaryNotFound, Result, SlotguardError, Failure, UsageError,
                  SlotguardEnvironmentError)
from .capture import capture, scenario_dict
from . import protocol

# slotguard.EnvironmentError: exit 3 (an OSError, like the builtin it names).
EnvironmentError = SlotguardEnvironmentError

__all__ = ["Provider", "Skip", "Call", "Step", "device", "check", "fuzz", "replay", "find_binary", "BinaryNotFound",
           "Result", "SlotguardError", "Failure", "UsageError", "SlotguardEnvironmentError", "capture",
           "scenario_dict", "protocol"]
