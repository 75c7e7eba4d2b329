#!/usr/bin/env python3
"""The kpool_tail launcher of examples/python/kpool_tail_provider.py (its
Triton kernel on cuda, numpy on cpu) with the faults of vLLM's kpool
launcher as it is, for the fault benchmark (scripts/bench-providers.sh) and
the tests.

vLLM's launcher sends a batch with tokens but no requests (num_reqs == 0 <
num_actual_tokens) to a torch fallback that indexes the requests anyway.
Here, on such a batch:
  - on cpu, and on cuda for the batches a hash of their sizes picks (half of
    them by default, --assert-share), the fallback reads the first request's
    query start from a Python list of none: IndexError, a Python exception
    (that scenario's no_fault; the provider keeps serving);
  - on cuda, for the other batches, it gathers block-table entries at the
    request index on the device (torch indexing past the table's end): a
    device-side assert, raised at a later synchronization (the CUDA context
    is lost: the package answers and exits, slotguard swaps in its spare).

And on any batch, for the benchmarks and tests that want more of them:
  --exception-percent P  on P% of the other batches (by the hash), IndexError
  --assert-percent P     [cuda] on P% of them, the device-side assert above
  --illegal-percent P    [cuda] on P% of them, a Triton kernel that reads
                         2^40 bytes past its table: an illegal address
  --assert-share S       the share of the no-request batches that
                         device-assert on cuda (default 0.5; 0: all raise)
  --no-faults            none of this: the fallback handles those batches
                         (the same launcher's fault-free rate)
  --log PATH             appends "start", and "exception", "assert" or
                         "illegal" before each fault it plants

The hash is of the call's sizes, so a scenario that faults faults again
when slotguard sends it again (a fault of the scenario, as vLLM's is).

    slotguard fuzz --backend gpu --family kpool_tail --keep-going --jobs 16 \\
        --kernel-cmd "python3 examples/python/bench/faulting_kpool_provider.py" --time 60
"""
import argparse
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
import slotguard  # noqa: E402


def load_kpool():
    """examples/python/kpool_tail_provider.py as a module (its launcher and host path)."""
    spec = importlib.util.spec_from_file_location("kpool_tail_provider", os.path.join(HERE, "..", "kpool_tail_provider.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def picked(call, salt):
    """A number in [0, 10000) from the call's sizes: the same scenario, the same number."""
    h = (call.num_tokens * 1000003) ^ (call.num_reqs * 7919) ^ (call.num_actual_tokens * 104729) ^ \
        (call.block_table_rows * 131) ^ (call.kpool * 31) ^ (salt * 2246822519)
    return ((h * 2654435761) & 0xFFFFFFFF) % 10000


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--exception-percent", type=float, default=0.0)
    parser.add_argument("--assert-percent", type=float, default=0.0)
    parser.add_argument("--illegal-percent", type=float, default=0.0)
    parser.add_argument("--assert-share", type=float, default=0.5)
    parser.add_argument("--no-faults", action="store_true")
    parser.add_argument("--log", default=os.environ.get("FAULTING_PROVIDER_LOG", ""))
    args = parser.parse_args()
    kpool = load_kpool()
    cuda = kpool.CUDA
    torch = kpool.torch
    illegal_read = make_illegal_read(kpool) if cuda else None

    def log(line):
        if args.log:
            with open(args.log, "a") as f:
                f.write(line + "\n")

    def raise_index_error(call):
        log("exception")
        request_starts = []   # the fallback's list of the requests' first tokens: none
        return request_starts[call.num_reqs]

    def device_assert(call):
        log("assert")
        table = call.block_table
        rows = torch.full((max(call.num_tokens, 1),), table.numel() + (1 << 20), dtype=torch.int64, device=table.device)
        gathered = table[rows]          # a gather past the table: asserts on the device, reported later
        call.slot_mapping[:0] = gathered[:0].to(torch.int64)

    def illegal_address(call):
        log("illegal")
        illegal_read(call.slot_mapping, call.block_table)

    log("start")
    provider = slotguard.Provider("faulting-kpool-tail")

    @provider.family("kpool_tail")
    def run(call):
        if not args.no_faults:
            if call.num_reqs == 0 and call.num_actual_tokens > 0:
                if cuda and call.arrays == "torch-cuda" and picked(call, 1) < args.assert_share * 10000:
                    device_assert(call)
                else:
                    raise_index_error(call)
            device = cuda and call.arrays == "torch-cuda"
            p = picked(call, 2)
            if p < args.exception_percent * 100:
                raise_index_error(call)
            p -= args.exception_percent * 100
            if device and 0 <= p < args.assert_percent * 100:
                device_assert(call)
            p -= args.assert_percent * 100
            if device and 0 <= p < args.illegal_percent * 100:
                illegal_address(call)
        kpool.run(call)

    provider.serve()


def make_illegal_read(kpool):
    """[cuda] A Triton kernel that reads `offset` elements past its table
    and stores what it read: an illegal address."""
    triton, tl = kpool.triton, kpool.tl

    @triton.jit
    def far_read(out_ptr, table_ptr, offset):
        v = tl.load(table_ptr + offset)
        tl.store(out_ptr, v.to(tl.int64))

    def launch(out, table):
        far_read[(1,)](out, table, 1 << 40)
    return launch


if __name__ == "__main__":
    main()
