#!/usr/bin/env python3
"""The Triton recipe for `slotguard --kernel-cubin`: check a kernel compiled by
Triton without its Python source in the loop.

1. Compile the kernel once (here: run it on a tiny batch); Triton leaves the
   cubin and its launch metadata (name, num_warps, shared memory) behind.
2. Write a slotguard kernel spec: the kernel's parameters in order, bound to
   scenario buffers and scalars, plus the pointer parameters recent Triton
   versions append (global and profile scratch: passed as null), the grid
   as a formula, block = 32 * num_warps threads, shared = its shared bytes.
3. slotguard check --backend gpu --kernel-cubin OUT/kpool_tail_triton.cubin
       --kernel-spec OUT/kpool_tail_triton.spec.json scenarios/

Usage: kpool_tail_triton.py OUT_DIR   (needs torch, triton and a GPU)
"""
import json
import os
import re
import sys

import torch
import triton
import triton.language as tl

BLOCK = 128


# kpool_tail (docs/families.md, kpool_tail) the engine's way: one program per request (the last
# one also owns tokens up to num_actual_tokens), then one per BLOCK padding
# tokens, which copy slot_mapping_in through. Integer arguments are never
# specialized, so the cubin keeps every parameter whatever the values.
@triton.jit(do_not_specialize=["row_stride", "num_reqs", "num_actual_tokens", "num_tokens", "kpool"])
def kpool_tail_kernel(slot_mapping_ptr, positions_ptr, qsl_ptr, block_table_ptr, slot_mapping_in_ptr,
                      row_stride, num_reqs, num_actual_tokens, num_tokens, kpool, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    request_programs = tl.maximum(num_reqs, 1)
    if pid >= request_programs:
        offs = num_actual_tokens + (pid - request_programs) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < num_tokens
        tl.store(slot_mapping_ptr + offs, tl.load(slot_mapping_in_ptr + offs, mask=mask), mask=mask)
    elif num_reqs == 0:
        for start in range(0, tl.minimum(num_actual_tokens, num_tokens), BLOCK):
            offs = start + tl.arange(0, BLOCK)
            mask = offs < tl.minimum(num_actual_tokens, num_tokens)
            tl.store(slot_mapping_ptr + offs, tl.full([BLOCK], -1, tl.int64), mask=mask)
    else:
        begin = tl.load(qsl_ptr + pid)
        end = tl.load(qsl_ptr + pid + 1)
        if pid == num_reqs - 1:
            end = tl.maximum(end, num_actual_tokens)
        b = tl.load(block_table_ptr + pid.to(tl.int64) * row_stride).to(tl.int64)
        for start in range(begin, end, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            mask = offs < end
            pos = tl.load(positions_ptr + offs, mask=mask, other=0)
            off = ((pos % kpool) + kpool) % kpool
            slot = tl.where(b > 0, b * kpool + off, -1)
            keep = tl.load(slot_mapping_in_ptr + offs, mask=mask, other=-1)
            tl.store(slot_mapping_ptr + offs, tl.where(offs < num_actual_tokens, slot, keep), mask=mask)


def ptx_param_count(ptx, name):
    entry = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\((.*?)\)", ptx, re.S)
    return len(re.findall(r"\.param\s", entry.group(1))) if entry else None


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out_dir, exist_ok=True)
    dev = "cuda"
    # A tiny batch: two requests on blocks 3 and 0, two padding tokens.
    qsl = torch.tensor([0, 2, 3], dtype=torch.int32, device=dev)
    positions = torch.tensor([5, 6, 0, 0, 0], dtype=torch.int64, device=dev)
    table = torch.tensor([[3, 0], [0, 0]], dtype=torch.int32, device=dev)
    slot_in = torch.full((5,), -1, dtype=torch.int64, device=dev)
    out = torch.zeros(5, dtype=torch.int64, device=dev)
    num_reqs, n_act, n, kpool = 2, 3, 5, 4
    grid = (max(num_reqs, 1) + triton.cdiv(n - n_act, BLOCK),)
    compiled = kpool_tail_kernel[grid](out, positions, qsl, table, slot_in, table.stride(0), num_reqs, n_act, n,
                                       kpool, BLOCK=BLOCK)
    torch.cuda.synchronize()
    assert out.tolist() == [13, 14, -1, -1, -1], out.tolist()  # 3*4 + 5%4, 3*4 + 6%4; block 0 -> PAD

    md = compiled.metadata
    name = getattr(md, "name", None) or compiled.name
    cubin = compiled.asm["cubin"]
    ptx = compiled.asm.get("ptx", "")
    params = [{"buffer": "slot_mapping"}, {"buffer": "positions"}, {"buffer": "query_start_loc"},
              {"buffer": "block_table"}, {"buffer": "slot_mapping_in"},
              {"scalar": "block_table_row_stride", "type": "i32"}, {"scalar": "num_reqs", "type": "i32"},
              {"scalar": "num_actual_tokens", "type": "i32"}, {"scalar": "num_tokens", "type": "i32"},
              {"param": "kpool", "type": "i32"}]
    total = ptx_param_count(ptx, name)
    extra = (total - len(params)) if total is not None else 0
    params += [{"constant": 0, "type": "ptr"}] * extra  # global / profile scratch of recent Triton
    spec = {
        "slotguard_kernel_spec": 1,
        "family": "kpool_tail",
        "symbol": name,
        "params": params,
        "grid": ["max(num_reqs, 1) + cdiv(num_tokens - num_actual_tokens, %d)" % BLOCK, 1, 1],
        "block": [32 * md.num_warps, 1, 1],
        "shared_bytes": int(md.shared),
    }
    with open(os.path.join(out_dir, "kpool_tail_triton.cubin"), "wb") as f:
        f.write(cubin)
    with open(os.path.join(out_dir, "kpool_tail_triton.spec.json"), "w") as f:
        json.dump(spec, f, indent=2)
    print("triton %s: %s, %d warps, %d shared bytes, %d parameters (%d appended by Triton)"
          % (triton.__version__, name, md.num_warps, md.shared, len(params), extra))
    print("slotguard check --backend gpu --kernel-cubin %s --kernel-spec %s scenarios/"
          % (os.path.join(out_dir, "kpool_tail_triton.cubin"), os.path.join(out_dir, "kpool_tail_triton.spec.json")))


if __name__ == "__main__":
    main()
