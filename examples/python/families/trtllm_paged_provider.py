#!/usr/bin/env python3
"""A trtllm_paged provider for `slotguard --kernel-cmd`: TensorRT-LLM's paged KV addressing in numpy.

    slotguard check --backend host --writers --kernel-cmd "python3 examples/python/families/trtllm_paged_provider.py" \\
        scenarios/engines/trtllm_paged/
    slotguard fuzz --backend host --family trtllm_paged \\
        --kernel-cmd "python3 examples/python/families/trtllm_paged_provider.py" --runs 300

Written from the description, families/trtllm_paged.json
(docs/families.md). Row r of the block table is batch entry r's
kv_cache_block_offsets row (a persistent table: row idx_mapping[r]); a CUDA-graph
padded entry is TensorRT-LLM's padding dummy, a real request, so a dummy
(idx_mapping -1) reads its row like any entry. For a token at position pos,
as KVBlockArray computes it (cpp/tensorrt_llm/kernels/kvCacheUtils.h):

- kvpos = getKVTokenIdx(pos): pos for a sink token (pos < sink_tokens),
  else sink_tokens + bubble + (pos - sink_tokens) % cyclic, with
  bubble = (tpb - sink_tokens % tpb) % tpb and
  cyclic = attention_window (+ tpb with one_more_block) - sink_tokens;
- slot = row[kvpos // tpb] * tpb + kvpos % tpb (getBlockPtr, getLocalIdx).

Unlike the engine's kernel it writes -1 for a token whose column is past
the row (the engine reads whatever the table holds there), for a negative
entry (the engine writes through it; v1 never submits one) and for the
tokens past query_start_loc[R] (the engine has none: padding is whole
batch entries).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import numpy as np  # noqa: E402
import slotguard  # noqa: E402


def kv_token_index(pos, tokens_per_block, sink_tokens, attention_window, one_more_block):
    """getKVTokenIdx: the token's index in the (possibly cyclic) cache."""
    tpb = np.int64(tokens_per_block)
    sink = np.int64(sink_tokens)
    bubble = (tpb - sink % tpb) % tpb
    cyclic = np.int64(attention_window) + (tpb if one_more_block else 0) - sink
    return np.where(pos < sink, pos, sink + bubble + np.mod(pos - sink, cyclic))


def block_slots(request_of_token, positions, idx_mapping, rows_by_idx_mapping, table, row_stride, width,
                num_real_tokens, tokens_per_block, sink_tokens, attention_window, one_more_block, out):
    """[cpu] Fills out (int64 [num_tokens]): each token's slot, -1 where it reads no column of its row."""
    out[:] = -1
    t = np.arange(num_real_tokens)
    r = request_of_token[:num_real_tokens].astype(np.int64)
    row = idx_mapping[r].astype(np.int64) if rows_by_idx_mapping else r
    pos = positions[:num_real_tokens].astype(np.int64)
    kvpos = kv_token_index(pos, tokens_per_block, sink_tokens, attention_window, one_more_block)
    col = kvpos // tokens_per_block
    keep = (row >= 0) & (kvpos >= 0) & (col < width)
    t, row, col, kvpos = t[keep], row[keep], col[keep], kvpos[keep]
    block = table[row * row_stride + col].astype(np.int64)
    keep = block >= 0                # a -1 entry (KVCacheIndex null) is never submitted: PAD
    out[t[keep]] = block[keep] * tokens_per_block + kvpos[keep] % tokens_per_block


provider = slotguard.Provider("numpy-trtllm-paged", arrays="numpy")


@provider.family("trtllm_paged")
def run(call):
    block_slots(call.request_of_token, call.positions, call.idx_mapping, call.rows_by_idx_mapping,
                call.block_table, call.block_table_row_stride, call.block_table_width, call.num_real_tokens,
                call.tokens_per_block, call.sink_tokens, call.attention_window, bool(call.one_more_block),
                call.slot_mapping)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    provider.serve()
