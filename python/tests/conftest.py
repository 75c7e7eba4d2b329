import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)

import slotguard  # noqa: E402


def _binary():
    try:
        found = slotguard.find_binary()
        # Absolute: pytester's tests run in folders of their own.
        return os.path.abspath(found) if os.sep in found else found
    except FileNotFoundError:
        return None


BINARY = _binary()
_HELP = None


def binary_help():
    global _HELP
    if _HELP is None:
        _HELP = subprocess.run([BINARY, "check", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True).stdout if BINARY else ""
    return _HELP


@pytest.fixture
def binary():
    if not BINARY or not os.access(BINARY, os.X_OK):
        pytest.skip("no slotguard binary (set SLOTGUARD=build/slotguard or build it with `make build`)")
    return BINARY


@pytest.fixture
def kernel_cmd_binary(binary):
    if "--kernel-cmd" not in binary_help():
        pytest.skip("%s has no --kernel-cmd yet (the C++ side of docs/provider-protocol.md): the end-to-end "
                    "provider tests run once it does" % binary)
    return binary


@pytest.fixture
def root():
    return ROOT


def py():
    """The interpreter these tests run under, for provider commands."""
    return sys.executable


def example(name):
    return "%s %s" % (py(), os.path.join(ROOT, "examples", "python", name))
