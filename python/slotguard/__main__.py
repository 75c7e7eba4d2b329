"""`python -m slotguard ARGS`: the slotguard binary (slotguard.find_binary())
with ARGS, its exit code passed through."""

import os
import sys

from .cli import find_binary


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        exe = find_binary()
    except FileNotFoundError as e:
        sys.stderr.write("slotguard: error: %s\n" % e)
        return 2
    sys.stdout.flush()
    os.execv(exe, [exe] + list(argv))


if __name__ == "__main__":
    sys.exit(main())
