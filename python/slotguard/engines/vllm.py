"""vLLM's own kernels behind `--kernel-cmd`, one binding per shipped vLLM family.

Each binding names the engine file and the top-level definitions it compiles
from it (source.EngineTree.bind: nothing of the engine is imported or
copied), and an adapter that calls them as the engine's caller does: the
caller's transforms first (a table gathered or clamped, a buffer filled),
then the engine's launcher or function with the caller's arguments, then the
engine's output buffers read back into slotguard's outputs. Every line that
stands for the engine cites path:line at vLLM 81be2e09 (upstream main, read
in the MatthewBonanni/vllm snapshot); what the adapter itself chooses says
"adapter".

The scenario's table is the engine's input table: request r reads row r; a
persistent table (rows_by_idx_mapping) is gathered as the v2 runner gathers
it (row idx_mapping[r]; a dummy, idx_mapping -1, gets the zeroed row the
gather gives a padded row: vllm/v1/worker/gpu/block_table.py:240-245).

A batch the engine never makes (a DFlash request without a context token, a
state column past the engine's table) is skipped with the reason, never run.
"""

from ..provider import Skip

__all__ = ["BINDINGS", "Binding"]

ENGINE = "vllm"
PAD_SLOT_ID = -1  # vllm/v1/attention/backends/utils.py: PAD_SLOT_ID = -1


class Binding(object):
    """One family's binding: the engine file, the definitions it compiles, the adapter that calls them."""

    def __init__(self, family, path, names, run, needs, namespace=None, options=None, extra=None):
        self.family = family
        self.path = path        # relative to the engine tree's root
        self.names = names      # the definitions compiled from it ("Class.method" for a method); names[0] is bound
        self.run = run          # run(call, fns, ops, options)
        self.needs = needs      # "triton" (a GPU), "torch" (torch, CPU or GPU) or "python" (host code)
        self.namespace = namespace or (lambda: {})  # the stand-ins the engine's code reads besides torch/triton
        self.options = options or {}  # --option NAME=VALUE the binding takes, with their defaults
        self.extra = extra or []      # (path, names) of further engine files the adapter calls

    @property
    def paths(self):
        return [self.path] + [path for path, _ in self.extra]

    @property
    def function(self):
        return self.names[0]


# ---------------------------------------------------------------------------
# The caller's view of slotguard's batch, on the host.


def _np():
    import numpy as np
    return np


def _parameters(fn):
    import inspect
    try:
        return inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}


def require_columns(call):
    """The engine's block tables have max_num_blocks >= 1 columns: a table of none is no batch it makes."""
    if call.block_table_width == 0 and call.num_reqs > 0:
        raise Skip("a table of no columns: the engine's block tables have at least one")


def input_rows(call, num_reqs=None):
    """int32 [R, W]: the engine's input table, row r for request r (see the module's docstring)."""
    np = _np()
    R = call.num_reqs if num_reqs is None else num_reqs
    W, stride = call.block_table_width, call.block_table_row_stride
    flat = np.asarray(call.block_table, dtype=np.int32)
    rows = np.zeros((R, W), dtype=np.int32)
    idx = np.asarray(call.idx_mapping, dtype=np.int64)[:R]
    for r in range(R):
        row = int(idx[r]) if call.rows_by_idx_mapping else r
        if row < 0:  # a padded row of the gathered table is zeroed (block_table.py:240-245)
            continue
        rows[r] = flat[row * stride:row * stride + W]
    return rows


def request_arrays(call, R):
    """int64 arrays of the batch's first R requests: (query_start_loc [R + 1], query lengths, seq_lens, idx_mapping)."""
    np = _np()
    qsl = np.asarray(call.query_start_loc, dtype=np.int64)[:R + 1]
    return (qsl, qsl[1:] - qsl[:-1], np.asarray(call.seq_lens, dtype=np.int64)[:R],
            np.asarray(call.idx_mapping, dtype=np.int64)[:R])


def persistent_table(call, idx):
    """The engine's persistent table, contiguous: (table int32 [max(rows, 1), W], rows, row_of), where row_of[r]
    is the row request r reads (idx_mapping[r] for a persistent table, else r; idx is idx_mapping[:R])."""
    np = _np()
    by_idx = bool(call.rows_by_idx_mapping)
    rows = call.block_table_rows if by_idx else len(idx)
    row_of = idx if by_idx else np.arange(len(idx))
    W, stride = call.block_table_width, call.block_table_row_stride
    flat = np.asarray(call.block_table, dtype=np.int32)
    table = np.zeros((max(rows, 1), W), dtype=np.int32)
    for k in range(rows):
        table[k] = flat[k * stride:k * stride + W]
    return table, rows, row_of


def skip_int32_slots(rows, block_size, where):
    """Skip a table whose entry times block_size passes int32: `where` (path:line) multiplies the int32 entry
    by block_size in int32, which would wrap; no engine cache holds 2^31 slots a layer (over 256 GiB a layer
    at 128 bytes a slot), so such a table is no input the engine makes."""
    np = _np()
    rows_read = np.abs(np.asarray(rows, dtype=np.int64))
    if rows_read.size and int(rows_read.max()) * block_size > 2 ** 31 - 1:
        raise Skip("an entry whose slot is past int32 (%d * block_size %d): the kernel multiplies the "
                   "int32 entry by block_size in int32 (%s), which would wrap; no engine cache "
                   "holds 2^31 slots a layer (over 256 GiB a layer at 128 bytes a slot)"
                   % (int(rows_read.max()), block_size, where))


def _ns(**kw):
    import types
    return types.SimpleNamespace(**kw)


# ---------------------------------------------------------------------------
# dflash: vllm/v1/worker/gpu/spec_decode/dflash/speculator.py


def run_dflash(call, fns, ops, options):
    """prepare_dflash_inputs (speculator.py:632-708), as DFlashSpeculator.propose calls it (speculator.py:376-399).

    slotguard's batch holds request r's context tokens, then its num_query_per_req query tokens; the
    engine's target batch is the context tokens alone, and its query buffer holds r * num_query_per_req + k."""
    require_columns(call)
    np = _np()
    R, T = call.num_reqs, call.num_tokens
    nq = call.num_query_per_req
    context_out, query_out = call.outputs
    context_out[:] = PAD_SLOT_ID  # adapter: padding tokens and the other output's tokens are PAD
    query_out[:] = PAD_SLOT_ID
    if R == 0:
        raise Skip("prepare_dflash_inputs asserts num_reqs > 0 (speculator.py:667)")
    qsl = np.asarray(call.query_start_loc, dtype=np.int64)[:R + 1]
    pos = np.asarray(call.positions, dtype=np.int64)
    q = qsl[1:] - qsl[:-1]
    num_ctx = q - nq
    if (num_ctx < 1).any():
        raise Skip("a request with fewer than num_query_per_req + 1 tokens: every request of the engine's "
                   "target batch has a context token (speculator.py:540-551 reads the last one)")
    ctx_qsl = np.concatenate([[0], np.cumsum(num_ctx)]).astype(np.int32)
    ctx_index = np.concatenate([np.arange(qsl[r], qsl[r] + num_ctx[r]) for r in range(R)])
    target_positions = pos[ctx_index]
    # The query positions the kernel computes are last_valid_pos + 1 + k, last_valid_pos the position of
    # context token ctx_end - num_rejected - 1 (speculator.py:526-532, 556): num_rejected is the context
    # tokens after the last one at the first query position - 1.
    num_rejected = np.zeros(R, dtype=np.int32)
    for r in range(R):
        first_query = int(qsl[r] + num_ctx[r])
        if not (pos[first_query:first_query + nq] == pos[first_query] + np.arange(nq)).all():
            raise Skip("request %d's query positions are not consecutive, as the kernel computes them "
                       "(speculator.py:556)" % r)
        context = pos[qsl[r]:first_query]
        at = np.nonzero(context == pos[first_query] - 1)[0]
        if len(at) == 0:
            raise Skip("request %d: no context token at the position before its first query "
                       "(the kernel's last_valid_pos, speculator.py:531-532)" % r)
        num_rejected[r] = int(num_ctx[r]) - 1 - int(at[-1])
    num_target_tokens = int(ctx_qsl[-1])
    max_num_reqs = R               # adapter: the engine's per-request buffers hold at least num_reqs
    max_num_tokens = R * nq        # adapter: the query buffer's padded length (the kernel PADs past R * nq)
    num_speculative_steps = nq - 1  # speculator.py:46: num_query_per_req = 1 + num_speculative_steps
    rows = input_rows(call)
    # The engine's dummies are a dummy run's requests, on rows get_dummy_block_tables zeroes
    # (vllm/v1/worker/gpu/block_table.py:165-176), idx_mapping arange (input_batch.py:113-114): the
    # description reads a dummy's row as the scenario gives it (a persistent table's dummy: no row, all -1).
    for r in np.nonzero(np.asarray(call.idx_mapping, dtype=np.int64)[:R] < 0)[0]:
        if call.rows_by_idx_mapping or rows[r].any():
            raise Skip("request %d: a dummy whose row is not zeroed: the engine's dummies are a dummy run's "
                       "requests, whose rows get_dummy_block_tables zeroes (vllm/v1/worker/gpu/block_table.py:"
                       "165-176)" % r)
    # The engine's tables are [max_num_reqs, max_num_blocks] contiguous: the kernel clamps the column to
    # block_table.stride(0) - 1 (speculator.py:544, 562; the launcher passes block_table.stride(0), :699).
    block_table = ops.tensor(rows, "i32")
    input_buffers = _ns(input_ids=ops.full((max(R * nq, 1),), 0, "i32"),
                        positions=ops.full((max(R * nq, 1),), 0, "i64"),
                        query_start_loc=ops.full((max_num_reqs + 1,), 0, "i32"),
                        seq_lens=ops.full((max_num_reqs,), 0, "i32"))
    query_slot_mapping = ops.full((max(max_num_tokens, 1),), 0, "i64")
    context_positions = ops.full((max(num_target_tokens, 1),), 0, "i64")
    context_slot_mapping = ops.full((max(num_target_tokens, 1),), 0, "i64")
    samples = max(max_num_reqs * num_speculative_steps, 1)
    input_batch = _ns(num_reqs=R,
                      num_scheduled_tokens=num_ctx.astype(np.int32),  # host array (.max(), speculator.py:670)
                      positions=ops.tensor(target_positions, "i64"),
                      query_start_loc=ops.tensor(ctx_qsl, "i32"),
                      idx_mapping=ops.tensor(np.arange(R), "i32"))  # adapter: request r's sampling state r
    launcher = fns["prepare_dflash_inputs"]
    # Newer upstream launchers (00746147) take the decode context-parallel setting after block_size: one
    # rank of one here (cp_rank 0, cp_size 1, cp_interleave 1), passed by name where the launcher has it.
    cp = {name: value for name, value in (("cp_rank", 0), ("cp_size", 1), ("cp_interleave", 1))
          if name in _parameters(launcher)}
    launcher(
        input_buffers=input_buffers, query_slot_mapping=query_slot_mapping, context_positions=context_positions,
        context_slot_mapping=context_slot_mapping, sample_indices=ops.full((samples,), 0, "i64"),
        sample_pos=ops.full((samples,), 0, "i64"), sample_idx_mapping=ops.full((samples,), 0, "i32"),
        temperature=ops.full((max_num_reqs,), 0, "i64"), seeds=ops.full((max_num_reqs,), 0, "i64"),
        input_batch=input_batch,
        num_sampled=ops.full((R,), 1, "i32"),          # a decode step: the bonus token was sampled
        num_rejected=ops.tensor(num_rejected, "i32"),  # (above)
        last_sampled=ops.full((R,), 0, "i64"), next_prefill_tokens=ops.full((R,), 0, "i32"),
        input_temperature=ops.full((R,), 0, "i64"), input_seeds=ops.full((R,), 0, "i64"),
        block_table=block_table, block_size=call.block_size,
        parallel_drafting_token_id=0,                  # a token id, no slot
        num_query_per_req=nq, num_speculative_steps=num_speculative_steps, max_num_reqs=max_num_reqs,
        max_num_tokens=max_num_tokens, max_model_len=call.max_model_len,
        sample_from_anchor=options.get("sample_from_anchor", "0") == "1", **cp)
    ops.sync()
    ctx_slots = ops.host(context_slot_mapping)
    q_slots = ops.host(query_slot_mapping)
    for r in range(R):
        begin = int(qsl[r])
        n = int(num_ctx[r])
        context_out[begin:begin + n] = ctx_slots[ctx_qsl[r]:ctx_qsl[r] + n]
        query_out[begin + n:begin + n + nq] = q_slots[r * nq:(r + 1) * nq]


# ---------------------------------------------------------------------------
# eagle_step: vllm/v1/spec_decode/utils.py


def run_eagle_step(call, fns, ops, options):
    """eagle_step_update_slot_mapping_and_metadata (utils.py:88-136), as LLMBaseProposer's
    _update_positions_dependent_metadata calls it (llm_base_proposer.py:789-798): batch_size requests,
    input_batch_size the CUDA-graph-padded count (here num_tokens: the rows past num_reqs are PAD)."""
    require_columns(call)
    np = _np()
    R, T = call.num_reqs, call.num_tokens
    out = call.slot_mapping
    out[:] = PAD_SLOT_ID
    qsl = np.asarray(call.query_start_loc, dtype=np.int64)[:R + 1]
    if R and not ((qsl[1:] - qsl[:-1]) == 1).all():
        raise Skip("an EAGLE draft step has one token per request")
    if T == 0:
        return  # adapter: no row to launch (a grid of 0 programs)
    pos = np.asarray(call.positions, dtype=np.int64)[:R]
    # common_attn_metadata.block_table_tensor: [batch_size, n_blocks_per_req]; the launcher reads its
    # shape[1] and stride(0) (utils.py:121-125): the scenario's rows, in its layout.
    if call.rows_by_idx_mapping:
        if (np.asarray(call.idx_mapping, dtype=np.int64)[:R] < 0).any():
            raise Skip("a dummy request of a persistent table: the proposer's block_table_tensor holds the "
                       "batch's live requests' rows, and no dummy request reaches the drafter "
                       "(gpu_model_runner.py:2616-2624)")
        table = ops.tensor(input_rows(call), "i32")
    else:
        flat = ops.tensor(np.asarray(call.block_table, dtype=np.int32), "i32")
        if call.block_table_rows < R:
            raise Skip("fewer table rows than requests")
        table = ops.strided(flat, (R, call.block_table_width), (call.block_table_row_stride, 1))
    skip_int32_slots(input_rows(call), call.block_size, "utils.py:73-74")
    slot_mapping = ops.full((T,), 0, "i64")   # the proposer's _slot_mapping_buffer[:input_batch_size]
    fns["eagle_step_update_slot_mapping_and_metadata"](
        positions_1d=ops.tensor(pos, "i64"),
        block_table_tensor=table,
        seq_lens=ops.tensor(np.asarray(call.seq_lens_i32, dtype=np.int32)[:R], "i32"),
        block_size=call.block_size,
        max_model_len=call.max_model_len,
        out_clamped_positions=ops.full((max(R, 1),), 0, "i64"),
        out_slot_mapping=slot_mapping,
        input_batch_size=T)
    ops.sync()
    out[:] = ops.host(slot_mapping)[:T]


# ---------------------------------------------------------------------------
# eagle_step_chain: the proposer's draft loop around the same launcher


def run_eagle_step_chain(call, fns, ops, options):
    """SpecDecodeBaseProposer.propose's draft loop (llm_base_proposer.py:685-703): step s launches
    eagle_step_update_slot_mapping_and_metadata (utils.py:88-136) as _update_positions_dependent_metadata
    does (llm_base_proposer.py:789-798), its positions_1d the previous step's out_clamped_positions
    (:797, :809, used at :697) and the same seq_lens tensor, updated in place. Token s of request r is
    step s; step 0 starts from the request's first position. Every request runs every step (the loop's
    batch is the same), a request's later steps past its tokens are no token here."""
    np = _np()
    require_columns(call)
    R, T = call.num_reqs, call.num_tokens
    out = call.slot_mapping
    out[:] = PAD_SLOT_ID
    if R == 0 or T == 0:
        return
    qsl = np.asarray(call.query_start_loc, dtype=np.int64)[:R + 1]
    q = qsl[1:] - qsl[:-1]
    pos = np.asarray(call.positions, dtype=np.int64)
    for r in range(R):
        if q[r] and not (pos[qsl[r]:qsl[r + 1]] == pos[qsl[r]] + np.arange(q[r])).all():
            raise Skip("request %d's steps are not consecutive positions, as the chained steps are" % r)
        if q[r] and not 0 <= pos[qsl[r]] < call.max_model_len:
            # The first step starts from the position of the target's last accepted token
            # (llm_base_proposer.py:632-635), one the scheduler kept below max_model_len
            # (vllm/v1/core/sched/scheduler.py:526-533); the later steps wrap from there.
            raise Skip("request %d's first step starts at position %d, outside [0, max_model_len): the "
                       "proposer's first position is a target token's (llm_base_proposer.py:632-635), which "
                       "the scheduler keeps below max_model_len (scheduler.py:526-533)" % (r, int(pos[qsl[r]])))
    if call.rows_by_idx_mapping and (np.asarray(call.idx_mapping, dtype=np.int64)[:R] < 0).any():
        raise Skip("a dummy request of a persistent table: the proposer's block_table_tensor holds the "
                   "batch's live requests' rows, and no dummy request reaches the drafter "
                   "(gpu_model_runner.py:2616-2624)")
    skip_int32_slots(input_rows(call), call.block_size, "utils.py:73-74")
    table = ops.tensor(input_rows(call), "i32")
    seq_lens = ops.tensor(np.asarray(call.seq_lens_i32, dtype=np.int32)[:R], "i32")
    positions = ops.tensor(np.array([pos[qsl[r]] if q[r] else 0 for r in range(R)]), "i64")
    for step in range(int(q.max())):
        clamped = ops.full((R,), 0, "i64")
        slots = ops.full((R,), 0, "i64")
        fns["eagle_step_update_slot_mapping_and_metadata"](
            positions_1d=positions, block_table_tensor=table, seq_lens=seq_lens, block_size=call.block_size,
            max_model_len=call.max_model_len, out_clamped_positions=clamped, out_slot_mapping=slots,
            input_batch_size=R)
        ops.sync()
        host = ops.host(slots)
        for r in range(R):
            if step < q[r]:
                out[qsl[r] + step] = host[r]
        positions = clamped  # the next step reads this step's clamped positions (llm_base_proposer.py:697)


# ---------------------------------------------------------------------------
# vllm_extract_hidden_states: the target's slot mapping, copied into the proposer's buffer


def run_extract_hidden_states(call, fns, ops, options):
    """The target's slot mapping, as BlockTable.compute_slot_mapping launches _compute_slot_mapping_kernel
    (vllm/v1/worker/block_table.py:182-211: one program per request and one that PAD-fills
    [num_tokens, max_num_tokens); here one KV-cache block per kernel block and no DCP), then
    ExtractHiddenStatesProposer._get_slot_mapping (vllm/v1/spec_decode/extract_hidden_states.py:182-198),
    which copies it into the proposer's buffer and PAD-fills it to the padded token count."""
    np = _np()
    require_columns(call)
    R, T = call.num_reqs, call.num_tokens
    out = call.slot_mapping
    idx = np.asarray(call.idx_mapping, dtype=np.int64)[:R]
    if (idx < 0).any():
        raise Skip("a dummy request: the drafter's metadata is the target's, unpadded, of live requests "
                   "(gpu_model_runner.py:2616-2624)")
    if T == 0:
        return
    qsl = np.asarray(call.query_start_loc, dtype=np.int32)[:R + 1]
    real = int(qsl[-1]) if R else 0
    pos = np.asarray(call.positions, dtype=np.int64)[:real]
    req = np.repeat(np.arange(R), np.diff(qsl.astype(np.int64)))
    if real and (pos // call.block_size >= call.block_table_width).any():
        r = int(req[np.argmax(pos // call.block_size >= call.block_table_width)])
        raise Skip("request %d has a token past its row: the engine's rows hold cdiv(max_model_len, block_size) "
                   "columns (kv_cache_interface.py:139-149, block_table.py:103-106) and the scheduler keeps every "
                   "position below max_model_len (scheduler.py:526-533); the kernel's load has no column bound "
                   "(block_table.py:430-435)" % r)
    target = ops.full((T,), 0, "i64")  # the target's slot_mapping buffer, max_num_batched_tokens here T
    fns["_compute_slot_mapping_kernel"][(R + 1,)](
        real, T, ops.tensor(qsl, "i32"), ops.tensor(np.asarray(call.positions, dtype=np.int64)[:max(real, 1)], "i64"),
        ops.tensor(input_rows(call), "i32"), call.block_table_width, call.block_size, target,
        KV_CACHE_BLOCK_SIZE=call.block_size, BLOCKS_PER_KV_BLOCK=1, TOTAL_CP_WORLD_SIZE=1, TOTAL_CP_RANK=0,
        CP_KV_CACHE_INTERLEAVE_SIZE=1, PAD_ID=PAD_SLOT_ID, BLOCK_SIZE=1024)
    proposer = _ns(_slot_mapping_buffer=ops.full((T,), 0, "i64"), attn_layer_names=["cache_only"])
    # common_attn_metadata.slot_mapping is the target's over the scheduled tokens, query_start_loc[R]: the
    # drafter gets the metadata unpadded to num_tokens (gpu_model_runner.py:2616-2624, backend.py:568-588
    # slot_mapping[:num_actual_tokens]), or unsliced when num_tokens == num_tokens_padded.
    views = fns["ExtractHiddenStatesProposer._get_slot_mapping"](proposer, T, target[:real])
    ops.sync()
    out[:] = ops.host(views["cache_only"])[:T]


# ---------------------------------------------------------------------------
# dsv4_compressed: vllm/v1/attention/backends/mla/compressor_utils.py


def run_dsv4_compressed(call, fns, ops, options):
    """get_compressed_slot_mapping (compressor_utils.py:53-86) as a caller calls it:
    --option caller=sparse_mla (default): DeepseekV4's sparse MLA builder, the table clamped in place first,
    cm.block_table_tensor.clamp_(min=0), num_tokens = num_actual_tokens (sparse_mla.py:207-215);
    --option caller=indexer: the indexer's builder, the table as it is, num_tokens = the batch's tokens
    (indexer.py:797-805)."""
    require_columns(call)
    np = _np()
    caller = options.get("caller", "sparse_mla")
    if caller not in ("sparse_mla", "indexer"):
        raise ValueError("--option caller=%s: expected sparse_mla or indexer" % caller)
    R, T = call.num_reqs, call.num_tokens
    ratio, S = call.compress_ratio, call.block_size
    if ratio < 2:
        raise Skip("compress_ratio %d: both callers launch it only for a compressed layer, compress_ratio > 1 "
                   "(sparse_mla.py:207, indexer.py:793; DeepSeek-V4's ratios are 4 and 128)" % ratio)
    qsl = np.asarray(call.query_start_loc, dtype=np.int64)[:R + 1]
    seq = np.asarray(call.seq_lens, dtype=np.int64)[:R]
    if (seq > INT32_MAX).any():
        raise Skip("a seq_len past int32: the engine's seq_lens are int32 (gpu_model_runner.py:780-782, "
                   "V2 gpu/input_batch.py:29), so no request of it is that long")
    for r in range(R):
        q = int(qsl[r + 1] - qsl[r])
        if q > seq[r]:
            raise Skip("request %d: %d tokens, seq_len %d: the engine's seq_len counts the request's scheduled "
                       "tokens (the kernel's start_pos = seq_len - query_len >= 0, compressor_utils.py:30-31)"
                       % (r, q, int(seq[r])))
        last = int(seq[r]) - 1  # the kernel's column grows with pos: the last position's is the largest
        if q and last // ratio // S >= call.block_table_width:
            raise Skip("request %d reads column %d of a %d-column table: the engine's table covers "
                       "max_model_len >= seq_len (vllm/v1/worker/block_table.py:20-40), and the kernel has no "
                       "column bound (compressor_utils.py:41-45)" % (r, last // ratio // S, call.block_table_width))
    if call.rows_by_idx_mapping and (np.asarray(call.idx_mapping, dtype=np.int64)[:R] < 0).any():
        raise Skip("a dummy request of a persistent table: the description reads it no row (PAD), the engine "
                   "hands the kernel a zeroed padded row (vllm/v1/worker/gpu/block_table.py:241-246)")
    rows = input_rows(call)
    if caller == "sparse_mla" and R and call.num_actual_tokens < qsl[R]:
        raise Skip("num_actual_tokens %d below query_start_loc[num_reqs] = %d: the engine's is the padded token "
                   "count (gpu_model_runner.py:2446), never fewer than the requests' tokens (with 0 the kernel "
                   "stores through an empty view's null pointer)" % (call.num_actual_tokens, int(qsl[R])))
    if caller == "sparse_mla":
        rows = np.maximum(rows, 0)  # block_table_tensor.clamp_(min=0) (sparse_mla.py:212)
        num_tokens = call.num_actual_tokens   # cm.num_actual_tokens (sparse_mla.py:209)
    else:
        num_tokens = T                        # num_tokens (indexer.py:798)
    skip_int32_slots(rows, call.block_size, "compressor_utils.py:46")
    # out: the builder's compressed_slot_mapping_buffer; the launcher fills all of it with -1 first
    # (compressor_utils.py:62-68); here its length is the batch's tokens.
    buffer = ops.full((max(T, 1),), 0, "i64")
    if R == 0:
        call.slot_mapping[:] = -1  # adapter: no program to launch; the launcher's fill(-1) is all (:66)
        return
    fns["get_compressed_slot_mapping"](
        num_tokens, ops.tensor(np.asarray(call.query_start_loc, dtype=np.int32)[:R + 1], "i32"),
        ops.tensor(np.asarray(call.seq_lens_i32, dtype=np.int32)[:R], "i32"),   # cm.seq_lens: int32
        ops.tensor(rows, "i32"), call.block_size, call.compress_ratio, out=buffer)
    ops.sync()
    out = ops.host(buffer)
    call.slot_mapping[:] = out[:T]  # the buffer as the kernel left it (writes past num_tokens included)


# ---------------------------------------------------------------------------
# vllm_mamba, vllm_gdn, vllm_lightning: vllm/v1/attention/backends/utils.py


STATE_PATH = "vllm/v1/attention/backends/utils.py"
INT32_MAX = 2 ** 31 - 1


class MambaSpec(object):
    """Stand-in for vllm.v1.kv_cache_interface.MambaSpec: the two fields mamba_get_block_table_tensor reads."""

    def __init__(self, block_size, num_speculative_blocks=0):
        self.block_size = block_size
        self.num_speculative_blocks = num_speculative_blocks


def run_state_index(call, fns, ops, options):
    """mamba_get_block_table_tensor(block_table, seq_lens, spec, mode) (utils.py:998-1036), the state table
    every Mamba-type builder takes (mamba_attn.py:490-532, gdn_attn.py:182-219, linear_attn.py:72-77), then
    the column the state kernels read:
      - none and align modes: column 0 of it (mamba_attn.py:528-532 prefill [:, 0], gdn_attn.py:219,
        linear_attn.py:77); with speculative decoding (`spec`), its 1 + num_speculative_blocks columns,
        read at num_accepted - 1 (fused_sigmoid_gating.py:105-110; here num_speculative_blocks is
        num_accepted - 1, the fewest that column needs);
      - all mode (`cache_all`): the table as it is, read at block_idx_last_computed_token
        (BaseMambaAttentionMetadataBuilder._compute_prefix_caching_block_indices, mamba_attn.py:375-417,
        called at :497-503).
    A padded row (a dummy here) is the runner's zeroed row (block_table.py:240-245, :165-176);
    mamba_attn.py:707 and gdn_attn.py:478 then fill NULL_BLOCK_ID (0) past num_decodes, the same 0."""
    np = _np()
    R = call.num_reqs
    out = call.slot_mapping
    if R == 0:
        return
    params = call.params
    align, cache_all = bool(params.get("align", 0)), bool(params.get("cache_all", 0))
    spec, accepted = bool(params.get("spec", 0)), int(params.get("num_accepted", 1))
    if align and cache_all:
        raise Skip("align and all are two values of one mamba_cache_mode")
    if cache_all and spec:
        raise Skip("all mode with speculative decoding is not bound")
    bs = call.block_size
    rows = input_rows(call)
    idx = np.asarray(call.idx_mapping, dtype=np.int64)[:R]
    rows[idx < 0] = 0  # a dummy is a padded row: zeroed (block_table.py:240-245, :165-176)
    if (np.asarray(call.seq_lens, dtype=np.int64)[:R] > INT32_MAX).any():
        raise Skip("a seq_len past int32: the engine's seq_lens are int32 (gpu_model_runner.py:780-782, "
                   "V2 gpu/input_batch.py:29), so no request of it is that long")
    seq_lens = np.asarray(call.seq_lens_i32, dtype=np.int32)[:R]
    qsl = np.asarray(call.query_start_loc, dtype=np.int64)[:R + 1]
    q = (qsl[1:] - qsl[:-1]).astype(np.int32)
    W = rows.shape[1]
    extra = accepted - 1 if spec else 0
    if W <= extra:
        raise Skip("a table of %d columns: the engine's Mamba table has 1 + num_speculative_blocks at least" % W)
    if align:
        start = np.maximum((seq_lens.astype(np.int64) - 1) // bs, 0)
        if (start + extra >= W).any():
            raise Skip("align mode: a column past the table; the engine's table holds "
                       "cdiv(max_model_len, block_size) columns, and torch.gather would raise")
    mode = "all" if cache_all else "align" if align else "none"
    seq_lens_t = ops.tensor(seq_lens, "i32")
    table = fns["mamba_get_block_table_tensor"](ops.tensor(rows, "i32"), seq_lens_t, MambaSpec(bs, extra), mode)
    if cache_all:
        if ((seq_lens.astype(np.int64) - q) + bs - 1 > INT32_MAX).any():
            raise Skip("all mode: num_computed + block_size - 1 past int32, which the engine's int32 torch.div "
                       "wraps to a negative column clamped to 0 (mamba_attn.py:380-388, 409); only a max_model_len "
                       "within mamba_block_size of 2^31 gets there (not modelled)")
        q_t = ops.tensor(q, "i32")
        cm = _ns(seq_lens=seq_lens_t, compute_num_computed_tokens=lambda: seq_lens_t - q_t)
        last = fns["BaseMambaAttentionMetadataBuilder._compute_prefix_caching_block_indices"](None, cm, bs)[0]
        ops.sync()
        cols = np.asarray(ops.host(last), dtype=np.int64)
        if (cols >= W).any():
            raise Skip("all mode: the last computed token's column is past the table")
        out[:] = ops.host(table)[np.arange(R), cols]
        return
    ops.sync()
    out[:] = ops.host(table)[:, extra]


# ---------------------------------------------------------------------------
# vllm_mamba_copy: vllm/v1/worker/mamba_utils.py (V2 align pre-copy)

SENTINEL = -(2 ** 62)


def cleared_ops(call):
    """A block-op family's two outputs (sources, destinations), every operation -1 (none) to begin with."""
    src_out, dst_out = call.outputs
    src_out[:] = -1
    dst_out[:] = -1
    return src_out, dst_out


def advance_running_column(fns, ops, slot, state_idx, num_computed, query_len, block_size):
    """preprocess_mamba_align_fused_kernel (mamba_utils.py:281-323) for one request, in slot 0 of its arrays
    (`slot`: [0], or [-1] for a dummy): state_idx (int32 [1]) advances to the running column
    cdiv(num_computed + query_len, block_size) - 1. Returns the column it held before (int32 [1])."""
    src_col = ops.full((1,), 0, "i32")
    fns["preprocess_mamba_align_fused_kernel"][(1,)](
        slot, state_idx, ops.tensor([num_computed], "i32"), ops.tensor([0, query_len], "i32"),
        ops.tensor([1], "i32"), src_col, ops.full((1,), 0, "i32"), 1, BLOCK_SIZE=256, MAMBA_BLOCK_SIZE=block_size)
    return src_col


def run_mamba_copy(call, fns, ops, options):
    """The V2 align pre-copy as MambaHybridModelState.preprocess_state runs it (mamba_hybrid.py:160-205):
    preprocess_mamba_align_fused_kernel (mamba_utils.py:281-323) advances the running column and names
    the source column; precopy_mamba_align_fused_kernel (mamba_utils.py:327-403) copies
    state[bt[src_col]] into state[bt[dst_col]] through _copy_mamba_state_block (mamba_utils.py:27-150).

    Which blocks it copied is read from the state it copied: the adapter hands it one conv state of
    width 2, one int64 per token, token_bias 1, so block b holds [SENTINEL, b] and a copy writes
    state[dst][0] = state[src][1] = src (mamba_utils.py:104-120). One launch per request, so each copy is
    its request's. The previous running column is (num_computed - 1) // block_size, as V1's
    preprocess_mamba derives it for a request it has not seen (mamba_utils.py:1084-1087)."""
    np = _np()
    R = call.num_reqs
    src_out, dst_out = cleared_ops(call)
    if R == 0:
        return  # preprocess_state returns on num_reqs == 0 (mamba_hybrid.py:176-177)
    bs = call.block_size
    rows = input_rows(call)
    W = rows.shape[1]
    qsl, q, seq_lens, idx = request_arrays(call, R)
    if (seq_lens > INT32_MAX).any():
        raise Skip("a seq_len past int32: V2's num_computed_tokens and seq_lens are int32 (gpu/states.py:58-60, "
                   "gpu/input_batch.py:29), so no request of it is that long")
    if (seq_lens + bs - 1 > INT32_MAX).any():
        raise Skip("seq_len + block_size - 1 past int32, which preprocess_mamba_align_fused_kernel's int32 "
                   "(computed_after + MAMBA_BLOCK_SIZE - 1) // MAMBA_BLOCK_SIZE wraps (mamba_utils.py:318-320); "
                   "only a max_model_len within block_size of 2^31 gets there (not modelled)")
    num_computed = seq_lens - q
    if (num_computed < 0).any():
        raise Skip("seq_len < query length: a negative num_computed_tokens")
    curr = -(-seq_lens // bs) - 1
    if (curr >= W).any():
        raise Skip("a running column past the table: the engine's align-mode table holds "
                   "cdiv(max_model_len, block_size) columns")
    for r in range(R):
        if idx[r] < 0:
            continue  # dummy runs skip preprocess_state (mamba_hybrid.py:167-169)
        # adapter: the row's block ids relabelled densely, their order kept and a negative id still before
        # the pool, so that the state holds one block per id of the row (ids near 2^31 need no 2^31 blocks);
        # the kernel addresses state_base + id * stride (mamba_utils.py:78-79, 107-109), the same for any ids.
        ids = np.unique(rows[r].astype(np.int64))
        margin = int((ids < 0).sum())      # blocks before the pool that a negative id lands in
        dense = np.searchsorted(ids, rows[r].astype(np.int64)) - margin
        state = np.zeros((len(ids), 2), dtype=np.int64)
        state[:, 0] = SENTINEL
        state[:, 1] = np.arange(len(ids)) - margin
        state_t = ops.tensor(state.reshape(-1), "i64")
        row_t = ops.tensor(dense, "i32")
        state_idx = ops.tensor([(int(num_computed[r]) - 1) // bs], "i32")  # int32, as _mamba_state_idx_gpu
        one = ops.tensor([0], "i32")  # adapter: request r alone, in slot 0 of its own arrays
        src_col = advance_running_column(fns, ops, one, state_idx, num_computed[r], q[r], bs)
        fns["precopy_mamba_align_fused_kernel"][(1, 1)](
            state_idx, src_col, ops.tensor([1], "i32"),
            ops.tensor([ops.data_ptr(row_t)], "i64"), W,              # block_table_ptrs: int64 (:591)
            ops.tensor([ops.data_ptr(state_t) + margin * 16], "i64"),  # state_base_addrs: int64 (:558)
            ops.tensor([16], "i64"), ops.tensor([8], "i32"),           # block stride (bytes), element size
            ops.tensor([1], "i64"), ops.tensor([2], "i32"),            # inner size, conv width 2
            ops.tensor([0], "i32"), ops.tensor([0], "i32"), ops.tensor([0], "i64"),  # group 0, no DS rows
            one, 1, COPY_BLOCK_SIZE=1024, CONV_STATE_DIM_FIRST=False, HAS_IDX_MAPPING=True)
        ops.sync()
        after = ops.host(state_t).reshape(-1, 2)
        written = np.nonzero(after[:, 0] != SENTINEL)[0]
        if len(written) > 1:
            raise RuntimeError("request %d: the copy wrote %d blocks; expected at most one" % (r, len(written)))
        if len(written) == 1:
            dst_out[r] = int(ids[written[0]])
            src_out[r] = int(ids[int(after[written[0], 0]) + margin])
        del row_t, state_t


def run_mamba_postcopy(call, fns, ops, options):
    """The V2 align post-copy after speculative decoding, as MambaHybridModelState.postprocess_state runs it
    (mamba_hybrid.py:289-328): the running column as preprocess_mamba_align_fused_kernel left it this step
    (mamba_utils.py:281-323), then postprocess_mamba_fused_kernel (mamba_utils.py:153-277) through
    run_fused_postprocess_align's call (mamba_utils.py:844-900: HAS_IDX_MAPPING, PRECOMPUTED_NEW_COMPUTED),
    which decides and copies through _copy_mamba_state_block (mamba_utils.py:27-150).

    The caller's state: new_num_computed is the count the runner advanced by q - num_rejected
    (gpu/input_batch.py:533-538), num_rejected = num_logits - num_sampled, 0 while a prefill chunk
    (input_batch.py:445-456): seq_len for a prefill row, seq_len - 1 - num_draft + num_accepted for a decode
    of q - 1 drafts (num_accepted = max(num_sampled, 1) = num_sampled, mamba_hybrid.py:301-311). The
    previous running column is (num_computed - 1) // block_size, as for vllm_mamba_copy.

    Which blocks it copied is read from the state it copied: adapter: one launch per request, two states
    (state 0 temporal, 16 bytes a block; state 1 a conv state of int64 tokens, wide enough that a shift by
    the accepted-token bias leaves one), and the row handed to the kernel holds column c's own block c, so
    that a copy is seen whatever ids the row holds (the kernel's decisions read columns, never ids; an id
    is only an address, mamba_utils.py:76-79, 105-122). Token k of column c's block holds base * (k + 1) + c:
    the temporal destination then holds its source column, the conv destination's first token its source
    column and the shift. Operation 0 of a request is the temporal copy, 1 the conv copy."""
    np = _np()
    R = call.num_reqs
    src_out, dst_out = cleared_ops(call)
    if R == 0:
        return  # postprocess_state returns on num_reqs == 0 (mamba_hybrid.py:297-299)
    require_columns(call)
    bs = call.block_size
    rows = input_rows(call)
    W = rows.shape[1]
    qsl, q, seq_lens, idx = request_arrays(call, R)
    inputs = getattr(call, "inputs", None) or {}
    accepted = np.asarray(inputs.get("num_accepted", np.ones(R)), dtype=np.int64)[:R]
    prefill = np.asarray(inputs.get("prefill", np.zeros(R)), dtype=np.int64)[:R]
    live = idx >= 0
    if (seq_lens[live] + bs - 1 > INT32_MAX).any():
        raise Skip("a seq_len within block_size of int32: V2's counts are int32 (gpu/states.py:58-60) and "
                   "preprocess_mamba_align_fused_kernel's (computed_after + MAMBA_BLOCK_SIZE - 1) wraps there "
                   "(mamba_utils.py:318-320)")
    num_computed = seq_lens - q
    if (num_computed[live] < 0).any():
        raise Skip("seq_len < query length: a negative num_computed_tokens")
    num_draft = np.where(prefill == 1, 0, np.maximum(q - 1, 0))  # scheduler.py:642-653: drafts only to decodes
    if (live & (prefill == 0) & (accepted > 1 + num_draft)).any():
        raise Skip("num_accepted above 1 + num_draft: the engine samples at most num_logits = 1 + num_draft "
                   "tokens (input_batch.py:453-455)")
    if (live & (prefill == 1) & (accepted != 1)).any():
        raise Skip("a prefill row with num_accepted other than 1: a prefill samples at most one token")
    new_computed = seq_lens - 1 - num_draft + accepted  # input_batch.py:533-538, num_rejected 455-456
    running_col = -(-seq_lens // bs) - 1
    running = new_computed - accepted + 1
    aligned = new_computed // bs * bs
    copies = live & (aligned >= running)
    if (copies & ((running_col + aligned - running >= W) | (running_col >= W))).any():
        raise Skip("a column the copy reads past the row: the engine's align-mode rows hold the running column "
                   "and num_speculative_tokens more (single_type_kv_cache_manager.py:1551-1600)")
    base = W + 1
    conv_width = int(accepted.max()) + 1   # adapter: a shift by bias <= num_accepted - 1 leaves a token
    for r in range(R):
        row_t = ops.tensor(np.arange(W), "i32")  # adapter: column c holds block c (see the docstring)
        temporal = np.stack([base + np.arange(W), base + np.arange(W)], axis=1).astype(np.int64)
        conv = (base * (np.arange(conv_width)[None, :] + 1) + np.arange(W)[:, None]).astype(np.int64)
        temporal_t = ops.tensor(temporal.reshape(-1), "i64")
        conv_t = ops.tensor(conv.reshape(-1), "i64")
        state_idx = ops.tensor([(int(num_computed[r]) - 1) // bs if live[r] else 0], "i32")
        one = ops.tensor([0 if live[r] else -1], "i32")  # adapter: request r alone, in slot 0 of its arrays
        if live[r]:  # preprocess_state runs on real batches only (mamba_hybrid.py:167-172)
            advance_running_column(fns, ops, one, state_idx, num_computed[r], q[r], bs)
        fns["postprocess_mamba_fused_kernel"][(1, 2)](
            ops.tensor([accepted[r]], "i32"),  # the num_accepted snapshot (:866-868), int32 (mamba_hybrid.py:75-77)
            state_idx, None, ops.tensor([new_computed[r] if live[r] else 0], "i32"), None,
            ops.tensor([ops.data_ptr(row_t)], "i64"), W,       # block_table_ptrs, stride between requests
            ops.tensor([ops.data_ptr(temporal_t), ops.data_ptr(conv_t)], "i64"),  # state_base_addrs
            ops.tensor([16, 8 * conv_width], "i64"),            # block strides, bytes
            ops.tensor([8, 8], "i32"), ops.tensor([2, 1], "i64"),  # element sizes, inner sizes
            ops.tensor([0, conv_width], "i32"),                 # conv widths: 0 temporal
            ops.tensor([0, 0], "i32"), ops.tensor([0, 0], "i32"), ops.tensor([0, 0], "i64"),  # one group, no DS rows
            ops.tensor([accepted[r]], "i32"), one, 1,           # num_accepted out, idx_mapping, num_reqs
            block_size=bs, COPY_BLOCK_SIZE=1024, CONV_STATE_DIM_FIRST=False, HAS_IDX_MAPPING=True,
            PRECOMPUTED_NEW_COMPUTED=True)
        ops.sync()
        t_after = ops.host(temporal_t).reshape(-1, 2)
        c_after = ops.host(conv_t).reshape(-1, conv_width)
        for op, written in ((0, np.nonzero(t_after[:, 0] != temporal[:, 0])[0]),
                            (1, np.nonzero(c_after[:, 0] != conv[:, 0])[0])):
            if len(written) > 1:
                raise RuntimeError("request %d: op %d wrote %d blocks; expected at most one" % (r, op, len(written)))
            if len(written) == 1:
                col = int(written[0])
                value = int(t_after[col, 0] if op == 0 else c_after[col, 0])
                dst_out[r * 2 + op] = int(rows[r, col])
                src_out[r * 2 + op] = int(rows[r, value % base])
        del row_t, temporal_t, conv_t


# ---------------------------------------------------------------------------
# vllm_offload_store: vllm/distributed/kv_transfer/kv_connector/v1/offloading/scheduler.py

OFFLOAD_PATH = "vllm/distributed/kv_transfer/kv_connector/v1/offloading/scheduler.py"
OFFLOAD_NAMES = ["OffloadingConnectorScheduler._build_store_jobs",
                 "OffloadingConnectorScheduler._calc_num_offloadable_tokens",
                 "RequestOffloadState.storable_chunks", "RequestOffloadState.advance_stored_idx",
                 "RequestOffloadState.update_offload_keys", "is_store_reachable_swa_chunk"]


def offload_namespace():
    """Stand-ins for what _build_store_jobs reads of the engine besides its own code: the spec classes it
    builds (it only stores their fields), the logger, the request status enum."""
    import itertools
    import types

    class Record(object):
        def __init__(self, *args, **kw):
            self.args = args
            self.__dict__.update(kw)

    class GPULoadStoreSpec(Record):
        def __init__(self, block_ids, group_sizes=None, block_indices=None):
            Record.__init__(self, block_ids=list(block_ids), group_sizes=group_sizes, block_indices=block_indices)

    quiet = types.SimpleNamespace(debug=lambda *a, **k: None, warning=lambda *a, **k: None,
                                  info=lambda *a, **k: None)
    return {"chain": itertools.chain, "islice": itertools.islice, "logger": quiet,
            "RequestStatus": types.SimpleNamespace(FINISHED_ABORTED="FINISHED_ABORTED"),
            "GPULoadStoreSpec": GPULoadStoreSpec, "TransferJob": Record, "TransferJobStatus": Record,
            "_ConnectorMetricName": types.SimpleNamespace(ALLOCATION_FAILURE="allocation_failure"),
            "make_offload_key": lambda block_hash, group_idx: (block_hash, group_idx)}


def run_offload_store(call, fns, ops, options):
    """The store list of one scheduler step, as OffloadingConnectorScheduler.build_connector_meta builds it
    (scheduler.py:1458): _build_store_jobs (scheduler.py:1229-1422) over every scheduled request, its
    source blocks in GPULoadStoreSpec(src_block_ids) (:1375-1377). Host-side Python: it runs on either
    device. The adapter's setting: one group with the description's parameters (blocks_per_chunk, the
    sliding window's alignment, the caps); request r has seq_lens[r] tokens, all of them scheduled or computed
    (num_computed = seq_len - q), a hash per full block (update_offload_keys, :351-365), its row as its
    block ids, and the chunks stored up to its computed tokens at the previous step (next_stored_chunk_idx
    = storable_chunks(num_computed), as :1371-1373 and advance_stored_idx :405-415 leave it). Operation k
    of request r is table column k: the stored block's id there, -1 where the store list has none."""
    import types
    np = _np()
    R = call.num_reqs
    out = call.slot_mapping
    out[:] = -1
    if R == 0:
        return
    bs = call.block_size
    rows = input_rows(call)
    W = rows.shape[1]
    ops_per_request = len(out) // R if R else 0
    qsl, q, seq_lens, idx = request_arrays(call, R)
    if (seq_lens < q).any():
        raise Skip("seq_len < query length: a negative num_computed_tokens")
    # The group's settings: the description's parameters where it has them (GroupOffloadConfig,
    # scheduler.py:83-105), else one full-attention group of one GPU block per chunk.
    param = lambda name, default: int(call.params.get(name, default))  # noqa: E731
    bpc = max(param("blocks_per_chunk", 1), 1)
    align_chunks = param("align_chunks", 0)
    group = types.SimpleNamespace(group_idx=0, tokens_per_block=bs, tokens_per_chunk=bs * bpc, hashes_per_chunk=bpc,
                                  sliding_window_size_in_chunks=param("window_chunks", 0) if align_chunks else None,
                                  requires_cow_source=False, alignment_chunk_count=align_chunks or None,
                                  is_eagle_group=bool(param("eagle_group", 0)))
    config = types.SimpleNamespace(kv_group_configs=[group], blocks_per_chunk=bpc, num_workers=1,
                                   offload_prompt_only=bool(param("offload_prompt_only", 0)))
    calc = fns["OffloadingConnectorScheduler._calc_num_offloadable_tokens"]
    scheduler_calc = lambda status, n: calc(types.SimpleNamespace(config=config), status, n)  # noqa: E731
    statuses = {}
    scheduled = {}
    # The requests' state, by the description's per-request inputs where it has them (else its parameters):
    # prompt_len (-1: still in its prompt), draft_tokens (a decoding request's scheduled drafts are not in
    # req.num_tokens), max_offload_tokens (-1: no cap), stored_chunks (-1: what the previous step reached).
    inputs = getattr(call, "inputs", None) or {}
    per_request = lambda name, r, default: int(inputs[name][r]) if name in inputs else default  # noqa: E731
    for r in range(R):
        if idx[r] < 0 or q[r] == 0:
            continue  # a dummy, or a request with no token this step, is not in num_scheduled_tokens
        prompt_len = per_request("req_prompt_len", r, param("prompt_len", -1))
        drafts = per_request("req_draft_tokens", r, param("draft_tokens", 0))
        cap = per_request("req_max_offload_tokens", r, param("max_offload_tokens", -1))
        stored = per_request("req_stored_chunks", r, param("stored_chunks", -1))
        seq, computed = int(seq_lens[r]), int(seq_lens[r] - q[r])
        prompt = seq if prompt_len < 0 else prompt_len
        known = seq - (min(drafts, max(int(q[r]) - 1, 0)) if computed >= prompt else 0)
        req = types.SimpleNamespace(request_id=r, status="RUNNING", is_finished=lambda: False,
                                    num_computed_tokens=computed, num_tokens=known, num_prompt_tokens=prompt,
                                    # a hash per full block of the known tokens; past the row's W blocks none
                                    # is read (storable_chunks caps at W // bpc chunks of bpc blocks, :398-403)
                                    block_hashes=list(range(min(known // bs, W))))
        state = types.SimpleNamespace(offload_keys=[], block_ids=[int(b) for b in rows[r]], next_stored_chunk_idx=0,
                                      num_hit_chunks=0)
        status = types.SimpleNamespace(config=config, req=req, req_context=None, group_states=(state,),
                                       max_offload_tokens=None if cap < 0 else cap, transfer_jobs=set())
        status.storable_chunks = types.MethodType(fns["RequestOffloadState.storable_chunks"], status)
        status.advance_stored_idx = types.MethodType(fns["RequestOffloadState.advance_stored_idx"], status)
        types.MethodType(fns["RequestOffloadState.update_offload_keys"], status)()
        if stored >= 0:
            state.next_stored_chunk_idx = stored
        else:  # the previous step's advance (:1371-1373, :405-415), at its offloadable tokens and, for a
            # prompt finished at a step's end, at the prompt's (storable_chunks' eagle exclusion, :392-397)
            before = scheduler_calc(status, computed)
            state.next_stored_chunk_idx = max(status.storable_chunks(group, state, before),
                                              status.storable_chunks(group, state, min(before, prompt)))
        statuses[r] = status
        scheduled[r] = int(q[r])
    jobs = iter(range(1, 1 << 30))
    scheduler = types.SimpleNamespace(
        config=config, _req_status=statuses,
        manager=types.SimpleNamespace(prepare_store=lambda keys, ctx: types.SimpleNamespace(
            keys_to_store=list(keys), store_spec=None)),
        _connector_stats=types.SimpleNamespace(increase_counter=lambda *a, **k: None),
        _events_tracker=types.SimpleNamespace(record_store=lambda *a, **k: None),
        _touch=lambda status: None, _generate_job_id=lambda: next(jobs), _jobs={},
        _block_id_to_pending_jobs={}, _current_batch_allocated_block_ids=set(), _current_batch_jobs_to_flush=set())
    scheduler._calc_num_offloadable_tokens = types.MethodType(
        fns["OffloadingConnectorScheduler._calc_num_offloadable_tokens"], scheduler)
    output = types.SimpleNamespace(num_scheduled_tokens=scheduled, finished_req_ids=set())
    store_jobs = fns["OffloadingConnectorScheduler._build_store_jobs"](scheduler, output)
    for job in store_jobs.values():
        r = job.req_id
        col = 0
        for block in job.src_spec.block_ids:  # the stored ids, in column order (:1351-1363): their columns
            while col < W and int(rows[r, col]) != block:
                col += 1
            if col >= W or col >= ops_per_request:
                raise RuntimeError("request %d: stored block %d is not in its row" % (r, block))
            out[r * ops_per_request + col] = block
            col += 1


# ---------------------------------------------------------------------------
# vllm_gather_block_tables: vllm/v1/worker/gpu/block_table.py

GATHER_PATH = "vllm/v1/worker/gpu/block_table.py"


def run_gather_block_tables(call, fns, ops, options):
    """BlockTables.gather_block_tables (block_table.py:136-163) for one kv-cache group: the persistent table
    (block_tables[0].gpu, int32, its stride max_num_blocks), num_blocks per persistent row, the step's
    idx_mapping ([num_reqs]) and a zeroed input table (torch.zeros_like, 69-71), then
    _gather_block_tables_kernel[(1, num_reqs_padded)] (221-258), which reads the pointers through
    buffer_utils._load_ptr (buffer_utils.py:312-316).

    Adapter: slotguard's dummies are the engine's padded rows, which follow its num_reqs live ones
    (idx_mapping has num_reqs entries); a dummy before a live request is no batch the engine makes (the
    kernel would load idx_mapping[batch_idx] = -1). num_blocks is the description's count,
    cdiv(seq_len + lookahead, block_size) * (block_size / kernel_block_size), at most the row's width (the
    engine's row holds max_model_len's blocks). A persistent row read by two live requests is no state the
    engine has (one row per request)."""
    np = _np()
    R = call.num_reqs
    out = call.outputs[0]
    out[:] = 0
    W = call.block_table_width
    if R == 0 or W == 0:
        return  # nothing to gather: no row, or rows of no column
    idx = np.asarray(call.idx_mapping, dtype=np.int64)[:R]
    table, rows, row_of = persistent_table(call, idx)
    live = (idx >= 0) & (row_of < rows)
    num_live = int(live.sum())
    if not live[:num_live].all():
        raise Skip("a padded or dummy row before a live request: the engine's padded rows follow its num_reqs "
                   "live ones (block_table.py:151-153, 241)")
    if len(set(row_of[:num_live].tolist())) < num_live:
        raise Skip("two live requests reading one persistent row: the engine gives each request its own row")
    seq = np.asarray(call.seq_lens, dtype=np.int64)[:R]
    bs, kbs = call.block_size, call.kernel_block_size
    count = -(-(seq + call.lookahead) // bs) * (bs // kbs)
    num_blocks = np.zeros(max(rows, 1), dtype=np.int32)
    for r in range(num_live):
        num_blocks[row_of[r]] = min(int(count[r]), W)
    src_t = ops.tensor(table.reshape(-1), "i32")
    dst_t = ops.full((R * W,), 0, "i32")      # input_block_tables: torch.zeros_like (block_table.py:69-71)
    kernel = fns["_gather_block_tables_kernel"]
    kernel.fn.__globals__.setdefault("_load_ptr", fns["_load_ptr"])  # its import (block_table.py:9-14)
    kernel[(1, R)](
        ops.tensor(row_of[:num_live], "i32"),      # batch_idx_to_req_idx: idx_mapping [num_reqs]
        ops.tensor([ops.data_ptr(src_t)], "u64"),  # block_table_ptrs: uint64 (block_table.py:82-86)
        ops.tensor([ops.data_ptr(dst_t)], "u64"),  # input_block_table_ptrs
        ops.tensor([W], "i64"),                    # block_table_strides: int64 (97-101)
        ops.tensor(num_blocks, "i32"),             # num_blocks.gpu [1, max_num_reqs], int32 (56-59)
        len(num_blocks),                           # num_blocks.gpu.stride(0)
        num_live,                                  # num_reqs = idx_mapping.shape[0] (151)
        BLOCK_SIZE=1024)
    ops.sync()
    out[:] = ops.host(dst_t).astype(np.int64)
    del src_t, dst_t


# ---------------------------------------------------------------------------
# vllm_hisparse_compressed: vllm/v1/kv_offload/sparse/hisparse_runtime.py (the HiSparse stack,
# MatthewBonanni/vllm at d10b2d53: a --source checkout of that fork)


HISPARSE_PATH = "vllm/v1/kv_offload/sparse/hisparse_runtime.py"


def run_hisparse_compressed(call, fns, ops, options):
    """compress_hisparse_slot_mapping (hisparse_runtime.py:96-122 at d10b2d53) as
    HiSparseCacheHandle.get_compressed_slot_mapping calls it (:885-898): the source is the HMA group's
    slot mapping (the scenario's source group's output, call.common_slot_mapping), the positions the
    step's (compressor.py:418-422: positions[:num_kv_slots], num_kv_slots = the source's length), the
    output buffer a zeroed persistent one the launcher fills with -1 first (:109)."""
    np = _np()
    if call.common_slot_mapping is None:
        raise Skip("no source group: the engine derives the compressed slots from the HMA group's slot mapping "
                   "(hisparse_worker.py:512-520)")
    T = call.num_tokens
    source = ops.tensor(np.asarray(call.common_slot_mapping, dtype=np.int64)[:T], "i64")
    positions = ops.tensor(np.asarray(call.positions, dtype=np.int64)[:T], "i64")
    buffer = ops.full((max(T, 1),), 0, "i64")  # adapter: compressed_slot_mapping = empty_like(slot_mapping) (:882)
    fns["compress_hisparse_slot_mapping"](
        source, positions, logical_block_size=call.logical_block_size,
        storage_block_size=call.storage_block_size, compress_ratio=call.compress_ratio, out=buffer[:T])
    ops.sync()
    call.slot_mapping[:] = ops.host(buffer)[:T]


# ---------------------------------------------------------------------------
# vllm_sliding_window: vllm/v1/worker/gpu/block_table.py (the model runner v2's slot mapping, the same for
# every KV group; a sliding-window group differs only in its table)


def run_sliding_window(call, fns, ops, options):
    """BlockTables.compute_slot_mappings (block_table.py:178-207) for one KV-cache group without context
    parallelism: _compute_slot_mappings_kernel[(1, num_reqs + 1)] (261-323) reads the persistent table through
    its pointer (block_table_ptrs uint64, 82-86, 94-96; strides int64, 97-101; the kernel block size int32,
    102-104) at row idx_mapping[r], and its last program PADs [query_start_loc[num_reqs], max_num_tokens)
    of the int64 slot buffer (56-59).

    Adapter: the slot buffer is the batch's num_tokens wide (max_num_tokens here) and starts zeroed; the
    persistent table is contiguous, its stride the row's width (one row per request state). A dummy
    (idx_mapping -1) is skipped: the runner hands the kernel no -1 (the kernel never tests it, 298), and so
    is a column past the table's last row (the engine's rows hold max_model_len's blocks)."""
    require_columns(call)
    np = _np()
    R, T = call.num_reqs, call.num_tokens
    out = call.slot_mapping
    idx = np.asarray(call.idx_mapping, dtype=np.int64)[:R]
    if (idx < 0).any():
        raise Skip("a dummy request: the runner hands _compute_slot_mappings_kernel no idx_mapping -1 "
                   "(block_table.py:298 loads it untested)")
    table, rows, row_of = persistent_table(call, idx)
    if (row_of >= rows).any():
        raise Skip("a request whose state row is past the persistent table")
    W, bs = call.block_table_width, call.block_size
    skip_int32_slots(table, bs, "vllm/v1/worker/gpu/block_table.py:313 block_numbers * block_size, both int32")
    qsl = np.asarray(call.query_start_loc, dtype=np.int64)[:R + 1]
    real = int(qsl[-1]) if R else 0
    pos = np.asarray(call.positions, dtype=np.int64)[:T]
    if real:
        owner = np.repeat(np.arange(R), qsl[1:] - qsl[:-1])
        flat_index = row_of[owner] * W + pos[:real] // bs
        if (pos[:real] < 0).any() or (flat_index >= rows * W).any():
            raise Skip("a token whose column is past the table's last row (or a negative position): the engine's "
                       "rows hold cdiv(max_model_len, block_size) columns and the kernel loads the column with no "
                       "bound (block_table.py:307-309)")
    table_t = ops.tensor(table.reshape(-1), "i32")
    slots = ops.full((1, max(T, 1)), 0, "i64")     # slot_mappings: int64 [num_groups, max_num_tokens] (56-59)
    kernel = fns["_compute_slot_mappings_kernel"]
    kernel.fn.__globals__.setdefault("_load_ptr", fns["_load_ptr"])  # its import (block_table.py:9-14)
    kernel[(1, R + 1)](
        T,                                          # max_num_tokens = slot_mappings.shape[1]
        ops.tensor(row_of, "i32"),                  # idx_mapping [num_reqs]
        ops.tensor(qsl, "i32"),                     # query_start_loc [num_reqs + 1]
        ops.tensor(pos if T else [0], "i64"),       # positions
        ops.tensor([ops.data_ptr(table_t)], "u64"), # block_table_ptrs
        ops.tensor([W], "i64"),                     # block_table_strides
        ops.tensor([bs], "i32"),                    # block_sizes_tensor (kernel block sizes)
        slots, max(T, 1), 0,                        # slot_mappings, its stride(0), cp_rank
        CP_SIZE=1, CP_INTERLEAVE=1, PAD_ID=PAD_SLOT_ID, TRITON_BLOCK_SIZE=1024)
    ops.sync()
    out[:] = ops.host(slots)[0][:T]
    del table_t


# ---------------------------------------------------------------------------
# vllm_parallel_drafting: vllm/v1/spec_decode/utils.py


def run_parallel_drafting(call, fns, ops, options):
    """The drafter's slot mapping under parallel drafting, as SpecDecodeBaseProposer.set_inputs_first_pass
    makes it (vllm/v1/spec_decode/llm_base_proposer.py:880-952): copy_and_expand_eagle_inputs_kernel expands
    the target batch into the drafter's (positions and the rejected-token mask, utils.py:308-450), then
    compute_new_slot_mapping maps it (utils.py:241-270).

    slotguard's batch is the drafter's extended one: request r's q tokens are its target tokens and the
    N = net_num_new_slots_per_request the drafter adds (llm_base_proposer.py:112-118: num_speculative_tokens
    slots under parallel drafting, one fewer when the drafter takes the target's hidden states, shift=1, as
    EAGLE does); num_speculative_tokens=auto (the default) takes the largest N the batch can carry. The
    target batch handed to the kernel is q - N tokens a request, positions start + k."""
    require_columns(call)
    np = _np()
    R, T = call.num_reqs, call.num_tokens
    out = call.slot_mapping
    out[:] = PAD_SLOT_ID  # adapter: the tail past the drafter's tokens (utils.py:254 output_size)
    shift = int(options.get("shift", "1"))
    if R == 0:
        raise Skip("no request: the drafter runs on the target's live batch (llm_base_proposer.py:944-952)")
    idx = np.asarray(call.idx_mapping, dtype=np.int64)[:R]
    if (idx < 0).any():
        raise Skip("a dummy request: the drafter's metadata is the target's, of live requests "
                   "(llm_base_proposer.py:944-952)")
    qsl = np.asarray(call.query_start_loc, dtype=np.int64)[:R + 1]
    q = qsl[1:] - qsl[:-1]
    inputs = getattr(call, "inputs", None) or {}
    rejected = np.asarray(inputs.get("num_rejected", np.zeros(R)), dtype=np.int64)[:R]
    W, mml, bs = call.block_table_width, call.max_model_len, call.block_size
    if options.get("num_speculative_tokens", "auto") == "auto":
        # adapter: the largest N this batch can carry (every request keeps a target token, and its target
        # holds its rejected drafts and the shifted token), so that a campaign meets many configurations
        N = int(np.minimum(q - shift - rejected, q - 1).min())
        if N < 1:
            raise Skip("a request too short to carry a drafter's slot beside its num_rejected rejected drafts "
                       "and the shifted token (utils.py:348-360)")
        K = N + shift
    else:
        K = int(options["num_speculative_tokens"])
    N = K - shift  # llm_base_proposer.py:113-118
    if N < 1:
        raise Skip("num_speculative_tokens %d with shift %d adds no slot: the proposer then takes the path "
                   "without copy_and_expand_eagle_inputs_kernel (llm_base_proposer.py:119, 841-863)" % (K, shift))
    target_q = q - N
    valid = target_q - shift - rejected  # utils.py:348-357 num_valid_tokens
    if (target_q < 1).any() or (valid < 0).any():
        r = int(np.argmax((target_q < 1) | (valid < 0)))
        raise Skip("request %d: %d tokens with num_rejected %d leave the target batch %d tokens, fewer than the "
                   "rejected drafts and the shifted token: the engine rejects at most the drafts it scored "
                   "(utils.py:360 num_rejected = next_query_start_loc - query_end_loc - 1)"
                   % (r, int(q[r]), int(rejected[r]), int(target_q[r])))
    pos = np.asarray(call.positions, dtype=np.int64)
    start = pos[qsl[:-1]]
    for r in range(R):
        kept = int(q[r] - rejected[r])
        if start[r] < 0 or (pos[qsl[r]:qsl[r] + kept] != start[r] + np.arange(kept)).any():
            raise Skip("request %d's positions are not start, start + 1, ...: the kernel gives the drafter's "
                       "token j of a request the position start + j (utils.py:399, 415)" % r)
    rows = input_rows(call)
    skip_int32_slots(rows, bs, "vllm/v1/spec_decode/utils.py:264 block_nums * block_size, block_nums int32")
    target_qsl = np.concatenate([[0], np.cumsum(target_q)])
    target_total = int(target_qsl[-1])
    total = target_total + N * R  # llm_base_proposer.py:881-884
    owner = np.repeat(np.arange(R), q)
    kept_pos = np.where(np.arange(total) - qsl[owner] < (q - rejected)[owner], pos[:total], 0)
    if (owner * W + np.minimum(kept_pos, mml - 1) // bs >= R * W).any():
        raise Skip("a token's column is past the last row: the engine's rows hold cdiv(max_model_len, "
                   "block_size) columns (kv_cache_interface.py:139-149), and compute_new_slot_mapping indexes "
                   "the flat table with no bound (utils.py:259-262)")
    target_positions = np.repeat(start, target_q) + (np.arange(target_total) - np.repeat(target_qsl[:-1], target_q))
    qsl_d = ops.tensor(target_qsl, "i32")
    positions = ops.full((total,), 0, "i64")        # llm_base_proposer.py:200-203 int64
    rejected_mask = ops.full((total,), 0, "bool")   # llm_base_proposer.py:229-231
    max_per_request = int(target_q.max()) + N      # llm_base_proposer.py:874-877
    block = min(256, fns["next_power_of_2"](max_per_request))
    grid = (R, (max_per_request + block - 1) // block)
    fns["copy_and_expand_eagle_inputs_kernel"][grid](
        ops.full((target_total,), 0, "i32"), ops.tensor(target_positions, "i64"), ops.full((R,), 0, "i32"),
        ops.full((total,), 0, "i32"), positions, rejected_mask, ops.full((total,), 0, "bool"),
        ops.full((R * K,), 0, "i32"), ops.full((target_total,), 0, "i32"),
        qsl_d, ops.tensor(target_qsl[1:] - 1 - rejected, "i32"),  # llm_base_proposer.py:899-902
        0, 0, target_total, K, bool(shift), BLOCK_SIZE_TOKENS=block)
    cad = _ns(block_table_tensor=ops.tensor(rows, "i32"), query_start_loc=qsl_d)
    cad.naive_query_lens = lambda: fns["CommonAttentionMetadata.naive_query_lens"](cad)
    mapping = fns["compute_new_slot_mapping"](cad, positions, rejected_mask, bs, N, mml)
    ops.sync()
    out[:total] = ops.host(mapping)[:total]


BINDINGS = {
    "dflash": Binding("dflash", "vllm/v1/worker/gpu/spec_decode/dflash/speculator.py",
                      ["prepare_dflash_inputs", "_prepare_dflash_inputs_kernel"], run_dflash, "triton",
                      namespace=lambda: {"PAD_SLOT_ID": PAD_SLOT_ID}, options={"sample_from_anchor": "0"}),
    "eagle_step": Binding("eagle_step", "vllm/v1/spec_decode/utils.py",
                          ["eagle_step_update_slot_mapping_and_metadata", "eagle_step_slot_mapping_metadata_kernel"],
                          run_eagle_step, "triton"),
    "dsv4_compressed": Binding("dsv4_compressed", "vllm/v1/attention/backends/mla/compressor_utils.py",
                               ["get_compressed_slot_mapping", "_compressed_slot_mapping_kernel"],
                               run_dsv4_compressed, "triton", options={"caller": "sparse_mla"}),
    "vllm_mamba": Binding("vllm_mamba", STATE_PATH, ["mamba_get_block_table_tensor"], run_state_index, "torch",
                          namespace=lambda: {"MambaSpec": MambaSpec},
                          extra=[("vllm/v1/attention/backends/mamba_attn.py",
                                  ["BaseMambaAttentionMetadataBuilder._compute_prefix_caching_block_indices"])]),
    "vllm_gdn": Binding("vllm_gdn", STATE_PATH, ["mamba_get_block_table_tensor"], run_state_index, "torch",
                        namespace=lambda: {"MambaSpec": MambaSpec}),
    "vllm_lightning": Binding("vllm_lightning", STATE_PATH, ["mamba_get_block_table_tensor"], run_state_index,
                              "torch", namespace=lambda: {"MambaSpec": MambaSpec}),
    "vllm_mamba_copy": Binding("vllm_mamba_copy", "vllm/v1/worker/mamba_utils.py",
                               ["precopy_mamba_align_fused_kernel", "preprocess_mamba_align_fused_kernel",
                                "_copy_mamba_state_block"], run_mamba_copy, "triton"),
    "vllm_mamba_postcopy": Binding("vllm_mamba_postcopy", "vllm/v1/worker/mamba_utils.py",
                                   ["postprocess_mamba_fused_kernel", "preprocess_mamba_align_fused_kernel",
                                    "_copy_mamba_state_block"], run_mamba_postcopy, "triton"),
    "vllm_offload_store": Binding("vllm_offload_store", OFFLOAD_PATH, OFFLOAD_NAMES, run_offload_store, "python",
                                  namespace=offload_namespace),
    "eagle_step_chain": Binding("eagle_step_chain", "vllm/v1/spec_decode/utils.py",
                                ["eagle_step_update_slot_mapping_and_metadata",
                                 "eagle_step_slot_mapping_metadata_kernel"], run_eagle_step_chain, "triton"),
    "vllm_gather_block_tables": Binding("vllm_gather_block_tables", GATHER_PATH, ["_gather_block_tables_kernel"],
                                        run_gather_block_tables, "triton",
                                        extra=[("vllm/v1/worker/gpu/buffer_utils.py", ["_load_ptr"])]),
    "vllm_hisparse_compressed": Binding("vllm_hisparse_compressed", HISPARSE_PATH,
                                        ["compress_hisparse_slot_mapping", "_compress_hisparse_slot_mapping_kernel"],
                                        run_hisparse_compressed, "triton"),
    "vllm_extract_hidden_states": Binding(
        "vllm_extract_hidden_states", "vllm/v1/spec_decode/extract_hidden_states.py",
        ["ExtractHiddenStatesProposer._get_slot_mapping"], run_extract_hidden_states, "triton",
        namespace=lambda: {"PADDING_SLOT_ID": PAD_SLOT_ID},
        extra=[("vllm/v1/worker/block_table.py", ["_compute_slot_mapping_kernel"])]),
    "vllm_sliding_window": Binding("vllm_sliding_window", GATHER_PATH, ["_compute_slot_mappings_kernel"],
                                   run_sliding_window, "triton",
                                   extra=[("vllm/v1/worker/gpu/buffer_utils.py", ["_load_ptr"])]),
    "vllm_parallel_drafting": Binding(
        "vllm_parallel_drafting", "vllm/v1/spec_decode/utils.py",
        ["compute_new_slot_mapping", "copy_and_expand_eagle_inputs_kernel", "next_power_of_2"],
        run_parallel_drafting, "triton", options={"num_speculative_tokens": "auto", "shift": "1"},
        extra=[("vllm/v1/attention/backend.py", ["CommonAttentionMetadata.naive_query_lens"])]),
}
