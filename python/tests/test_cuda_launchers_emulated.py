"""The examples' cuda launchers, run on torch CPU tensors with each Triton
kernel replaced by a Python emulation that follows the kernel's code (the
multigroup one reads the block tables through the uint64 address array with
ctypes, as the kernel does). This checks the launchers' argument packing and
output layout here; the kernels themselves need the GPU machine."""
import ctypes
import glob
import importlib.util
import os
import random

import pytest

import fakehost as fh
import slotguard
from conftest import ROOT

torch = pytest.importorskip("torch")


def load_example(name):
    spec = importlib.util.spec_from_file_location(name[:-3], os.path.join(ROOT, "examples", "python", name))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.torch = torch
    return mod


class Grid(object):
    def __init__(self, fn):
        self.fn = fn

    def __getitem__(self, grid):
        return lambda *args, **kw: self.fn(grid, *args, **kw)


def emulated_multigroup(grid, num_real_tokens, num_tokens, rows_by_idx, idx, qsl, pos, ptrs, strides, block_sizes,
                        params, out, out_stride, PAD_ID, NPARAMS, BLOCK):
    G, programs = grid
    assert out.stride() == (out_stride, 1)
    flat_out = out
    for gid in range(G):
        for pid in range(programs):
            if pid == programs - 1:
                for t in range(num_real_tokens, num_tokens):
                    flat_out[gid, t] = PAD_ID
                continue
            addr = int(ptrs[gid]) & (2 ** 64 - 1)
            stride = int(strides[gid])
            bs = int(block_sizes[gid])
            kbs, width, world, rank, inter, enabled = [int(x) for x in params[gid * NPARAMS:(gid + 1) * NPARAMS]]
            i = int(idx[pid])
            row = i if rows_by_idx else pid
            live = i != -1 and enabled != 0
            for t in range(int(qsl[pid]), int(qsl[pid + 1])):
                p = int(pos[t])
                vbs = bs * world
                off = p % vbs
                owned = (off // inter) % world == rank
                local = (p // vbs) * bs + (off // (inter * world)) * inter + off % inter
                col = local // kbs
                if live and owned and col < width:
                    block = ctypes.c_int32.from_address(addr + 4 * (row * stride + col)).value
                    flat_out[gid, t] = block * kbs + local % kbs
                else:
                    flat_out[gid, t] = PAD_ID


def test_multigroup_launcher_packs_addresses_strides_and_params():
    mg = load_example("multigroup_v2_provider.py")
    mg.compute_slot_mappings_kernel = Grid(emulated_multigroup)
    p = slotguard.Provider("emulated", arrays="torch")
    p.scenario(families=["paged"])(mg.launch_slot_mappings)
    p.welcome(fh.hello())
    paths = sorted(glob.glob(os.path.join(ROOT, "scenarios", "**", "*.json"), recursive=True))
    scen = [fh.load(x) for x in paths]
    rng = random.Random(5)
    import test_examples_fakehost as te
    scen += [te.random_batch(rng, "paged", persistent=rng.random() < 0.5) for _ in range(40)]
    blob = fh.Blob()
    recs, shapes, meta = [], [], []
    for n, s in enumerate(scen):
        mine = [gi for gi, g in enumerate(s.groups) if g["family"] == "paged" and g["variant"] == "fixed"]
        if mine and s.T < 2000:
            recs.append(fh.record_bytes(n, s, blob, mine))
            shapes.append([(s.T, 1)] * len(mine))
            meta.append((s, mine))
    parts = p.run_message(bytearray(fh.run_message(recs, blob)))
    res = fh.parse_results(b"".join(bytes(x) for x in parts), shapes)
    assert len(res) > 40
    for (s, mine), (status, group, msg, outs) in zip(meta, res):
        assert status == 0, msg
        for gi, out in zip(mine, outs):
            assert out == fh.reference(s, s.groups[gi]), (s.name, s.groups[gi]["name"])


def emulated_kpool(grid, out, pos, qsl, idx, bt, slot_in, row_stride, rows_by_idx, num_reqs, n_act, pad_start,
                   num_tokens, kpool, BLOCK):
    (programs,) = grid
    for pid in range(programs):
        if pid < num_reqs:
            begin, end = int(qsl[pid]), int(qsl[pid + 1])
            if pid == num_reqs - 1:
                end = pad_start
            row = int(idx[pid]) if rows_by_idx else pid
            b = int(bt[max(row, 0) * row_stride]) if row >= 0 else 0
            for t in range(begin, end):
                ring = int(pos[t]) % kpool
                slot = b * kpool + ring if b > 0 else -1
                out[t] = slot if t < n_act else slot_in[t]
        else:
            for t in range(pad_start + (pid - num_reqs) * BLOCK, min(pad_start + (pid - num_reqs + 1) * BLOCK,
                                                                       num_tokens)):
                out[t] = slot_in[t]


def test_kpool_launcher_grid_and_tail_bounds():
    kp = load_example("kpool_tail_provider.py")
    kp.kpool_tail_kernel = Grid(emulated_kpool)
    kp.triton = type("T", (), {"cdiv": staticmethod(lambda a, b: (a + b - 1) // b)})
    p = slotguard.Provider("emulated", arrays="torch")

    @p.family("kpool_tail")
    def run(call):
        kp.kpool_tail_launch(call.slot_mapping, call.positions, call.query_start_loc, call.idx_mapping,
                             call.block_table, call.slot_mapping_in, call.block_table_row_stride,
                             call.rows_by_idx_mapping, call.num_reqs, call.num_real_tokens, call.num_actual_tokens,
                             call.num_tokens, call.kpool)
    p.welcome(fh.hello())
    import test_examples_fakehost as te
    rng = random.Random(6)
    paths = sorted(glob.glob(os.path.join(ROOT, "scenarios", "**", "*.json"), recursive=True))
    scen = [fh.load(x) for x in paths]
    scen += [te.random_batch(rng, "kpool_tail", persistent=rng.random() < 0.5, empty_last=rng.random() < 0.3)
             for _ in range(80)]
    blob = fh.Blob()
    recs, shapes, meta = [], [], []
    for n, s in enumerate(scen):
        for gi, g in enumerate(s.groups):
            if g["family"] == "kpool_tail" and g["variant"] == "fixed":
                recs.append(fh.record_bytes(n, s, blob, [gi]))
                shapes.append([(s.T, 1)])
                meta.append((s, gi))
    parts = p.run_message(bytearray(fh.run_message(recs, blob)))
    res = fh.parse_results(b"".join(bytes(x) for x in parts), shapes)
    for (s, gi), (status, group, msg, outs) in zip(meta, res):
        assert status == 0, msg
        assert outs[0] == fh.reference(s, s.groups[gi]), (s.name, s.qsl, s.n_act, s.T)
