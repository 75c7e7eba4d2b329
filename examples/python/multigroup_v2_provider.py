#!/usr/bin/env python3
"""Every paged KV-cache group of a step in one launch, in vLLM v2's shape, as a
`slotguard --kernel-cmd` provider (mode 1: one call per scenario).

    slotguard check --backend gpu  --kernel-cmd "python3 examples/python/multigroup_v2_provider.py" scenarios/
    slotguard check --backend host --kernel-cmd "python3 examples/python/multigroup_v2_provider.py" scenarios/
    slotguard fuzz  --backend gpu  --kernel-cmd "python3 examples/python/multigroup_v2_provider.py" --time 300 -j 8

The kernel's shape is the v2 model runner's slot-mapping kernel: one launch
over the grid (num_groups, num_reqs + 1); program (g, r < num_reqs) maps
request r's tokens for group g, reading the group's block table through a
device array of table addresses (uint64), per-group int64 row strides and
int32 block sizes; program (g, num_reqs), the last of each group, pads the
tokens past query_start_loc[num_reqs] with PAD (-1), as CUDA graphs need.
The groups' outputs are rows of one [num_groups, num_tokens] buffer.

Paged semantics (docs/families.md, docs/families.md, paged), per group: a dummy request
(idx_mapping -1) is PAD; with DCP, vbs = block_size * world, off = pos % vbs,
the token is this rank's iff (off // interleave) % world == rank (else PAD),
local = pos // vbs * block_size + off // (interleave * world) * interleave +
off % interleave; col = local // kernel_block_size (hybrid blocks: table
entries are kernel block ids), a col past the row's width is PAD (the range
guard), slot = table[row, col] * kernel_block_size + local %
kernel_block_size; row is r, or idx_mapping[r] for a persistent table
(rows_by_idx_mapping); a disabled group (enabled = 0) is PAD everywhere.

What runs where:
  SLOTGUARD_DEVICE=cuda (--backend gpu): the Triton kernel; torch and Triton
      are imported only here.
  SLOTGUARD_DEVICE=cpu (--backend host, CI): the same grid walked program by
      program on the host, each program vectorized with numpy (pure Python
      when numpy is missing).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import slotguard  # noqa: E402

CUDA = slotguard.device() == "cuda"
PAD = -1
BLOCK = 1024
NPARAMS = 6   # per group, int32: kernel_block_size, width, dcp_world, dcp_rank, dcp_interleave, enabled

# ----------------------------------------------------------------------------- cuda only
if CUDA:
    import torch
    import triton
    import triton.language as tl
    jit = triton.jit
else:  # stand-ins so that the kernel below can be defined (never launched) on cpu
    torch = triton = None

    class tl(object):
        constexpr = int

    def jit(*args, **kwargs):
        return args[0] if args and callable(args[0]) else (lambda fn: fn)


# [cuda] grid (num_groups, num_reqs + 1).
@jit(do_not_specialize=["num_real_tokens", "num_tokens", "rows_by_idx", "idx_mapping_ptr", "qsl_ptr", "pos_ptr",
                        "block_table_ptrs", "block_table_strides", "block_sizes", "group_params",
                        "slot_mappings_ptr", "slot_mappings_stride"])
def compute_slot_mappings_kernel(
        num_real_tokens,        # query_start_loc[num_reqs]
        num_tokens,             # the buffers' length
        rows_by_idx,            # 1: request r reads row idx_mapping[r] (persistent tables)
        idx_mapping_ptr,        # [num_reqs] int32, -1: a dummy request
        qsl_ptr,                # [num_reqs + 1] int32
        pos_ptr,                # [num_tokens] int64
        block_table_ptrs,       # [num_groups] uint64: each group's block table
        block_table_strides,    # [num_groups] int64: its row stride, in entries
        block_sizes,            # [num_groups] int32: manager block size
        group_params,           # [num_groups, NPARAMS] int32
        slot_mappings_ptr,      # [num_groups, slot_mappings_stride] int64
        slot_mappings_stride,
        PAD_ID: tl.constexpr, NPARAMS: tl.constexpr, BLOCK: tl.constexpr):
    gid = tl.program_id(0)
    pid = tl.program_id(1)
    out_ptr = slot_mappings_ptr + gid.to(tl.int64) * slot_mappings_stride
    if pid == tl.num_programs(1) - 1:
        # The last program of the group: PAD from query_start_loc[num_reqs].
        for i in range(num_real_tokens, num_tokens, BLOCK):
            offs = i + tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.full([BLOCK], PAD_ID, tl.int64), mask=offs < num_tokens)
    else:
        bt_ptr = tl.load(block_table_ptrs + gid).to(tl.pointer_type(tl.int32))
        stride = tl.load(block_table_strides + gid).to(tl.int64)
        bs = tl.load(block_sizes + gid).to(tl.int64)
        p = group_params + gid * NPARAMS
        kbs = tl.load(p + 0).to(tl.int64)
        width = tl.load(p + 1).to(tl.int64)
        world = tl.load(p + 2).to(tl.int64)
        rank = tl.load(p + 3).to(tl.int64)
        inter = tl.load(p + 4).to(tl.int64)
        enabled = tl.load(p + 5)
        idx = tl.load(idx_mapping_ptr + pid)
        row = tl.where(rows_by_idx != 0, idx, pid).to(tl.int64)
        live = (idx != -1) & (enabled != 0)
        start = tl.load(qsl_ptr + pid)
        end = tl.load(qsl_ptr + pid + 1)
        vbs = bs * world
        for i in range(start, end, BLOCK):
            offs = i + tl.arange(0, BLOCK)
            mask = offs < end
            pos = tl.load(pos_ptr + offs, mask=mask, other=0)
            off = pos % vbs
            owned = ((off // inter) % world) == rank
            local = (pos // vbs) * bs + (off // (inter * world)) * inter + off % inter
            col = local // kbs
            valid = mask & live & owned & (col < width)
            block = tl.load(bt_ptr + row * stride + col, mask=valid, other=0).to(tl.int64)
            slot = tl.where(valid, block * kbs + local % kbs, PAD_ID)
            tl.store(out_ptr + offs, slot, mask=mask)


def _as_uint64(t):
    try:
        return t.view(torch.uint64)
    except (AttributeError, RuntimeError, TypeError):
        return t   # torch before uint64: the kernel casts int64 addresses just the same


def launch_slot_mappings(step):
    """[cuda] The launcher: one small metadata copy, one launch for every group."""
    groups = step.groups
    G, T, R = len(groups), step.num_tokens, step.num_reqs
    if T == 0:
        return
    # Metadata in one int64 tensor: addresses, strides, then the int32 block sizes and params.
    ints = []
    for c in groups:
        p = c.params
        ints.append([p["block_size"], p["kernel_block_size"], c.block_table_width, p["dcp_world"], p["dcp_rank"],
                     p["dcp_interleave"], p["enabled"]])
    n32 = G * (1 + NPARAMS)
    meta = torch.zeros(2 * G + (n32 + 1) // 2, dtype=torch.int64)
    meta[:G] = torch.tensor([c.block_table.data_ptr() for c in groups], dtype=torch.int64)
    meta[G:2 * G] = torch.tensor([c.block_table_row_stride for c in groups], dtype=torch.int64)
    m32 = meta[2 * G:].view(torch.int32)
    m32[:G] = torch.tensor([v[0] for v in ints], dtype=torch.int32)
    m32[G:n32] = torch.tensor([x for v in ints for x in v[1:]], dtype=torch.int32)
    meta = meta.to(step.groups[0].slot_mapping.device)
    ptrs = _as_uint64(meta[:G])
    strides = meta[G:2 * G]
    d32 = meta[2 * G:].view(torch.int32)
    block_sizes = d32[:G]
    params = d32[G:n32]
    # The outputs: rows of one [G, T] buffer (slotguard's outputs of a record are consecutive).
    first = groups[0].slot_mapping
    contiguous = all(c.slot_mapping.data_ptr() == first.data_ptr() + 8 * T * i for i, c in enumerate(groups))
    out = first.as_strided((G, T), (T, 1)) if contiguous else torch.empty((G, T), dtype=torch.int64,
                                                                           device=first.device)
    compute_slot_mappings_kernel[(G, R + 1)](step.num_real_tokens, T, step.rows_by_idx_mapping, step.idx_mapping,
                                             step.query_start_loc, step.positions, ptrs, strides, block_sizes,
                                             params, out, T, PAD_ID=PAD, NPARAMS=NPARAMS, BLOCK=BLOCK)
    if not contiguous:
        for i, c in enumerate(groups):
            c.slot_mapping.copy_(out[i])


# ----------------------------------------------------------------------------- cpu only
def host_program(c, step, gid, pid, out):
    """[cpu] Program (gid, pid) of the grid: request pid's tokens for group
    c, or (pid == num_reqs) the padding. numpy-vectorized over the tile."""
    R = step.num_reqs
    if pid == R:
        out[step.num_real_tokens:step.num_tokens] = PAD
        return
    start, end = int(step.query_start_loc[pid]), int(step.query_start_loc[pid + 1])
    if start == end:
        return
    p = c.params
    idx = int(step.idx_mapping[pid])
    if idx == -1 or not p["enabled"]:
        out[start:end] = PAD
        return
    row = idx if step.rows_by_idx_mapping else pid
    bs, kbs = p["block_size"], p["kernel_block_size"]
    world, rank, inter = p["dcp_world"], p["dcp_rank"], p["dcp_interleave"]
    width, stride = c.block_table_width, c.block_table_row_stride
    pos = step.positions[start:end]
    vbs = bs * world
    off = pos % vbs
    owned = (off // inter) % world == rank
    local = (pos // vbs) * bs + (off // (inter * world)) * inter + off % inter
    col = local // kbs
    valid = owned & (col < width)
    block = np.zeros(end - start, dtype=np.int64)
    if valid.any():
        block[valid] = c.block_table[row * stride + col[valid]]
    out[start:end] = np.where(valid, block * kbs + local % kbs, PAD)


def host_program_python(c, step, gid, pid, out):
    """[cpu] The same program, token by token (no numpy)."""
    R = step.num_reqs
    if pid == R:
        for t in range(step.num_real_tokens, step.num_tokens):
            out[t] = PAD
        return
    p = c.params
    idx = step.idx_mapping[pid]
    row = idx if step.rows_by_idx_mapping else pid
    bs, kbs = p["block_size"], p["kernel_block_size"]
    world, rank, inter = p["dcp_world"], p["dcp_rank"], p["dcp_interleave"]
    for t in range(step.query_start_loc[pid], step.query_start_loc[pid + 1]):
        slot = PAD
        if idx != -1 and p["enabled"]:
            pos = step.positions[t]
            vbs = bs * world
            off = pos % vbs
            if (off // inter) % world == rank:
                local = (pos // vbs) * bs + (off // (inter * world)) * inter + off % inter
                col = local // kbs
                if col < c.block_table_width:
                    slot = c.block_table[row * c.block_table_row_stride + col] * kbs + local % kbs
        out[t] = slot


def host_slot_mappings(step):
    """[cpu] The grid (num_groups, num_reqs + 1), program by program."""
    program = host_program if np is not None else host_program_python
    for gid, c in enumerate(step.groups):
        for pid in range(step.num_reqs + 1):
            program(c, step, gid, pid, c.slot_mapping)


try:
    import numpy as np
except ImportError:
    np = None

# ----------------------------------------------------------------------------- the provider
provider = slotguard.Provider("python-multigroup-v2")


@provider.scenario(families=["paged"])
def run_all(step):
    if CUDA and step.arrays == "torch-cuda":
        launch_slot_mappings(step)
    else:
        host_slot_mappings(step)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
