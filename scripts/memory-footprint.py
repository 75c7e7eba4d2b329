#!/usr/bin/env python3
"""What checking a scenario takes against slotguard's estimate of it
(--max-memory-mib, docs/limits.md): for a few shapes, the estimate (the
smallest budget that loads the file, bisected), the peak RSS of the largest
of slotguard's processes (itself or a worker), and on --backend gpu the peak device memory
(nvidia-smi, polled every 20 ms). Standard library only.

  scripts/memory-footprint.py build/slotguard host
  scripts/memory-footprint.py build/slotguard gpu
"""
import json, os, subprocess, sys, tempfile, threading, time

SG, BACKEND = sys.argv[1], sys.argv[2]
PAGED = {"name": "p", "kernel": "paged", "block_size": 16, "block_table": [[1]]}
RING = {"name": "c", "kernel": "compressor_ring", "capacity": 4, "ring_block_size": 4, "block_table": [[1, 2, 3, 4]]}
SHAPES = [  # name, tokens, groups, num_blocks, extra flags
    ("16M tokens, 1 paged", 1 << 24, [PAGED], 8, []),
    ("16M tokens, 1 compressor_ring", 1 << 24, [RING], 8, []),
    ("4M tokens, 4 paged", 1 << 22, [dict(PAGED, name="p%d" % i) for i in range(4)], 8, []),
    ("1M tokens, writers' pool 1 GiB", 1 << 20, [PAGED], 1 << 20, ["--writers"]),
]


def check(path, budget, flags):
    return subprocess.run([SG, "check", "--backend", BACKEND, "--quiet", "--max-memory-mib", str(budget), *flags, path],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode


def estimate(path, flags):
    """The smallest budget that loads the file, to 1%: loading stops at the
    first term over the budget, whose running total the error names."""
    err = subprocess.run([SG, "check", "--backend", BACKEND, "--max-memory-mib", "1", *flags, path],
                         capture_output=True, text=True).stderr + \
          subprocess.run([SG, "check", "--backend", BACKEND, "--max-memory-mib", "1", *flags, path],
                         capture_output=True, text=True).stdout
    lo = int(err.split("would take at least ")[1].split(" MiB")[0]) - 1
    hi = lo * 2 + 2
    while check(path, hi, flags) == 2:
        lo, hi = hi, hi * 2
    while hi - lo > max(1, hi // 100):
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if check(path, mid, flags) != 2 else (mid, hi)
    return hi


def device_mib():
    out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True).stdout.split()
    return int(out[0]) if out else 0


print("| shape | backend | estimate (MiB) | peak RSS, largest process (MiB) | peak device (MiB) |")
print("|---|---|---|---|---|")
with tempfile.TemporaryDirectory() as d:
    for name, tokens, groups, blocks, flags in SHAPES:
        path = os.path.join(d, "s.json")
        json.dump({"slotguard": 1, "name": "m", "num_blocks": blocks,
                   "batch": {"query_start_loc": [0, 1], "num_tokens": tokens}, "groups": groups}, open(path, "w"))
        est = estimate(path, flags)
        base, peak, done = (device_mib() if BACKEND == "gpu" else 0), [0], threading.Event()

        def poll():
            while not done.is_set():
                peak[0] = max(peak[0], device_mib() - base)
                time.sleep(0.02)
        if BACKEND == "gpu":
            threading.Thread(target=poll, daemon=True).start()
        # In a fresh process, whose children's peak is this run's alone
        # (slotguard and its workers: the largest of them).
        measured = subprocess.run(
            [sys.executable, "-c", "import resource, subprocess, sys; "
             "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode; "
             "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
             SG, "check", "--backend", BACKEND, "--quiet", "--max-memory-mib", str(est), *flags, path],
            capture_output=True, text=True).stdout.split()
        done.set()
        rc, rss = int(measured[0]), int(measured[1]) // 1024
        print("| %s%s | %s | %d | %d | %s |" % (name, " (exit %d)" % rc if rc else "", BACKEND, est, rss,
                                               peak[0] if BACKEND == "gpu" else "-"))
        sys.stdout.flush()
