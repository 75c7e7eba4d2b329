"""The example providers as processes, through the test-side host (no
--kernel-cmd needed): the curated scenarios, random batches against the
reference, the planted bug found, the process lifecycle."""
import glob
import os
import random
import struct

import pytest

import fakehost as fh
from conftest import ROOT, example

SCENARIOS = sorted(glob.glob(os.path.join(ROOT, "scenarios", "**", "*.json"), recursive=True))


def random_batch(rng, family, persistent=False, empty_last=False):
    R = rng.randint(0, 6)
    lens = [rng.choice([0, 1, 1, 2, 3, 5, 17]) for _ in range(R)]
    if empty_last and R:
        lens[-1] = 0
    qsl = [0]
    for n in lens:
        qsl.append(qsl[-1] + n)
    real = qsl[-1]
    T = real + rng.choice([0, 0, 1, 3, 8])
    n_act = rng.randint(real, T) if rng.random() < 0.7 else rng.randint(0, T)
    pos = []
    for r in range(R):
        start = rng.choice([0, 3, 15, 16, 31, 2 ** 33])
        pos += [start + i for i in range(lens[r])]
    pos += [rng.choice([0, 5]) for _ in range(T - real)]
    rows = R + (rng.randint(0, 3) if persistent else 0)
    idx = list(range(R))
    if persistent:
        idx = rng.sample(range(rows), R) if R else []
    idx = [i if rng.random() > 0.2 else -1 for i in idx]
    g = {"name": "g", "kernel": family}
    if family == "kpool_tail":
        g["kpool"] = rng.choice([1, 3, 4, 16])
        width = rng.randint(1, 3)
        g["block_table"] = [[rng.choice([-1, 0, 1, 2, 5, 9]) for _ in range(width)] for _ in range(rows)]
    else:
        bs = rng.choice([1, 4, 16])
        kbs = rng.choice([k for k in (1, 2, 4, 16) if bs % k == 0])
        world = rng.choice([1, 1, 2, 4])
        inter = rng.choice([k for k in (1, 2, 4) if bs % k == 0])
        g.update(block_size=bs, kernel_block_size=kbs, dcp={"world": world, "rank": rng.randrange(world),
                                                            "interleave": inter},
                 enabled=rng.random() > 0.1)
        width = rng.randint(0, 4)
        g["block_table"] = [[rng.randint(-1, 20) for _ in range(width)] for _ in range(rows)]
    b = {"query_start_loc": qsl, "positions": pos, "num_actual_tokens": n_act, "idx_mapping": idx,
         "slot_mapping_in": [rng.choice([-1, 9000 + t]) for t in range(T)]}
    if persistent:
        b["table_rows"] = "idx_mapping"
    return fh.load({"slotguard": 2, "name": "r", "num_blocks": 64, "batch": b, "groups": [g]})


def run_random(proc, mode, family, n, seed, **kw):
    rng = random.Random(seed)
    bad = []
    for batch in range(n // 32):
        blob = fh.Blob()
        recs, shapes, scen = [], [], []
        for i in range(32):
            s = random_batch(rng, family, persistent=rng.random() < 0.4, **kw)
            recs.append(fh.record_bytes(i, s, blob, [0]))
            shapes.append([(s.T, 1)])
            scen.append(s)
        proc.send(fh.run_message(recs, blob))
        for s, (status, group, msg, outs) in zip(scen, fh.parse_results(proc.recv(), shapes)):
            ref = fh.reference(s, s.groups[0])
            if status != 0 or outs[0] != ref:
                bad.append((s.qsl, s.n_act, s.T, status, msg, outs[:1], ref))
    return bad


@pytest.fixture
def provider():
    procs = []

    def start(name, device="cpu"):
        p = fh.ProviderProcess(example(name), device=device)
        procs.append(p)
        return p
    yield start
    for p in procs:
        if p.proc.poll() is None:
            p.close()


def test_kpool_tail_provider_holds_the_curated_scenarios_and_random_batches(provider):
    p = provider("kpool_tail_provider.py")
    assert p.handshake()[2:] == ("python-kpool-tail", 0, ["kpool_tail"])
    checked, bad = fh.check_files(p, SCENARIOS, 0, ["kpool_tail"])
    assert checked >= 10 and bad == []
    assert run_random(p, 0, "kpool_tail", 640, seed=1) == []
    assert run_random(p, 0, "kpool_tail", 320, seed=2, empty_last=True) == []
    assert p.close() == 0


def test_multigroup_provider_holds_the_curated_scenarios_and_random_batches(provider):
    p = provider("multigroup_v2_provider.py")
    assert p.handshake()[2:] == ("python-multigroup-v2", 1, ["paged"])
    checked, bad = fh.check_files(p, SCENARIOS, 1, ["paged"])
    assert checked >= 30 and bad == []
    assert run_random(p, 1, "paged", 640, seed=3) == []
    assert p.close() == 0


def test_planted_bug_holds_the_curated_scenarios_but_random_batches_find_it(provider):
    p = provider("planted_bug_provider.py")
    p.handshake()
    checked, bad = fh.check_files(p, SCENARIOS, 0, ["kpool_tail"])
    assert checked >= 10 and bad == [], "the planted bug should slip past the curated scenarios"
    found = run_random(p, 0, "kpool_tail", 320, seed=4, empty_last=True)
    assert found, "an empty last request with a tail past query_start_loc[R] shows the planted bug"
    qsl, n_act = found[0][0], found[0][1]
    assert qsl[-1] == qsl[-2] and n_act > qsl[-1]
    p.close()


def test_provider_exits_on_end_of_file_and_on_bye(provider):
    p = provider("kpool_tail_provider.py")
    p.handshake()
    assert p.close(bye=False) == 0
    q = provider("kpool_tail_provider.py")
    q.handshake()
    assert q.close(bye=True) == 0


def test_provider_run_by_hand_says_how_to_use_it(tmp_path):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", "kpool_tail_provider.py")],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, pass_fds=())
    assert r.returncode == 2 and "--kernel-cmd" in r.stderr


def test_garbage_message_type_ends_the_provider(provider):
    p = provider("kpool_tail_provider.py")
    p.handshake()
    p.send(struct.pack("<I", 77))
    assert p.recv() is None
    assert p.proc.wait(timeout=30) != 0
