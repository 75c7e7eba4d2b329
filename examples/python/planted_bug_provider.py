#!/usr/bin/env python3
"""A kpool_tail provider with a planted bug, for `slotguard fuzz` to find.

    slotguard check --backend host --kernel-cmd "python3 examples/python/planted_bug_provider.py" scenarios/
        -> every curated scenario holds
    slotguard fuzz --backend host --kernel-cmd "python3 examples/python/planted_bug_provider.py" --runs 5000 --seed 1
        -> a finding, minimized to 2 requests and 2 tokens, written before it is reported

The bug. kpool_tail gives the tokens between query_start_loc[R] and
num_actual_tokens (a padded batch's tail) to the last request, R - 1. This
provider gives them to the request that owns the last real token,
request_of_token[query_start_loc[R] - 1], the way a launcher that extends
its precomputed request_of_token over the tail would. The two agree unless
the last request has no tokens (a zero-length request at the end of a padded
batch): then the tail is mapped through another request's ring block, a slot
that request's own tokens use (own_block, unique_slots, differential). Every
curated scenario with a tail has a non-empty last request, and so do the
unit tests below (`python3 planted_bug_provider.py --self-test` passes):
they look complete and miss it.

Runs on the host on both backends (numpy, or pure Python without numpy);
under --backend gpu the provider still computes on the host.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import slotguard  # noqa: E402

try:
    import numpy as np
    ARRAYS = "numpy"
except ImportError:
    np = None
    ARRAYS = "memoryview"


def tail_owner(request_of_token, num_real_tokens, num_tokens):
    # PLANTED BUG: should be num_reqs - 1 (the last request, even an empty one).
    last_real = num_real_tokens - 1 if num_real_tokens > 0 else num_tokens - 1
    return int(request_of_token[last_real])


def kpool_tail(query_start_loc, request_of_token, positions, idx_mapping, block_table, row_stride,
               rows_by_idx_mapping, slot_mapping_in, num_reqs, num_real_tokens, num_actual_tokens, num_tokens,
               kpool, out):
    """[cpu] The mapping, token by token through request_of_token."""
    n_act = min(num_actual_tokens, num_tokens)
    for t in range(n_act, num_tokens):
        out[t] = slot_mapping_in[t]
    tail = tail_owner(request_of_token, num_real_tokens, num_tokens) if num_reqs and n_act else -1
    for t in range(n_act):
        r = int(request_of_token[t]) if t < num_real_tokens else tail
        row = -1 if r < 0 else (int(idx_mapping[r]) if rows_by_idx_mapping else r)
        b = int(block_table[row * row_stride]) if row >= 0 else 0
        out[t] = b * kpool + int(positions[t]) % kpool if b > 0 else -1


provider = slotguard.Provider("planted-bug-kpool-tail", arrays=ARRAYS)


@provider.family("kpool_tail")
def run(call):
    kpool_tail(call.query_start_loc, call.request_of_token, call.positions, call.idx_mapping, call.block_table,
               call.block_table_row_stride, call.rows_by_idx_mapping, call.slot_mapping_in, call.num_reqs,
               call.num_real_tokens, call.num_actual_tokens, call.num_tokens, call.kpool, call.slot_mapping)


def self_test():
    """The provider's own "complete-looking" unit tests: they pass."""
    def run_case(qsl, pos, table, kpool, n_act, T, slot_in=None, idx=None):
        R = len(qsl) - 1
        rot = [-1] * T
        for r in range(R):
            for t in range(qsl[r], qsl[r + 1]):
                rot[t] = r
        out = [0] * T
        kpool_tail(qsl, rot, pos, idx or list(range(R)), [row[0] for row in table], 1, 0, slot_in or [-1] * T,
                   R, qsl[-1], n_act, T, kpool, out)
        return out
    assert run_case([0, 2], [5, 6], [[3]], 4, 2, 2) == [13, 14]                        # one request
    assert run_case([0, 2, 3], [4, 5, 0], [[7], [0]], 4, 3, 3) == [28, 29, -1]          # null block -> PAD
    assert run_case([0, 2, 3], [4, 5, 0, 0, 0], [[7], [2]], 4, 5, 5) == [28, 29, 8, 8, 8]  # tail -> last request
    assert run_case([0, 2], [0, 1, 0, 0], [[3]], 4, 2, 4, [-1, -1, 9, 9]) == [12, 13, 9, 9]  # slot_mapping_in kept
    assert run_case([0, 0], [0, 0], [[3]], 4, 0, 2) == [-1, -1]                         # nothing actual
    print("planted_bug_provider self-test: 5 cases pass")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        self_test()
        sys.exit(0)
    provider.serve()
