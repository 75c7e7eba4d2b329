#!/usr/bin/env python3
"""vLLM v2's own slot-mapping kernel, as vLLM launches it, behind
`slotguard --kernel-cmd`: `_compute_slot_mappings_kernel` from
vllm/v1/worker/gpu/block_table.py, one launch over (num_groups, num_reqs + 1)
for every paged KV-cache group, with a device array of block-table
addresses, per-group strides and block sizes.

    slotguard check --backend gpu --kernel-cmd "python3 examples/python/vllm_v2_provider.py" scenarios/
    slotguard fuzz  --backend gpu --kernel-cmd "python3 examples/python/vllm_v2_provider.py" --time 300 -j 8

Where the kernel comes from: `import vllm.v1.worker.gpu.block_table` when
vLLM is installed; else the file VLLM_BLOCK_TABLE_PY names (a checkout's
vllm/v1/worker/gpu/block_table.py), with the buffer_utils.py beside it
when there is one (newer vLLM keeps the kernel's `_load_ptr` there),
loaded with stand-ins for the other vLLM modules they import. No vLLM code
is copied here.

What is vLLM's and what is this adapter's:
  - the kernel, its arguments and its grid are vLLM's (BlockTables.compute_slot_mappings);
  - num_tokens is positions.shape[0] (the padded count) and max_num_tokens the
    width of the [num_groups, max_num_tokens] output buffer, here num_tokens
    (a kernel without the num_tokens argument, as upstream's now, gets
    max_num_tokens alone);
  - block_sizes are the groups' kernel block sizes (table entries are kernel
    block ids); CP_SIZE, cp_rank and CP_INTERLEAVE are the groups' DCP
    world, rank and interleave (vLLM has one setting for every group: a
    scenario whose groups differ is skipped, and so is one with a disabled
    group, which vLLM v2 does not have);
  - with a per-request table (batch.table_rows "request") idx_mapping is
    0..R-1, as vLLM's gathered input tables are read; with a persistent one,
    the scenario's idx_mapping, dummies (-1) included;
  - each table is copied into its own torch allocation (vLLM's tables are
    separate tensors, and the kernel assumes 16-byte aligned table pointers);
  - the output buffer starts zeroed, as vLLM's persistent slot_mappings does.
Needs --backend gpu (torch, Triton and a GPU); on the host every scenario is skipped.
"""
import importlib.util
import os
import sys
import types

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import slotguard  # noqa: E402

CUDA = slotguard.device() == "cuda"


def load_block_table_module():
    """vLLM's block_table module: installed, or from VLLM_BLOCK_TABLE_PY."""
    try:
        from vllm.v1.worker.gpu import block_table
        return block_table
    except Exception:  # noqa: BLE001 - not installed, or not importable here
        pass
    path = os.environ.get("VLLM_BLOCK_TABLE_PY")
    if not path:
        raise SystemExit("vllm_v2_provider: vLLM is not importable; set VLLM_BLOCK_TABLE_PY to a checkout's "
                         "vllm/v1/worker/gpu/block_table.py")
    import triton
    import triton.language as tl

    def stub(name, **attrs):
        module = sys.modules.setdefault(name, types.ModuleType(name))
        module.__dict__.update(attrs)

    for package in ("vllm", "vllm.utils", "vllm.v1", "vllm.v1.attention", "vllm.v1.attention.backends",
                    "vllm.v1.worker", "vllm.v1.worker.gpu"):
        stub(package)
    stub("vllm.triton_utils", tl=tl, triton=triton)
    stub("vllm.utils.math_utils", cdiv=lambda a, b: -(-a // b))
    stub("vllm.v1.attention.backends.utils", PAD_SLOT_ID=-1)
    # Whatever else these modules import is host-side code the kernels do not
    # use, and its names change between vLLM versions: any name is a stand-in.
    anything = {"__getattr__": lambda name: type(name, (), {})}
    stub("vllm.utils.platform_utils", **anything)
    stub("vllm.utils.torch_utils", **anything)
    # buffer_utils.py beside block_table.py: newer vLLM keeps the kernel's
    # _load_ptr there. Older checkouts import only host classes from it.
    buffer_utils = os.path.join(os.path.dirname(path), "buffer_utils.py")
    if os.path.exists(buffer_utils):
        load("vllm.v1.worker.gpu.buffer_utils", buffer_utils)
    else:
        stub("vllm.v1.worker.gpu.buffer_utils", **anything)
    return load("vllm_v1_worker_gpu_block_table", path)


def load(name, path):
    """The module of the file `path`, registered as `name`."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


provider = slotguard.Provider("vllm-v2-compute-slot-mappings")

if CUDA:
    import torch
    vllm_block_table = load_block_table_module()


@provider.scenario(families=["paged"])
def compute_slot_mappings(step):
    if not CUDA:
        raise slotguard.Skip("vLLM's Triton kernel runs on --backend gpu")
    groups = step.groups
    cp = {(c.params["dcp_world"], c.params["dcp_rank"], c.params["dcp_interleave"]) for c in groups}
    if len(cp) > 1:
        raise slotguard.Skip("groups with different DCP settings: vLLM v2 has one for every KV-cache group")
    if not all(c.params["enabled"] for c in groups):
        raise slotguard.Skip("a disabled paged group (a ring group's): vLLM v2's block tables have none")
    cp_size, cp_rank, cp_interleave = cp.pop()
    T, R, device = step.num_tokens, step.num_reqs, groups[0].slot_mapping.device
    tables = [c.block_table.clone() for c in groups]  # separate, aligned allocations, as vLLM's tables are
    ptrs = torch.tensor([t.data_ptr() for t in tables], dtype=torch.uint64, device=device)
    strides = torch.tensor([c.block_table_row_stride for c in groups], dtype=torch.int64, device=device)
    block_sizes = torch.tensor([c.params["kernel_block_size"] for c in groups], dtype=torch.int32, device=device)
    idx_mapping = step.idx_mapping if step.rows_by_idx_mapping else torch.arange(R, dtype=torch.int32,
                                                                                   device=device)
    out = torch.zeros((len(groups), max(T, 1)), dtype=torch.int64, device=device)
    kernel = vllm_block_table._compute_slot_mappings_kernel
    # Until vLLM dropped it, the kernel's first argument was num_tokens,
    # before max_num_tokens (commit 00bd149 has it, upstream 81be2e09 not).
    leading = (T, T) if list(getattr(kernel, "arg_names", []))[:1] == ["num_tokens"] else (T,)
    kernel[(len(groups), R + 1)](
        *leading, idx_mapping, step.query_start_loc, step.positions, ptrs, strides, block_sizes, out, out.stride(0),
        cp_rank, CP_SIZE=cp_size, CP_INTERLEAVE=cp_interleave, PAD_ID=-1, TRITON_BLOCK_SIZE=1024)
    for i, c in enumerate(groups):
        c.slot_mapping.copy_(out[i, :T])
    del tables  # kept alive until the launch was enqueued (the caching allocator is stream-ordered)


if __name__ == "__main__":
    provider.serve()
