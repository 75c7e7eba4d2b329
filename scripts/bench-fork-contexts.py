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

    python3 scripts/bench-fork-contexts.py [--serial N] [--waves 16,48] [--driver]

Prints one "BENCH" line per measurement: the serial time of one context
(with where it goes: the driver's initialization, the context, the first
allocation), and contexts per second when W children make theirs at once.
With --driver the children call the CUDA driver itself (libcuda through
ctypes: cuInit, cuDevicePrimaryCtxRetain, cuMemAlloc) instead of torch,
which says how much of the cost is the driver's, which no provider avoids.
"""
import argparse
import ctypes
import os
import struct
import sys
import time

os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
import torch  # noqa: E402

try:
    import triton  # noqa: F401,E402 (imported as a provider's parent has it)
except ImportError:
    pass


def torch_child():
    """A provider's child: torch's initialization, then a first allocation. The phases' seconds."""
    t0 = time.perf_counter()
    torch.cuda.init()
    t1 = time.perf_counter()
    torch.empty(256, dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    return (0.0, t1 - t0, t2 - t1)


def driver_child():
    """The driver alone: cuInit, the device's primary context, a first allocation. The phases' seconds."""
    cuda = ctypes.CDLL("libcuda.so.1")

    def check(what, rc):
        if rc != 0:
            raise RuntimeError("%s: CUresult %d" % (what, rc))

    t0 = time.perf_counter()
    check("cuInit", cuda.cuInit(0))
    device = ctypes.c_int()
    check("cuDeviceGet", cuda.cuDeviceGet(ctypes.byref(device), 0))
    t1 = time.perf_counter()
    context = ctypes.c_void_p()
    check("cuDevicePrimaryCtxRetain", cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device))
    check("cuCtxSetCurrent", cuda.cuCtxSetCurrent(context))
    t2 = time.perf_counter()
    pointer = ctypes.c_uint64()
    check("cuMemAlloc", cuda.cuMemAlloc_v2(ctypes.byref(pointer), ctypes.c_size_t(256)))
    check("cuCtxSynchronize", cuda.cuCtxSynchronize())
    t3 = time.perf_counter()
    return (t1 - t0, t2 - t1, t3 - t2)


def fork_children(n, child):
    """Forks n children that each make a context; seconds until all are done (their exits included),
    the failures, and each child's phases."""
    t0 = time.perf_counter()
    pids = []
    for _ in range(n):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            code = 0
            try:
                os.write(write, struct.pack("3d", *child()))
            except BaseException as e:  # noqa: BLE001
                sys.stderr.write("bench-fork-contexts: child: %s\n" % e)
                code = 1
            os._exit(code)
        os.close(write)
        pids.append((pid, read))
    failed = 0
    phases = []
    for pid, read in pids:
        data = os.read(read, 24)
        os.close(read)
        _, status = os.waitpid(pid, 0)
        ok = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and len(data) == 24
        failed += not ok
        if ok:
            phases.append(struct.unpack("3d", data))
    return time.perf_counter() - t0, failed, phases


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--serial", type=int, default=8, help="children one after another (default 8)")
    ap.add_argument("--waves", default="16,48", help="children at once, comma-separated (default 16,48)")
    ap.add_argument("--driver", action="store_true",
                    help="children call the CUDA driver through ctypes, not torch")
    args = ap.parse_args()
    child = driver_child if args.driver else torch_child
    label = "driver-context" if args.driver else "fork-context"
    what = ("fork, cuInit, cuDevicePrimaryCtxRetain, cuMemAlloc, exit" if args.driver
            else "fork, torch.cuda.init, first allocation, exit")
    if torch.cuda.is_initialized():
        sys.exit("bench-fork-contexts: CUDA is initialized in the parent; a forked child could not use it")
    if not torch.cuda.is_available():
        sys.exit("bench-fork-contexts: no GPU")
    times, phases = [], []
    for _ in range(args.serial):
        t, failed, p = fork_children(1, child)
        if failed:
            sys.exit("bench-fork-contexts: a child could not make a context")
        times.append(t)
        phases += p
    times.sort()

    def median_ms(k):
        values = sorted(p[k] for p in phases)
        return 1000 * values[len(values) // 2]

    if args.driver:
        inside = ("%.0f ms cuInit, %.0f ms the primary context, %.0f ms the first allocation"
                  % (median_ms(0), median_ms(1), median_ms(2)))
    else:
        inside = "%.0f ms torch.cuda.init, %.0f ms the first allocation" % (median_ms(1), median_ms(2))
    print("BENCH %s serial: %.0f ms median, %.0f ms min, %.0f ms max over %d children one at a time "
          "(%s); medians inside a child: %s"
          % (label, 1000 * times[len(times) // 2], 1000 * times[0], 1000 * times[-1], len(times), what, inside))
    for w in [int(x) for x in args.waves.split(",") if x]:
        t, failed, _ = fork_children(w, child)
        print("BENCH %s wave %d: %.2f s for %d children at once = %.1f contexts/s (%d failed)"
              % (label, w, t, w, w / t, failed))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
