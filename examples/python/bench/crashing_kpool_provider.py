#!/usr/bin/env python3
"""The kpool_tail provider of examples/python/kpool_tail_provider.py (its
Triton kernel and launcher on cuda, numpy on cpu) made to crash its process
(SIGSEGV) for the crash benchmarks (scripts/bench-providers.sh) and tests:

  --crash-percent P   on P% of scenarios (default 3), picked by a hash of the
                      call's sizes, so a scenario that crashes it crashes it
                      again when sent again (a crash of the scenario, not of
                      the process's history)
  --crash-every N     instead on every Nth call of the process (a crash that
                      does not recur when its scenario is sent again)
  --crash-on-no-requests
                      instead on every batch with no requests (num_reqs == 0,
                      about 4% of a kpool_tail campaign's): a crash of a
                      class of batches, as real launchers crash on shapes
                      (fuzz's crash classes defer them once it recurs)
  --start-seconds S   sleep S seconds when it starts (0.25: a CUDA context's
                      cost, for the host benchmark of crash classes)
  --log PATH          appends "start" when it starts and "crash" before each crash

    slotguard fuzz --backend gpu --kernel-cmd "python3 examples/python/bench/crashing_kpool_provider.py" ...
"""
import argparse
import importlib.util
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
import slotguard  # noqa: E402


def load_kpool():
    """examples/python/kpool_tail_provider.py as a module (its launcher and host path)."""
    spec = importlib.util.spec_from_file_location("kpool_tail_provider", os.path.join(HERE, "..", "kpool_tail_provider.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def crashes(call, percent):
    """Whether this call's scenario is one of the P% that crash: a hash of its sizes."""
    h = (call.num_tokens * 1000003) ^ (call.num_reqs * 7919) ^ (call.num_actual_tokens * 104729) ^ \
        (call.block_table_rows * 131) ^ (call.kpool * 31)
    h = (h * 2654435761) & 0xFFFFFFFF
    return h % 10000 < percent * 100


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--crash-percent", type=float, default=3.0)
    parser.add_argument("--crash-every", type=int, default=0)
    parser.add_argument("--crash-on-no-requests", action="store_true")
    parser.add_argument("--start-seconds", type=float, default=0.0)
    parser.add_argument("--log", default=os.environ.get("CRASHING_PROVIDER_LOG", ""))
    args = parser.parse_args()
    kpool = load_kpool()

    def log(line):
        if args.log:
            with open(args.log, "a") as f:
                f.write(line + "\n")

    if args.start_seconds > 0:
        time.sleep(args.start_seconds)
    log("start")
    provider = slotguard.Provider("crashing-kpool-tail")
    calls = [0]

    @provider.family("kpool_tail")
    def run(call):
        calls[0] += 1
        if args.crash_on_no_requests:
            crash = call.num_reqs == 0
        elif args.crash_every:
            crash = calls[0] % args.crash_every == 0
        else:
            crash = crashes(call, args.crash_percent)
        if crash:
            log("crash")
            sys.stderr.flush()
            os.kill(os.getpid(), signal.SIGSEGV)
        kpool.run(call)

    provider.serve()


if __name__ == "__main__":
    main()
