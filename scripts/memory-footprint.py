#!/usr/bin/env python3
"""What checking a scenario takes against slotguard's estimate of it
(--max-memory-mib, docs/limits.md): for a few shapes, the estimate (the
smallest budget that loads the file, bisected), the peak RSS of slotguard
and its workers together (/proc, polled every 20 ms), and on --backend gpu the peak device memory
(nvidia-smi, polled every 20 ms). Standard library only.

  scripts/memory-footprint.py build/slotguard host
  scripts/memory-footprint.py build/slotguard gpu [SHAPE]   # only shapes whose name holds SHAPE

The --kernel-cmd shapes run examples/python/kpool_tail_provider.py under
this script's own interpreter (numpy makes it fast: run it with
/usr/bin/python3 on Debian).
"""
import json, os, subprocess, sys, tempfile, threading, time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PROVIDER = "%s %s" % (sys.executable, os.path.join(ROOT, "examples", "python", "kpool_tail_provider.py"))
os.environ["PYTHONPATH"] = os.path.join(ROOT, "python") + os.pathsep + os.environ.get("PYTHONPATH", "")

SG, BACKEND = sys.argv[1], sys.argv[2]
ONLY = sys.argv[3] if len(sys.argv) > 3 else ""
PAGED = {"name": "p", "kernel": "paged", "block_size": 16, "block_table": [[1]]}
RING = {"name": "c", "kernel": "compressor_ring", "capacity": 4, "ring_block_size": 4, "block_table": [[1, 2, 3, 4]]}
KPOOL = {"name": "k", "kernel": "kpool_tail", "kpool": 16, "block_table": [[1]]}
SHAPES = [  # name, tokens, groups, num_blocks, extra flags
    ("16M tokens, 1 paged", 1 << 24, [PAGED], 8, []),
    ("16M tokens, 1 compressor_ring", 1 << 24, [RING], 8, []),
    ("4M tokens, 4 paged", 1 << 22, [dict(PAGED, name="p%d" % i) for i in range(4)], 8, []),
    ("1M tokens, writers' pool 1 GiB", 1 << 20, [PAGED], 1 << 20, ["--writers"]),
    ("16M tokens, 1 paged, --isolate", 1 << 24, [PAGED], 8, ["--isolate"]),
    ("1M tokens, writers' pool 1 GiB, --isolate", 1 << 20, [PAGED], 1 << 20, ["--writers", "--isolate"]),
    # A provider process (not a worker): the groups it runs, and those it does not.
    ("16M tokens, 1 kpool_tail, --kernel-cmd (provided)", 1 << 24, [KPOOL], 8, ["--kernel-cmd", PROVIDER]),
    ("16M tokens, 1 paged, --kernel-cmd (not provided)", 1 << 24, [PAGED], 8, ["--kernel-cmd", PROVIDER]),
]


def check(path, budget, flags):
    return subprocess.run([SG, "check", "--backend", BACKEND, "--quiet", "--max-memory-mib", str(budget), *flags, path],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode


def estimate(path, flags):
    """The smallest budget that loads the file, to 1 MiB: loading stops at the
    first term over the budget, whose running total the error names."""
    err = subprocess.run([SG, "check", "--backend", BACKEND, "--max-memory-mib", "1", *flags, path],
                         capture_output=True, text=True).stderr + \
          subprocess.run([SG, "check", "--backend", BACKEND, "--max-memory-mib", "1", *flags, path],
                         capture_output=True, text=True).stdout
    lo = int(err.split("would take at least ")[1].split(" MiB")[0]) - 1
    hi = lo * 2 + 2
    while check(path, hi, flags) == 2:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if check(path, mid, flags) != 2 else (mid, hi)
    return hi


def tree_rss_kib(pid):
    """VmRSS of a process and all its descendants (slotguard and its workers), in KiB."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            for line in open("/proc/%d/status" % p):
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
            for task in os.listdir("/proc/%d/task" % p):
                todo += [int(c) for c in open("/proc/%d/task/%s/children" % (p, task)).read().split()]
        except OSError:
            pass
    return total


def device_mib():
    out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True).stdout.split()
    return int(out[0]) if out else 0


print("| shape | backend | estimate (MiB) | peak RSS, all processes (MiB) | peak device (MiB) |")
print("|---|---|---|---|---|")
with tempfile.TemporaryDirectory() as d:
    for name, tokens, groups, blocks, flags in SHAPES:
        if ONLY not in name:
            continue
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
        proc = subprocess.Popen([SG, "check", "--backend", BACKEND, "--quiet", "--max-memory-mib", str(est), *flags,
                                 path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rss_peak = 0
        while proc.poll() is None:
            rss_peak = max(rss_peak, tree_rss_kib(proc.pid))
            time.sleep(0.02)
        done.set()
        rc, rss = proc.returncode, rss_peak // 1024
        print("| %s%s | %s | %d | %d | %s |" % (name, " (exit %d)" % rc if rc else "", BACKEND, est, rss,
                                               peak[0] if BACKEND == "gpu" else "-"))
        sys.stdout.flush()
