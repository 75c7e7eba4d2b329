#!/usr/bin/env python3
"""A vllm_offload_store provider for `slotguard --kernel-cmd`: the KV offloading connector's store list in numpy.

    slotguard check --backend host --kernel-cmd "python3 examples/python/families/vllm_offload_store_provider.py" \\
        scenarios/engines/vllm_offload_store/

Written from the description, families/vllm_offload_store.json, as the
connector's scheduler builds a request's store list for one KV group
(_build_store_jobs): operation k of request r (element r * ops + k, ops =
the table's width) stores block column k when its chunk k / blocks_per_chunk
lies in [start, num_chunks):

- the offloadable tokens after this step: seq_len (num_computed +
  num_scheduled), capped by req.num_tokens (seq_len less the drafts of a
  decoding request), max_offload_tokens and, under offload_prompt_only, the
  prompt;
- num_chunks: those tokens over the tokens per chunk, one less for an
  EAGLE group while decoding, at most the allocated chunks;
- start: the request's req_stored_chunks (the state the previous steps
  left), or where it is -1 what the previous step reached (the
  same rule at seq_len - q, never below the prompt's chunks);
- a sliding-window group stores only the reachable chunks of each
  alignment segment;
- a chunk whose last block is the null block (0) is skipped whole, and
  inside a kept chunk each null block is skipped on its own; -1 where no
  block is stored, and for a dummy.

Every division is C's (truncating), as the description's formulas are.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import slotguard  # noqa: E402

provider = slotguard.Provider("numpy-vllm-offload-store", arrays="numpy")


def c_div(a, b):
    """C's truncating division (b > 0)."""
    return a // b if a >= 0 else -((-a) // b)


def store_columns(seq_len, q, width, p):
    """The columns request (seq_len, q) with a row of `width` columns stores: a list of booleans.

    p: the group's parameters (a dict of the description's parameter names)."""
    bpc = p["blocks_per_chunk"]
    tpc = p["block_size"] * bpc
    prompt = seq_len if p["prompt_len"] < 0 else p["prompt_len"]
    decoding = seq_len - q >= prompt
    known = seq_len - (min(p["draft_tokens"], max(q - 1, 0)) if decoding else 0)
    cap = seq_len if p["max_offload_tokens"] < 0 else p["max_offload_tokens"]
    prompt_cap = prompt if p["offload_prompt_only"] else seq_len
    off = min(seq_len, known, cap, prompt_cap)
    prev_off = min(seq_len - q, cap, prompt_cap)
    alloc = c_div(width, bpc)
    eagle = 1 if p["eagle_group"] else 0
    num_chunks = min(max(c_div(off, tpc) - eagle * (off > prompt), 0), alloc)
    prev_chunks = min(max(c_div(prev_off, tpc) - eagle * (prev_off > prompt), 0, c_div(min(prev_off, prompt), tpc)),
                      alloc)
    start = prev_chunks if p["stored_chunks"] < 0 else p["stored_chunks"]
    align, window = p["align_chunks"], p["window_chunks"]
    cols = []
    for k in range(width):
        chunk = k // bpc
        seg_pos = chunk % max(align, 1)
        reachable = align == 0 or seg_pos >= min(align, num_chunks - (chunk - seg_pos)) - (window + eagle)
        # Only a request scheduled this step (q >= 1) is walked (scheduler.py:1235-1238).
        cols.append(q >= 1 and start <= chunk < num_chunks and reachable)
    return cols


PARAMS = ("block_size", "blocks_per_chunk", "offload_prompt_only", "eagle_group", "align_chunks", "window_chunks",
          "prompt_len", "draft_tokens", "max_offload_tokens", "stored_chunks")


@provider.family("vllm_offload_store")
def run(call):
    out = call.slot_mapping
    out[:] = -1
    n, ops = call.num_reqs, call.ops_per_request
    if n == 0 or ops == 0:
        return
    p = {name: int(getattr(call, name)) for name in PARAMS}
    qsl = call.query_start_loc
    idx = call.idx_mapping
    width = call.block_table_width
    for r in range(n):
        row = int(idx[r]) if call.rows_by_idx_mapping else r
        if int(idx[r]) < 0 or row < 0:
            continue
        q = int(qsl[r + 1]) - int(qsl[r])
        # The request's own state and caps: the per-request inputs (each the group's parameter by default).
        p.update(prompt_len=int(call.req_prompt_len[r]), draft_tokens=int(call.req_draft_tokens[r]),
                 max_offload_tokens=int(call.req_max_offload_tokens[r]), stored_chunks=int(call.req_stored_chunks[r]))
        base = row * call.block_table_row_stride
        bpc = p["blocks_per_chunk"]
        for k, stored in enumerate(store_columns(int(call.seq_lens[r]), q, width, p)):
            last = (k // bpc) * bpc + bpc - 1  # the chunk's last block decides for the whole chunk
            if not stored or last >= width or int(call.block_table[base + last]) == 0:
                continue
            block = int(call.block_table[base + k])
            if block != 0:
                out[r * ops + k] = block


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
