#!/usr/bin/env python3
"""How fast forked children make CUDA contexts: the bound on what a crash or
a device fault of a --kernel-cmd provider costs on cuda (docs/benchmarks.md,
"Providers that crash and fault"). A process that made a CUDA context
cannot hand it on: after a crash (the process is gone) or a device-side
assert (its context is lost) the next process, however it is started, makes
a context of its own. python/slotguard's fork server forks its children
from a parent that imported torch and Triton without touching CUDA, as
here; each child makes its context (torch.cuda.init and a first
allocation, as a standby's warm-up does).

    python3 scripts/bench-fork-contexts.py [--serial N] [--waves 16,48]

Prints one "BENCH" line per measurement: the serial time of one context,
and contexts per second when W children make theirs at once.
"""
import argparse
import os
import sys
import time

os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
import torch  # noqa: E402

try:
    import triton  # noqa: F401,E402 (imported as a provider's parent has it)
except ImportError:
    pass


def child():
    torch.cuda.init()
    torch.empty(256, dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()


def fork_children(n):
    """Forks n children that each make a context; seconds until all are done, and the failures."""
    t0 = time.perf_counter()
    pids = []
    for _ in range(n):
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                child()
            except BaseException:  # noqa: BLE001
                code = 1
            os._exit(code)
        pids.append(pid)
    failed = 0
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        failed += not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0)
    return time.perf_counter() - t0, failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--serial", type=int, default=8, help="children one after another (default 8)")
    ap.add_argument("--waves", default="16,48", help="children at once, comma-separated (default 16,48)")
    args = ap.parse_args()
    if torch.cuda.is_initialized():
        sys.exit("bench-fork-contexts: CUDA is initialized in the parent; a forked child could not use it")
    if not torch.cuda.is_available():
        sys.exit("bench-fork-contexts: no GPU")
    times = []
    for _ in range(args.serial):
        t, failed = fork_children(1)
        if failed:
            sys.exit("bench-fork-contexts: a child could not make a context")
        times.append(t)
    times.sort()
    print("BENCH fork-context serial: %.0f ms median, %.0f ms min, %.0f ms max over %d children one at a time "
          "(fork, torch.cuda.init, first allocation, exit)"
          % (1000 * times[len(times) // 2], 1000 * times[0], 1000 * times[-1], len(times)))
    for w in [int(x) for x in args.waves.split(",") if x]:
        t, failed = fork_children(w)
        print("BENCH fork-context wave %d: %.2f s for %d children at once = %.1f contexts/s (%d failed)"
              % (w, t, w, w / t, failed))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
