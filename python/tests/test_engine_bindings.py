"""slotguard.engines on the host, where vLLM's kernels cannot run.

The argument-mapping tests run each vLLM binding's adapter against a stand-in engine tree: files at the
engine's paths defining the functions the binding compiles, with the same signatures, written here in
numpy from the engine's code. They check what the adapter hands the engine's function and how it reads
the engine's buffers back into slotguard's outputs. They are NOT evidence of conformance: only the
engine's own code, run by `slotguard fuzz --conform` on the GPU machine (scripts/gpu-conform.sh), is.

The error tests check what a binding says when the engine's tree lacks what it binds.
"""
import ctypes
import json
import os
import subprocess
import sys
import textwrap
import types

import pytest

from conftest import ROOT

np = pytest.importorskip("numpy")

from slotguard import Skip  # noqa: E402
from slotguard.engines import BindingError, bind, find_tree  # noqa: E402
from slotguard.engines.ops import NumpyOps  # noqa: E402
from slotguard.engines.vllm import BINDINGS  # noqa: E402


# ---------------------------------------------------------------------------
# A stand-in tree, a fake Triton launch, a call as slotguard's provider builds it.


def write_tree(tmp_path, files):
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return str(tmp_path)


class Launch(object):
    """kernel[grid](...) for a stand-in @triton.jit function: calls it with GRID set in its globals."""

    def __init__(self, fn):
        self.fn = fn

    def __getitem__(self, grid):
        def launch(*args, **kw):
            self.fn.__globals__["GRID"] = grid
            return self.fn(*args, **kw)
        return launch


def fake_jit(fn=None, **kw):
    return Launch(fn) if fn is not None else (lambda f: Launch(f))


def ops_with(record):
    return NumpyOps({"triton": types.SimpleNamespace(jit=fake_jit), "tl": types.SimpleNamespace(constexpr="c"),
                     "RECORD": record, "np": np, "ctypes": ctypes})


def make_call(qsl, positions, seq_lens, idx_mapping, table, width, stride=None, rows_by_idx=False, params=None,
              outputs=1, output_length=None, num_tokens=None, num_actual_tokens=None):
    stride = stride or width
    rows = len(table)
    flat = np.full(rows * stride, 99999, dtype=np.int32)  # poison past each row's width
    for r, row in enumerate(table):
        flat[r * stride:r * stride + len(row)] = row
    T = num_tokens if num_tokens is not None else len(positions)
    n = output_length if output_length is not None else T
    outs = [np.zeros(n, dtype=np.int64) for _ in range(outputs)]
    params = dict(params or {})
    call = types.SimpleNamespace(
        num_reqs=len(qsl) - 1, num_tokens=T, num_real_tokens=qsl[-1],
        num_actual_tokens=num_actual_tokens if num_actual_tokens is not None else T,
        query_start_loc=np.array(qsl, dtype=np.int32), positions=np.array(positions, dtype=np.int64),
        seq_lens=np.array(seq_lens, dtype=np.int64), seq_lens_i32=np.array(seq_lens, dtype=np.int32),
        idx_mapping=np.array(idx_mapping, dtype=np.int32), block_table=flat, block_table_width=width,
        block_table_row_stride=stride, block_table_rows=rows, rows_by_idx_mapping=int(rows_by_idx),
        params=params, outputs=outs, slot_mapping=outs[0])
    for k, v in params.items():
        setattr(call, k, v)
    return call


def run_binding(tmp_path, family, files, call, options=None):
    record = {}
    ops = ops_with(record)
    binding, fns, tree = bind("vllm", family, write_tree(tmp_path, files), ops)
    binding.run(call, fns, ops, dict(binding.options, **(options or {})))
    return record


# ---------------------------------------------------------------------------
# Stand-in engine files: the functions each binding compiles, their signatures the engine's, their bodies
# numpy written from the engine's code at 81be2e09 (cited), recording what they were handed.

DFLASH = {"vllm/v1/worker/gpu/spec_decode/dflash/speculator.py": '''
    import numpy
    from vllm.config import VllmConfig  # a bare import: never run (the binding compiles definitions only)

    def _prepare_dflash_inputs_kernel():
        pass

    def prepare_dflash_inputs(input_buffers, query_slot_mapping, context_positions, context_slot_mapping,
                              sample_indices, sample_pos, sample_idx_mapping, temperature, seeds, input_batch,
                              num_sampled, num_rejected, last_sampled, next_prefill_tokens, input_temperature,
                              input_seeds, block_table, block_size, parallel_drafting_token_id, num_query_per_req,
                              num_speculative_steps, max_num_reqs, max_num_tokens, max_model_len,
                              sample_from_anchor=False):
        RECORD.update(target_qsl=list(input_batch.query_start_loc), num_rejected=list(num_rejected),
                      table_shape=block_table.shape, contiguous=block_table.flags["C_CONTIGUOUS"],
                      nq=num_query_per_req, steps=num_speculative_steps, max_num_tokens=max_num_tokens,
                      max_model_len=max_model_len, scheduled=list(input_batch.num_scheduled_tokens))
        stride = block_table.shape[1]
        qsl, pos = input_batch.query_start_loc, input_batch.positions
        for r in range(input_batch.num_reqs):           # speculator.py:530-566, one program per request
            last = pos[qsl[r + 1] - num_rejected[r] - 1]
            for j in range(qsl[r + 1] - qsl[r]):
                p = pos[qsl[r] + j]
                b = min(p // block_size, stride - 1)
                context_slot_mapping[qsl[r] + j] = block_table[r, b] * block_size + p % block_size
            for k in range(num_query_per_req):
                p = last + 1 + k
                b = min(p // block_size, stride - 1)
                query_slot_mapping[r * num_query_per_req + k] = block_table[r, b] * block_size + p % block_size
        query_slot_mapping[input_batch.num_reqs * num_query_per_req:max_num_tokens] = PAD_SLOT_ID
'''}


def test_dflash_argument_mapping(tmp_path):
    # block 4, 2 query tokens; request 0: context 4 5 6, queries 7 8; request 1: context 6, queries 7 8;
    # two padding tokens. A strided table (stride 3, width 2): the binding hands the kernel a contiguous
    # copy, whose clamp is then the width's (speculator.py:544 clamps to stride(0) - 1).
    call = make_call([0, 5, 8], [4, 5, 6, 7, 8, 6, 7, 8, 0, 0], [9, 9], [0, 1], [[5, 7], [9, 0]], 2, stride=3,
                     params={"block_size": 4, "num_query_per_req": 2, "max_model_len": 100}, outputs=2)
    record = run_binding(tmp_path, "dflash", DFLASH, call)
    assert record["target_qsl"] == [0, 3, 4]         # the context tokens alone
    assert record["num_rejected"] == [0, 0]
    assert record["scheduled"] == [3, 1]
    assert record["table_shape"] == (2, 2) and record["contiguous"]
    assert (record["nq"], record["steps"], record["max_num_tokens"], record["max_model_len"]) == (2, 1, 4, 100)
    # pos 4 5 6 -> column 1 (block 7); query 7 -> block 7; query 8 -> column 2 clamped to 1 -> block 7 slot 28.
    # request 1: pos 6 -> entry 0 -> slot 2; queries 3 and (clamped) 0.
    assert list(call.outputs[0]) == [28, 29, 30, -1, -1, 2, -1, -1, -1, -1]
    assert list(call.outputs[1]) == [-1, -1, -1, 31, 28, -1, 3, 0, -1, -1]


def test_dflash_rejected_context_and_a_dummy_run_row(tmp_path):
    # request 0: context 4 5 6 7, queries 6 7: the last context token at 5 is index 1, so 2 are rejected;
    # request 1 is a dummy (idx_mapping -1) on a zeroed row, as a dummy run's tables are.
    call = make_call([0, 6, 9], [4, 5, 6, 7, 6, 7, 0, 1, 2], [8, 3], [0, -1], [[5, 7], [0, 0]], 2,
                     params={"block_size": 4, "num_query_per_req": 2, "max_model_len": 100}, outputs=2)
    record = run_binding(tmp_path, "dflash", DFLASH, call)
    assert record["num_rejected"] == [2, 0]
    # request 0: context 4..7 -> block 7 (28..31); queries 6 7 -> 30 31. request 1 (zero row): 0; 1 2.
    assert list(call.outputs[0]) == [28, 29, 30, 31, -1, -1, 0, -1, -1]
    assert list(call.outputs[1]) == [-1, -1, -1, -1, 30, 31, -1, 1, 2]


def test_dflash_skips_a_dummy_whose_row_is_not_zeroed(tmp_path):
    # the engine's dummies read rows get_dummy_block_tables zeroed: a dummy on [-1] (or a persistent table's
    # dummy, which reads no row) is no batch it makes
    for table, by_idx in (([[5, 7], [-1, 0]], False), ([[5, 7], [0, 0]], True)):
        call = make_call([0, 3, 6], [4, 5, 6, 0, 1, 2], [6, 3], [0, -1], table, 2, rows_by_idx=by_idx,
                         params={"block_size": 4, "num_query_per_req": 2, "max_model_len": 100}, outputs=2)
        with pytest.raises(Skip, match="request 1: a dummy whose row is not zeroed"):
            run_binding(tmp_path, "dflash", DFLASH, call)


def test_dflash_skips_a_request_without_context(tmp_path):
    call = make_call([0, 2], [7, 8], [9], [0], [[5, 7]], 2,
                     params={"block_size": 4, "num_query_per_req": 2, "max_model_len": 100}, outputs=2)
    with pytest.raises(Skip, match="context token"):
        run_binding(tmp_path, "dflash", DFLASH, call)


EAGLE = {"vllm/v1/spec_decode/utils.py": '''
    from vllm.platforms import current_platform

    PADDING_SLOT_ID = -1

    def eagle_step_slot_mapping_metadata_kernel():
        pass

    def eagle_step_update_slot_mapping_and_metadata(positions_1d, block_table_tensor, seq_lens, block_size,
                                                    max_model_len, out_clamped_positions, out_slot_mapping,
                                                    input_batch_size=None):
        RECORD.update(input_batch_size=input_batch_size, shape=block_table_tensor.shape,
                      seq_lens=list(seq_lens))
        n = block_table_tensor.shape[1]
        for i in range(input_batch_size):                # utils.py:55-84
            if i >= positions_1d.shape[0]:
                out_slot_mapping[i] = PADDING_SLOT_ID
                continue
            c = positions_1d[i] + 1
            c = 0 if c >= max_model_len else c
            out_clamped_positions[i] = c
            slot = block_table_tensor[i, min(c // block_size, n - 1)] * block_size + c % block_size
            out_slot_mapping[i] = PADDING_SLOT_ID if positions_1d[i] + 1 >= max_model_len else slot
'''}


def test_eagle_step_argument_mapping(tmp_path):
    # one token per request; request 1 is a dummy (its zero row is read); request 2 reaches max_model_len;
    # token 3 is CUDA-graph padding. A strided table: the launcher gets the [R, W] view in that layout.
    call = make_call([0, 1, 2, 3], [3, 1, 8, 77], [4, 2, 9], [0, -1, 2], [[5, 6], [0, 0], [8, 9]], 2, stride=3,
                     params={"block_size": 4, "max_model_len": 9})
    record = run_binding(tmp_path, "eagle_step", EAGLE, call)
    assert record["input_batch_size"] == 4 and record["shape"] == (3, 2) and record["seq_lens"] == [4, 2, 9]
    assert list(call.slot_mapping) == [24, 2, -1, -1]


def test_eagle_step_skips_a_dummy_of_a_persistent_table(tmp_path):
    # a persistent table's dummy (idx_mapping -1) has no row of the proposer's table; none reaches the drafter
    call = make_call([0, 1, 2], [3, 0], [4, 1], [1, -1], [[5, 6], [7, 8]], 2, rows_by_idx=True,
                     params={"block_size": 4, "max_model_len": 9})
    with pytest.raises(Skip, match="a dummy request of a persistent table"):
        run_binding(tmp_path, "eagle_step", EAGLE, call)


def test_eagle_step_chain_argument_mapping(tmp_path):
    # block 4, max_model_len 6; request 0's steps at positions 3 4 5: the kernel's c = 4, 5, then 6 reaches
    # max_model_len (PAD, its clamped position 0), so no 4th step; request 1: one step at position 0 (c = 1).
    call = make_call([0, 3, 4], [3, 4, 5, 0, 0], [4, 1], [0, 1], [[5, 6], [7, 8]], 2,
                     params={"block_size": 4, "max_model_len": 6})
    record = run_binding(tmp_path, "eagle_step_chain", EAGLE, call)
    assert record["input_batch_size"] == 2
    # step 0: c 4 -> column 1 (6): 24; step 1: c 5 -> 25; step 2: c 6 >= 6: PAD. Request 1: c 1 -> 29.
    assert list(call.slot_mapping) == [24, 25, -1, 29, -1]


def test_eagle_step_chain_skips_a_chain_starting_at_max_model_len(tmp_path):
    # the proposer's first position is a target token's, below max_model_len: a chain from 6 (= max_model_len)
    # is no batch the engine makes (the kernel would PAD it and restart at 0, a different lap than c % 6)
    call = make_call([0, 1, 3], [3, 6, 7], [4, 7], [0, 1], [[5, 6], [7, 8]], 2,
                     params={"block_size": 4, "max_model_len": 6})
    with pytest.raises(Skip, match="request 1's first step starts at position 6"):
        run_binding(tmp_path, "eagle_step_chain", EAGLE, call)


def test_eagle_step_chain_skips_a_dummy_of_a_persistent_table(tmp_path):
    # a persistent table's dummy (idx_mapping -1) has no row of the proposer's table; none reaches the drafter
    call = make_call([0, 1, 2], [3, 0], [4, 1], [1, -1], [[5, 6], [7, 8]], 2, rows_by_idx=True,
                     params={"block_size": 4, "max_model_len": 6})
    with pytest.raises(Skip, match="a dummy request of a persistent table"):
        run_binding(tmp_path, "eagle_step_chain", EAGLE, call)


EXTRACT = {"vllm/v1/worker/block_table.py": '''
    @triton.jit(do_not_specialize=["num_tokens", "max_num_tokens"])
    def _compute_slot_mapping_kernel(num_tokens, max_num_tokens, query_start_loc_ptr, positions_ptr, block_table_ptr,
                                     block_table_stride, block_size, slot_mapping_ptr, KV_CACHE_BLOCK_SIZE,
                                     BLOCKS_PER_KV_BLOCK, TOTAL_CP_WORLD_SIZE, TOTAL_CP_RANK,
                                     CP_KV_CACHE_INTERLEAVE_SIZE, PAD_ID, BLOCK_SIZE):
        RECORD.update(grid=GRID, num_tokens=num_tokens, max_num_tokens=max_num_tokens, stride=block_table_stride)
        table = block_table_ptr.reshape(-1)
        for r in range(GRID[0] - 1):                     # block_table.py:399-442 (no DCP)
            for t in range(query_start_loc_ptr[r], query_start_loc_ptr[r + 1]):
                p = positions_ptr[t]
                slot_mapping_ptr[t] = table[r * block_table_stride + p // block_size] * block_size + p % block_size
        slot_mapping_ptr[num_tokens:max_num_tokens] = PAD_ID
''', "vllm/v1/spec_decode/extract_hidden_states.py": '''
    PADDING_SLOT_ID = -1

    class ExtractHiddenStatesProposer:
        def _get_slot_mapping(self, num_tokens, slot_mapping=None):
            num_actual = slot_mapping.shape[0]           # extract_hidden_states.py:182-198
            self._slot_mapping_buffer[:num_actual] = slot_mapping
            self._slot_mapping_buffer[num_actual:num_tokens] = PADDING_SLOT_ID
            return {name: self._slot_mapping_buffer[:num_tokens] for name in self.attn_layer_names}
'''}


def test_extract_hidden_states_argument_mapping(tmp_path):
    # block 4; request 0 at 5 6, request 1 at 2; 4 tokens. The drafter's common_attn_metadata.slot_mapping is
    # the target's over the scheduled tokens, query_start_loc[R] = 3 (gpu_model_runner.py:2616-2624 unpads to
    # num_tokens), whatever the scenario's num_actual_tokens (2 here): the proposer copies 3 slots (request 1's
    # 8 * 4 + 2 = 34 included) and PADs the 4th.
    call = make_call([0, 2, 3], [5, 6, 2, 0], [7, 3], [0, 1], [[3, 4], [8, 9]], 2, params={"block_size": 4},
                     num_actual_tokens=2)
    record = run_binding(tmp_path, "vllm_extract_hidden_states", EXTRACT, call)
    assert (record["grid"], record["num_tokens"], record["max_num_tokens"], record["stride"]) == ((3,), 3, 4, 2)
    assert list(call.slot_mapping) == [17, 18, 34, -1]


def test_extract_hidden_states_skips_a_token_past_its_row(tmp_path):
    # block 4, rows of 2 columns: request 1's position 8 is column 2, past its row; the engine's kernel would
    # read the next row (or past the table), but its rows hold cdiv(max_model_len, block_size) columns and
    # the scheduler keeps positions below max_model_len, so no batch of it gets there.
    call = make_call([0, 1, 2], [5, 8], [6, 9], [0, 1], [[3, 4], [8, 9]], 2, params={"block_size": 4})
    with pytest.raises(Skip, match="request 1 has a token past its row"):
        run_binding(tmp_path, "vllm_extract_hidden_states", EXTRACT, call)


DSV4 = {"vllm/v1/attention/backends/mla/compressor_utils.py": '''
    def _compressed_slot_mapping_kernel():
        pass

    def get_compressed_slot_mapping(num_tokens, query_start_loc, seq_lens, block_table, block_size,
                                    compress_ratio, out=None):
        RECORD.update(num_tokens=num_tokens, table=block_table.tolist())
        out.fill(-1)                                      # compressor_utils.py:62-68
        for r in range(block_table.shape[0]):             # compressor_utils.py:24-50
            q = query_start_loc[r + 1] - query_start_loc[r]
            for i in range(q):
                pos = seq_lens[r] - q + i
                if (pos + 1) % compress_ratio == 0:
                    cp = pos // compress_ratio
                    out[query_start_loc[r] + i] = block_table[r, cp // block_size] * block_size + cp % block_size
        return out[:num_tokens]
'''}


@pytest.mark.parametrize("caller,num_tokens,slot", [("sparse_mla", 4, 0), ("indexer", 5, -2)])
def test_dsv4_compressed_argument_mapping(tmp_path, caller, num_tokens, slot):
    # block 2, ratio 2; request 0 keeps lp 3 (cp 1, column 0, entry 3): slot 7; request 1 keeps lp 5 (cp 2,
    # column 1): its row is [-1, -1]; sparse_mla clamps it to 0 (slot 0), the indexer does not (slot -2).
    call = make_call([0, 2, 4], [2, 3, 4, 5, 0], [4, 6], [0, 1], [[3, -1], [-1, -1]], 2,
                     params={"block_size": 2, "compress_ratio": 2, "state": 0}, num_actual_tokens=4)
    record = run_binding(tmp_path, "dsv4_compressed", DSV4, call, {"caller": caller})
    assert record["num_tokens"] == num_tokens
    assert list(call.slot_mapping) == [-1, 7, -1, slot, -1]


@pytest.mark.parametrize("ratio,qsl,seq_lens,idx,by_idx,num_actual,why", [
    (1, [0, 2], [4], [0], False, 2, "compress_ratio 1: both callers launch it only for a compressed layer"),
    (2, [0, 3], [2], [0], False, 3, "request 0: 3 tokens, seq_len 2"),
    (2, [0, 2], [9], [0], False, 2, "request 0 reads column 2 of a 2-column table"),
    (2, [0, 1, 2], [4, 2], [0, -1], True, 2, "a dummy request of a persistent table"),
    (2, [0, 2], [4], [0], False, 0, "num_actual_tokens 0 below query_start_loc"),
    (2, [0, 1], [2 ** 31], [0], False, 1, "a seq_len past int32"),
])
def test_dsv4_compressed_skips_what_the_engine_never_launches(tmp_path, ratio, qsl, seq_lens, idx, by_idx,
                                                              num_actual, why):
    # compress_ratio 1 (no caller launches it), seq_len below the query, a column past the table (the engine's
    # covers max_model_len), a persistent table's dummy (the engine's padded row is zeroed), num_actual_tokens
    # below the requests' tokens (sparse_mla's num_tokens; the engine's is the padded count), a seq_len past
    # int32 (cm.seq_lens is int32: the GPU's indexer run met seq_len 2^31 at position 2^31 - 1)
    call = make_call(qsl, list(range(qsl[-1])), seq_lens, idx, [[3, 4], [5, 6]], 2, rows_by_idx=by_idx,
                     params={"block_size": 2, "compress_ratio": ratio, "state": 0}, num_actual_tokens=num_actual)
    with pytest.raises(Skip, match=why):
        run_binding(tmp_path, "dsv4_compressed", DSV4, call)


@pytest.mark.parametrize("family,files,params", [
    ("eagle_step", EAGLE, {"max_model_len": 100}),
    ("eagle_step_chain", EAGLE, {"max_model_len": 100}),
    ("dsv4_compressed", DSV4, {"compress_ratio": 2, "state": 0}),
])
def test_a_slot_past_int32_is_skipped_where_the_kernel_multiplies_in_int32(tmp_path, family, files, params):
    # entry 3 * block_size 10^9 = 3 * 10^9 > 2^31 - 1: the kernel's int32 product would wrap; no engine cache
    # has 2^31 slots a layer
    call = make_call([0, 1], [1], [2], [0], [[3, 4]], 2, params=dict(params, block_size=10 ** 9))
    with pytest.raises(Skip, match="an entry whose slot is past int32"):
        run_binding(tmp_path, family, files, call)


STATE_ONE = {"vllm/v1/attention/backends/utils.py": '''
    import torch
    from vllm.config import VllmConfig

    def mamba_get_block_table_tensor(block_table, seq_lens, kv_cache_spec, mamba_cache_mode):
        RECORD.update(mode=mamba_cache_mode, table=block_table.tolist())
        if mamba_cache_mode in ("all", "none"):           # utils.py:1020-1036
            return block_table
        assert isinstance(kv_cache_spec, MambaSpec)
        start = np.maximum((seq_lens.astype(np.int64) - 1) // kv_cache_spec.block_size, 0)
        cols = start[:, None] + np.arange(1 + kv_cache_spec.num_speculative_blocks)
        return np.take_along_axis(block_table, cols, 1)
'''}


@pytest.mark.parametrize("family", ["vllm_mamba", "vllm_gdn", "vllm_lightning"])
@pytest.mark.parametrize("align,expected,mode", [(1, [9, 5, 0], "align"), (0, [0, 5, 0], "none")])
def test_state_index_argument_mapping(tmp_path, family, align, expected, mode):
    # block 4; request 0 (seq 9): align column 2 -> 9, column 0 -> 0; request 1 (seq 3): column 0 -> 5;
    # request 2 is a dummy: its row is zeroed, as the runner's padded rows are (index 0).
    call = make_call([0, 1, 2, 3], [8, 2, 0], [9, 3, 1], [0, 1, -1], [[0, 7, 9], [5, 0, 0], [3, 3, 3]], 3,
                     params={"block_size": 4, "align": align}, output_length=3)
    record = run_binding(tmp_path, family, STATE, call)
    assert record["mode"] == mode
    assert record["table"][2] == [0, 0, 0]
    assert list(call.slot_mapping) == expected


STATE_ALL = dict(STATE_ONE, **{"vllm/v1/attention/backends/mamba_attn.py": '''
    class BaseMambaAttentionMetadataBuilder:
        def _compute_prefix_caching_block_indices(self, common_attn_metadata, mamba_block_size):
            computed = common_attn_metadata.compute_num_computed_tokens()   # mamba_attn.py:380-417
            last = np.maximum((computed + mamba_block_size - 1) // mamba_block_size - 1, 0)
            return last, None, None
'''})


STATE = STATE_ALL


@pytest.mark.parametrize("params,expected", [
    ({"cache_all": 1}, [4, 0]),               # all mode: the last computed token's column (7 computed: 1)
    ({"spec": 1, "num_accepted": 2}, [4, 0]),  # none mode, speculative: column num_accepted - 1
    ({"align": 1, "spec": 1, "num_accepted": 2}, [5, 0]),  # align: columns 2 and 3 ((9 - 1) / 4 = 2), the second
])
def test_state_index_all_mode_and_speculative_columns(tmp_path, params, expected):
    # block 4; request 0: 9 tokens, 2 scheduled (7 computed); request 1 a dummy (zeroed row).
    rows = [[3, 4, 5, 6], [9, 9, 9, 9]]
    if params.get("align"):
        rows = [[3, 4, 0, 5], [9, 9, 9, 9]]  # align reads columns 2 and 3: the second, num_accepted - 1 = 1
        expected = [5, 0]
    call = make_call([0, 2, 3], [7, 8, 0], [9, 1], [0, -1], rows, 4,
                     params=dict({"block_size": 4}, **params), output_length=2)
    record = run_binding(tmp_path, "vllm_mamba", STATE_ALL, call)
    assert record["mode"] == ("all" if params.get("cache_all") else "align" if params.get("align") else "none")
    assert list(call.slot_mapping) == expected


def with_seq_lens(call, seq_lens):
    """The call with int64 seq_lens past int32 and seq_lens_i32 saturated, as slotguard sends them."""
    call.seq_lens = np.array(seq_lens, dtype=np.int64)
    call.seq_lens_i32 = np.minimum(call.seq_lens, 2 ** 31 - 1).astype(np.int32)
    return call


@pytest.mark.parametrize("family", ["vllm_mamba", "vllm_gdn", "vllm_lightning"])
def test_state_index_skips_a_seq_len_past_int32(tmp_path, family):
    # seq_len 2^31 + 5, block 2^28: the engine's seq_lens are int32, so it holds no such request; the
    # saturated int32 would read column 7 where the int64 description reads column 8.
    call = with_seq_lens(make_call([0, 1], [2 ** 31 + 4], [1], [0], [[1, 2, 3, 4, 5, 6, 7, 8, 9]], 9,
                                   params={"block_size": 2 ** 28, "align": 1}, output_length=1), [2 ** 31 + 5])
    with pytest.raises(Skip, match="seq_len past int32"):
        run_binding(tmp_path, family, STATE, call)


def test_state_index_skips_all_mode_num_computed_wrapping_int32(tmp_path):
    # all mode, block 10^9 + 7: 2147483596 computed tokens + block - 1 is past int32, which the engine's
    # int32 torch.div wraps to a negative column clamped to 0 (mamba_attn.py:380-388, 409).
    call = make_call([0, 1], [2147483596], [2147483597], [0], [[1, 0, 6]], 3,
                     params={"block_size": 10 ** 9 + 7, "cache_all": 1}, output_length=1)
    with pytest.raises(Skip, match="past int32"):
        run_binding(tmp_path, "vllm_mamba", STATE_ALL, call)


def test_state_index_skips_a_column_past_the_table(tmp_path):
    call = make_call([0, 1], [12], [13], [0], [[1, 2, 3]], 3, params={"block_size": 4, "align": 1},
                     output_length=1)
    with pytest.raises(Skip, match="column past the table"):
        run_binding(tmp_path, "vllm_mamba", STATE, call)


MAMBA_COPY = {"vllm/v1/worker/mamba_utils.py": '''
    @triton.jit
    def _copy_mamba_state_block(state_idx, bt_row_idx, src_col, dst_col, token_bias, block_table_ptrs_ptr,
                                block_table_stride_req, state_base_addrs_ptr, state_block_strides_ptr,
                                state_elem_sizes_ptr, state_inner_sizes_ptr, state_conv_widths_ptr,
                                state_group_indices_ptr, state_dim_row_count_ptr, state_dim_row_stride_ptr,
                                COPY_BLOCK_SIZE, CONV_STATE_DIM_FIRST):
        pass

    @triton.jit(do_not_specialize=["num_reqs"])
    def preprocess_mamba_align_fused_kernel(idx_mapping_ptr, state_idx_ptr, num_computed_tokens_ptr,
                                            query_start_loc_ptr, num_accepted_tokens_ptr, src_col_ptr, src_off_ptr,
                                            num_reqs, BLOCK_SIZE, MAMBA_BLOCK_SIZE):
        for b in range(num_reqs):                         # mamba_utils.py:303-323
            req = idx_mapping_ptr[b]
            before = state_idx_ptr[req]
            src_col_ptr[req] = before
            src_off_ptr[req] = max(num_accepted_tokens_ptr[req] - 1, 0)
            after = num_computed_tokens_ptr[req] + query_start_loc_ptr[b + 1] - query_start_loc_ptr[b]
            state_idx_ptr[req] = (after + MAMBA_BLOCK_SIZE - 1) // MAMBA_BLOCK_SIZE - 1

    @triton.jit(do_not_specialize=["num_reqs"])
    def precopy_mamba_align_fused_kernel(mamba_state_idx_ptr, src_col_ptr, token_bias_ptr, block_table_ptrs_ptr,
                                         block_table_stride_req, state_base_addrs_ptr, state_block_strides_ptr,
                                         state_elem_sizes_ptr, state_inner_sizes_ptr, state_conv_widths_ptr,
                                         state_group_indices_ptr, state_dim_row_count_ptr,
                                         state_dim_row_stride_ptr, idx_mapping_ptr, num_reqs, COPY_BLOCK_SIZE,
                                         CONV_STATE_DIM_FIRST, HAS_IDX_MAPPING=True):
        RECORD.setdefault("grids", []).append(GRID)
        for batch_idx in range(GRID[0]):                  # mamba_utils.py:369-403, then the SD conv copy
            req = idx_mapping_ptr[batch_idx]              # of _copy_mamba_state_block (:104-120)
            src_col, dst_col = src_col_ptr[req], mamba_state_idx_ptr[req]
            if req < 0 or src_col < 0 or src_col == dst_col:
                continue
            row = (ctypes.c_int32 * (dst_col + 1)).from_address(int(block_table_ptrs_ptr[0]) +
                                                                4 * batch_idx * block_table_stride_req)
            base, stride = int(state_base_addrs_ptr[0]), int(state_block_strides_ptr[0])
            elem, inner, width = int(state_elem_sizes_ptr[0]), int(state_inner_sizes_ptr[0]), int(state_conv_widths_ptr[0])
            bias = int(token_bias_ptr[req])
            ctypes.memmove(base + row[dst_col] * stride, base + row[src_col] * stride + bias * inner * elem,
                           (width - bias) * inner * elem)
'''}


def test_mamba_copy_argument_mapping(tmp_path):
    # block 4. request 0: computed 7 of 9 -> copy column 1 (block 6) into column 2 (block 8); request 1:
    # fresh (computed 0): no copy; request 2: computed 4 of 5 -> column 0 (the null block 0) into column 1
    # (3); request 3: column 0 holds -1 (before the pool) -> into 5; request 4: a dummy, not launched.
    call = make_call([0, 2, 6, 7, 8, 9], [0] * 9, [9, 4, 5, 5, 5], [0, 1, 2, 3, -1],
                     [[4, 6, 8], [1, 2, 0], [0, 3, 0], [-1, 5, 0], [7, 7, 7]], 3,
                     params={"block_size": 4}, outputs=2, output_length=5)
    record = run_binding(tmp_path, "vllm_mamba_copy", MAMBA_COPY, call)
    assert record["grids"] == [(1, 1)] * 4                # one launch per live request
    assert list(call.outputs[0]) == [6, -1, 0, -1, -1]     # sources
    assert list(call.outputs[1]) == [8, -1, 3, 5, -1]      # destinations


MAMBA_POSTCOPY = {"vllm/v1/worker/mamba_utils.py": MAMBA_COPY["vllm/v1/worker/mamba_utils.py"] + '''
    @triton.jit(do_not_specialize=["num_reqs"])
    def postprocess_mamba_fused_kernel(num_accepted_tokens_ptr, mamba_state_idx_ptr, num_scheduled_tokens_ptr,
                                       num_computed_tokens_ptr, num_draft_tokens_ptr, block_table_ptrs_ptr,
                                       block_table_stride_req, state_base_addrs_ptr, state_block_strides_ptr,
                                       state_elem_sizes_ptr, state_inner_sizes_ptr, state_conv_widths_ptr,
                                       state_group_indices_ptr, state_dim_row_count_ptr, state_dim_row_stride_ptr,
                                       num_accepted_tokens_out_ptr, idx_mapping_ptr, num_reqs, block_size,
                                       COPY_BLOCK_SIZE, CONV_STATE_DIM_FIRST, HAS_IDX_MAPPING=False,
                                       PRECOMPUTED_NEW_COMPUTED=False):
        RECORD.setdefault("post_grids", []).append(GRID)
        RECORD.setdefault("new_computed", []).append(int(num_computed_tokens_ptr[0]))
        for batch_idx in range(GRID[0]):                  # mamba_utils.py:212-277
            req = idx_mapping_ptr[batch_idx]
            if req < 0:
                continue
            acc, src = int(num_accepted_tokens_ptr[req]), int(mamba_state_idx_ptr[req])
            new = int(num_computed_tokens_ptr[req])
            running = new - acc + 1
            aligned = new // block_size * block_size
            if aligned < running:
                continue
            bias, dst = aligned - running, aligned // block_size - 1
            if src == dst and bias == 0:
                continue
            row = (ctypes.c_int32 * (src + bias + 1)).from_address(int(block_table_ptrs_ptr[0]) +
                                                                   4 * batch_idx * block_table_stride_req)
            for state in range(GRID[1]):                  # _copy_mamba_state_block (:27-150)
                base, stride = int(state_base_addrs_ptr[state]), int(state_block_strides_ptr[state])
                elem, inner = int(state_elem_sizes_ptr[state]), int(state_inner_sizes_ptr[state])
                width = int(state_conv_widths_ptr[state])
                if width > 0:                             # SD conv: shift by bias tokens (:104-120)
                    ctypes.memmove(base + row[dst] * stride, base + row[src] * stride + bias * inner * elem,
                                   (width - bias) * inner * elem)
                else:                                     # temporal: row[src + bias] (:121-150)
                    ctypes.memmove(base + row[dst] * stride, base + row[src + bias] * stride, inner * elem)
'''}


def mamba_postcopy_call(accepted, prefill, seq_lens=(12, 11, 8, 1), table=None):
    # block 4; r0 and r1 decodes of 1 + 3 drafts, r2 a prefill chunk of 4, r3 a dummy of one token
    table = table or [[10, 11, 12, 13, 14, 15], [10, 11, 12, 13, 14, 15], [20, 21, 22, 23, 24, 25], [0] * 6]
    call = make_call([0, 4, 8, 12, 13], [0] * 13, list(seq_lens), [0, 1, 2, -1], table, 6,
                     params={"block_size": 4}, outputs=2, output_length=8)
    call.inputs = {"num_accepted": np.array(accepted, dtype=np.int64), "prefill": np.array(prefill, dtype=np.int64)}
    return call


def test_mamba_postcopy_argument_mapping(tmp_path):
    call = mamba_postcopy_call([4, 2, 1, 1], [0, 0, 1, 0])
    record = run_binding(tmp_path, "vllm_mamba_postcopy", MAMBA_POSTCOPY, call)
    # r0 (P1): new = 12 - 1 - 3 + 4 = 12, running 9, aligned 12: bias 3, dest column 2, running column
    # cdiv(12, 4) - 1 = 2: temporal row[5] = 15 -> row[2] = 12, conv row[2] = 12 shifted by 3 -> 12.
    # r1 (P3): new = 11 - 1 - 3 + 2 = 9, running 8, aligned 8: bias 0, dest 1, running column 2: 12 -> 11 both.
    # r2: a prefill, new = seq_len 8 = aligned = running, bias 0, dest 1 = running column 1: no copy. r3: a dummy.
    assert record["post_grids"] == [(1, 2)] * 4            # one launch a request, two states
    assert record["new_computed"] == [12, 9, 8, 0]
    assert list(call.outputs[0]) == [15, 12, 12, 12, -1, -1, -1, -1]   # sources: op 0 temporal, op 1 conv
    assert list(call.outputs[1]) == [12, 12, 11, 11, -1, -1, -1, -1]   # destinations


def test_mamba_postcopy_sees_a_copy_from_and_into_the_null_block(tmp_path):
    # r0's temporal source column 5 holds the null block; r1's destination column 1 does: the kernel tests
    # neither, so the copies are 0 -> 12 (temporal; the conv source is column 2, 12 -> 12) and 12 -> 0.
    call = mamba_postcopy_call([4, 2, 1, 1], [0, 0, 1, 0],
                               table=[[10, 11, 12, 13, 14, 0], [10, 0, 12, 13, 14, 15], [20] * 6, [0] * 6])
    run_binding(tmp_path, "vllm_mamba_postcopy", MAMBA_POSTCOPY, call)
    assert list(call.outputs[0]) == [0, 12, 12, 12, -1, -1, -1, -1]
    assert list(call.outputs[1]) == [12, 12, 0, 0, -1, -1, -1, -1]


@pytest.mark.parametrize("accepted, prefill, seq_lens, why", [
    ([5, 2, 1, 1], [0, 0, 1, 0], (12, 11, 8, 1), "num_accepted above 1 \\+ num_draft"),
    ([4, 2, 2, 1], [0, 0, 1, 0], (12, 11, 8, 1), "a prefill row with num_accepted other than 1"),
    ([4, 2, 1, 1], [0, 0, 1, 0], (24, 11, 8, 1), "a column the copy reads past the row"),
])
def test_mamba_postcopy_skips_what_the_engine_never_holds(tmp_path, accepted, prefill, seq_lens, why):
    call = mamba_postcopy_call(accepted, prefill, seq_lens=seq_lens)
    with pytest.raises(Skip, match=why):
        run_binding(tmp_path, "vllm_mamba_postcopy", MAMBA_POSTCOPY, call)


def test_mamba_copy_skips_a_seq_len_past_int32(tmp_path):
    # V2's num_computed_tokens and seq_lens are int32: a request of 2^31 tokens is none the engine holds.
    call = with_seq_lens(make_call([0, 1], [0], [1], [0], [[4, 6, 8]], 3, params={"block_size": 2 ** 30},
                                   outputs=2, output_length=1), [2 ** 31])
    with pytest.raises(Skip, match="seq_len past int32"):
        run_binding(tmp_path, "vllm_mamba_copy", MAMBA_COPY, call)


def test_mamba_copy_skips_the_running_column_wrapping_int32(tmp_path):
    # seq_len 2^31 - 10 fits int32, and its running column 7 fits the row of 8, but seq_len + block 2^28 - 1
    # does not: the kernel's int32 (computed_after + MAMBA_BLOCK_SIZE - 1) // MAMBA_BLOCK_SIZE wraps
    # (mamba_utils.py:318-320).
    call = make_call([0, 1], [0], [2 ** 31 - 10], [0], [[1, 2, 3, 4, 5, 6, 7, 8]], 8, params={"block_size": 2 ** 28},
                     outputs=2, output_length=1)
    with pytest.raises(Skip, match="past int32"):
        run_binding(tmp_path, "vllm_mamba_copy", MAMBA_COPY, call)


OFFLOAD = {"vllm/distributed/kv_transfer/kv_connector/v1/offloading/scheduler.py": '''
    from vllm.v1.request import Request, RequestStatus

    def is_store_reachable_swa_chunk(absolute_chunk_index, storable_chunk_count, alignment_chunk_count,
                                     sliding_window_chunks, is_eagle_group):
        return True

    class RequestOffloadState:
        def update_offload_keys(self):
            for g, state in zip(self.config.kv_group_configs, self.group_states):
                for h in self.req.block_hashes[len(state.offload_keys):]:
                    state.offload_keys.append(make_offload_key(h, g.group_idx))

        def storable_chunks(self, group_config, group_state, num_offloadable_tokens):
            return min(num_offloadable_tokens // group_config.tokens_per_chunk,
                       len(group_state.block_ids) // self.config.blocks_per_chunk)

        def advance_stored_idx(self, num_offloadable_tokens):
            pass

    class OffloadingConnectorScheduler:
        def _calc_num_offloadable_tokens(self, req_status, num_computed_tokens: int) -> int:
            return min(num_computed_tokens, req_status.req.num_tokens)

        def _build_store_jobs(self, scheduler_output: "SchedulerOutput"):
            jobs = {}
            for req_id in chain(scheduler_output.num_scheduled_tokens, scheduler_output.finished_req_ids or ()):
                status = self._req_status[req_id]
                n = self._calc_num_offloadable_tokens(
                    status, status.req.num_computed_tokens + scheduler_output.num_scheduled_tokens[req_id])
                state, group = status.group_states[0], self.config.kv_group_configs[0]
                end = status.storable_chunks(group, state, n)
                ids = [b for b in state.block_ids[state.next_stored_chunk_idx:end] if b != 0]
                if ids:
                    jobs[self._generate_job_id()] = TransferJob(req_id=req_id, src_spec=GPULoadStoreSpec(ids),
                                                                dst_spec=None)
            return jobs
'''}


OFFLOAD_CAPPED = {k: v.replace('''            return min(num_computed_tokens, req_status.req.num_tokens)''',
                                '''            num = min(num_computed_tokens, req_status.req.num_tokens)
            if req_status.max_offload_tokens is not None:
                num = min(num, req_status.max_offload_tokens)
            return num''') for k, v in OFFLOAD.items()}


def test_offload_store_argument_mapping(tmp_path):
    # block 4, 4 columns. request 0: 12 tokens, 7 computed: chunks [1, 3): column 1 is null (skipped),
    # column 2 holds 7. request 1: 8 tokens, none computed: columns 0 and 1 (5, 6). request 2: a dummy.
    call = make_call([0, 5, 13, 14], [0] * 14, [12, 8, 4], [0, 1, -1], [[3, 0, 7, 8], [5, 6, 0, 0], [9, 9, 9, 9]],
                     4, params={"block_size": 4}, output_length=12)
    run_binding(tmp_path, "vllm_offload_store", OFFLOAD, call)
    assert list(call.slot_mapping) == [-1, -1, 7, -1, 5, 6, -1, -1, -1, -1, -1, -1]


def test_offload_store_reads_the_descriptions_request_parameters(tmp_path):
    # request 0 of test_offload_store_argument_mapping with stored_chunks 0 (nothing stored before this
    # step: columns 0 and 2) and max_offload_tokens 8 (chunks [0, 2): column 0 only).
    call = make_call([0, 5], [0] * 5, [12], [0], [[3, 0, 7, 8]], 4,
                     params={"block_size": 4, "stored_chunks": 0, "max_offload_tokens": 8}, output_length=4)
    run_binding(tmp_path, "vllm_offload_store", OFFLOAD_CAPPED, call)
    assert list(call.slot_mapping) == [3, -1, -1, -1]


GATHER = {"vllm/v1/worker/gpu/block_table.py": '''
    from vllm.v1.worker.gpu.buffer_utils import _load_ptr  # a bare import: never run

    @triton.jit(do_not_specialize=["num_reqs"])
    def _gather_block_tables_kernel(batch_idx_to_req_idx, src_block_table_ptrs, dst_block_table_ptrs,
                                    block_table_strides, num_blocks_ptr, num_blocks_stride, num_reqs, BLOCK_SIZE):
        RECORD.setdefault("grids", []).append(GRID)
        RECORD["num_reqs"] = num_reqs
        RECORD["load_ptr"] = _load_ptr(None, None)         # the binding put buffer_utils' in its globals
        for group_id in range(GRID[0]):                     # block_table.py:232-258
            stride = int(block_table_strides[group_id])
            dst = (ctypes.c_int32 * (GRID[1] * stride)).from_address(int(dst_block_table_ptrs[group_id]))
            src_base = int(src_block_table_ptrs[group_id])
            for batch_idx in range(GRID[1]):
                if batch_idx >= num_reqs:                   # :241-246 zero a padded row
                    for i in range(stride):
                        dst[batch_idx * stride + i] = 0
                    continue
                req = int(batch_idx_to_req_idx[batch_idx])
                n = int(num_blocks_ptr[group_id * num_blocks_stride + req])
                src = (ctypes.c_int32 * stride).from_address(src_base + 4 * req * stride)
                for i in range(n):                          # :255-258 offsets < num_blocks
                    dst[batch_idx * stride + i] = src[i]
''', "vllm/v1/worker/gpu/buffer_utils.py": '''
    def _load_ptr(ptr_to_ptr, elem_dtype):
        return "buffer_utils._load_ptr"
'''}


def test_gather_block_tables_argument_mapping(tmp_path):
    # block 16, a persistent table of 3 rows, 4 wide. request 0 reads row 2, seq 20: num_blocks 2;
    # request 1 reads row 0, seq 5: 1; request 2 is a padded row. Columns past num_blocks keep the zeroed
    # buffer; the padded row is zeroed whatever row 1 (stale) holds.
    call = make_call([0, 1, 5, 6], [0] * 6, [20, 5, 1], [2, 0, -1], [[3, 11, 12, 0], [4, 6, 9, 10], [4, 6, 13, 0]],
                     4, rows_by_idx=True, params={"block_size": 16, "kernel_block_size": 16, "lookahead": 0},
                     output_length=12)
    record = run_binding(tmp_path, "vllm_gather_block_tables", GATHER, call)
    assert record["grids"] == [(1, 3)]      # one group, num_reqs_padded rows
    assert record["num_reqs"] == 2          # the live requests: idx_mapping's length
    assert record["load_ptr"] == "buffer_utils._load_ptr"
    assert list(call.slot_mapping) == [4, 6, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0]


def test_gather_block_tables_counts_kernel_blocks_and_the_lookahead(tmp_path):
    # block 32 of kernel blocks 16, lookahead 2: seq 31 -> cdiv(33, 32) * 2 = 4 entries of 6.
    call = make_call([0, 1], [0], [31], [0], [[6, 7, 10, 11, 20, 21]], 6,
                     params={"block_size": 32, "kernel_block_size": 16, "lookahead": 2}, output_length=6)
    run_binding(tmp_path, "vllm_gather_block_tables", GATHER, call)
    assert list(call.slot_mapping) == [6, 7, 10, 11, 0, 0]


def test_gather_block_tables_skips_a_padded_row_before_a_live_one(tmp_path):
    call = make_call([0, 1, 2], [0, 0], [1, 1], [-1, 0], [[1], [2]], 1,
                     params={"block_size": 16, "kernel_block_size": 16, "lookahead": 0}, output_length=2)
    with pytest.raises(Skip):
        run_binding(tmp_path, "vllm_gather_block_tables", GATHER, call)


PARALLEL_DRAFTING = {"vllm/v1/spec_decode/utils.py": """
    PADDING_SLOT_ID = -1

    def next_power_of_2(n):
        return 1 if n <= 1 else 1 << (n - 1).bit_length()

    @triton.jit
    def copy_and_expand_eagle_inputs_kernel(target_token_ids_ptr, target_positions_ptr, next_token_ids_ptr,
                                            out_input_ids_ptr, out_positions_ptr, out_is_rejected_token_mask_ptr,
                                            out_is_masked_token_mask_ptr, out_new_token_indices_ptr,
                                            out_hidden_state_mapping_ptr, query_start_loc_ptr, query_end_loc_ptr,
                                            padding_token_id, parallel_drafting_token_id, total_input_tokens,
                                            num_padding_slots_per_request, shift_input_ids, BLOCK_SIZE_TOKENS):
        RECORD.update(grid=GRID, target_positions=list(target_positions_ptr), qsl=list(query_start_loc_ptr),
                      qel=list(query_end_loc_ptr), K=num_padding_slots_per_request, shift=shift_input_ids,
                      block=BLOCK_SIZE_TOKENS, total_input=total_input_tokens)
        for r in range(GRID[0]):                          # utils.py:339-433, the whole request at once
            qs, nqs, qe = query_start_loc_ptr[r], query_start_loc_ptr[r + 1], query_end_loc_ptr[r]
            valid = qe - qs if shift_input_ids else qe - qs + 1
            start = qs + r * (num_padding_slots_per_request - (1 if shift_input_ids else 0))
            rejected = nqs - qe - 1
            for j in range(valid + num_padding_slots_per_request + rejected):
                is_rejected = j >= valid + num_padding_slots_per_request
                out_positions_ptr[start + j] = 0 if is_rejected else target_positions_ptr[qs] + j
                out_is_rejected_token_mask_ptr[start + j] = is_rejected

    def compute_new_slot_mapping(cad, new_positions, is_rejected_token_mask, block_size, num_new_tokens,
                                 max_model_len):
        batch_size, n_blocks_per_req = cad.block_table_tensor.shape       # utils.py:249-270
        RECORD.update(naive=list(cad.naive_query_lens()), N=num_new_tokens, positions=list(new_positions),
                      mask=[bool(m) for m in is_rejected_token_mask])
        req = np.repeat(np.arange(batch_size), cad.naive_query_lens() + num_new_tokens)
        clamped = np.minimum(new_positions, max_model_len - 1)
        nums = cad.block_table_tensor.reshape(-1)[req * n_blocks_per_req + clamped // block_size]
        out = nums.astype(np.int64) * block_size + clamped % block_size
        out[new_positions >= max_model_len] = PADDING_SLOT_ID
        out[is_rejected_token_mask] = PADDING_SLOT_ID
        return out
""", "vllm/v1/attention/backend.py": """
    class CommonAttentionMetadata:
        def naive_query_lens(self):
            return self.query_start_loc[1:] - self.query_start_loc[:-1]
"""}


def parallel_drafting_call(positions, num_rejected, idx_mapping=(0, 1), max_model_len=64):
    # block 4, num_speculative_tokens 3 with the EAGLE shift: N = 2 slots a request. Request 0: 5 tokens (a
    # target of 3), its last rejected; request 1: 4 tokens (a target of 2); one token of CUDA-graph padding.
    call = make_call([0, 5, 9], positions, [12, 7], list(idx_mapping), [[5, 6, 7], [9, 10, 0]], 3,
                     params={"block_size": 4, "max_model_len": max_model_len}, num_tokens=10)
    call.inputs = {"num_rejected": np.array(num_rejected, dtype=np.int64)}
    return call


def test_parallel_drafting_argument_mapping(tmp_path):
    call = parallel_drafting_call([8, 9, 10, 11, 0, 3, 4, 5, 6, 0], [1, 0])
    record = run_binding(tmp_path, "vllm_parallel_drafting", PARALLEL_DRAFTING, call,
                         options={"num_speculative_tokens": "3"})
    # the target: 3 + 2 tokens from positions 8 and 3; query_end_loc = qsl[1:] - 1 - num_rejected = [1, 4]
    assert record["qsl"] == [0, 3, 5] and record["qel"] == [1, 4] and record["target_positions"] == [8, 9, 10, 3, 4]
    assert record["K"] == 3 and record["shift"] is True and record["total_input"] == 5
    assert record["grid"] == (2, 1) and record["block"] == 8  # max target q 3 + N 2 = 5 -> 8
    assert record["naive"] == [3, 2] and record["N"] == 2
    # request 0: valid 3 - 1 - 1 = 1, bonus, 2 parallel slots (positions 8..11), then the rejected token at 0
    assert record["positions"] == [8, 9, 10, 11, 0, 3, 4, 5, 6]
    assert record["mask"] == [False] * 4 + [True] + [False] * 4
    # 8..11 -> column 2, block 7: 28..31; 3 -> block 9: 39; 4..6 -> block 10: 40..42; the padding token PAD
    assert list(call.slot_mapping) == [28, 29, 30, 31, -1, 39, 40, 41, 42, -1]


def test_parallel_drafting_takes_the_largest_n_the_batch_carries(tmp_path):
    call = parallel_drafting_call([8, 9, 10, 11, 0, 3, 4, 5, 6, 0], [1, 0])
    record = run_binding(tmp_path, "vllm_parallel_drafting", PARALLEL_DRAFTING, call)
    # N = min(q - shift - num_rejected, q - 1) = min(5 - 1 - 1, 4 - 1 - 0) = 3: K 4, targets of 2 and 1 tokens;
    # query_end_loc = [2, 3] - 1 - [1, 0] = [0, 2]; request 0: valid 0, the bonus, 3 slots, the rejected token
    assert record["N"] == 3 and record["K"] == 4 and record["naive"] == [2, 1]
    assert record["target_positions"] == [8, 9, 3] and record["qel"] == [0, 2]
    assert record["positions"] == [8, 9, 10, 11, 0, 3, 4, 5, 6]
    assert list(call.slot_mapping) == [28, 29, 30, 31, -1, 39, 40, 41, 42, -1]


def test_parallel_drafting_skips_a_slot_past_int32(tmp_path):
    # block 7 * block_size 10^9 > 2^31 - 1: utils.py:264 multiplies the int32 entry by block_size in int32
    call = parallel_drafting_call([8, 9, 10, 11, 0, 3, 4, 5, 6, 0], [1, 0])
    call.block_size = call.params["block_size"] = 10 ** 9
    with pytest.raises(Skip, match="an entry whose slot is past int32"):
        run_binding(tmp_path, "vllm_parallel_drafting", PARALLEL_DRAFTING, call)


def test_parallel_drafting_masks_positions_from_max_model_len(tmp_path):
    call = parallel_drafting_call([8, 9, 10, 11, 0, 3, 4, 5, 6, 0], [1, 0], max_model_len=6)
    run_binding(tmp_path, "vllm_parallel_drafting", PARALLEL_DRAFTING, call)
    # request 0 is past max_model_len 6 entirely; request 1's positions 3, 4, 5 map, 6 is PAD
    assert list(call.slot_mapping) == [-1, -1, -1, -1, -1, 39, 40, 41, -1, -1]


@pytest.mark.parametrize("positions, num_rejected, idx, why", [
    ([8, 9, 10, 12, 0, 3, 4, 5, 6, 0], [1, 0], (0, 1), "positions are not start, start \\+ 1"),
    ([8, 9, 10, 11, 0, 3, 4, 5, 6, 0], [3, 0], (0, 1), "request 0: 5 tokens with num_rejected 3"),
    ([8, 9, 10, 11, 0, 3, 4, 5, 6, 0], [1, 0], (0, -1), "a dummy request"),
    ([8, 9, 10, 11, 0, 3, 4, 5, 6, 0], [4, 0], (0, 1), "too short to carry a drafter's slot"),
])
def test_parallel_drafting_skips_what_the_proposer_never_makes(tmp_path, positions, num_rejected, idx, why):
    call = parallel_drafting_call(positions, num_rejected, idx_mapping=idx)
    options = {} if "too short" in why else {"num_speculative_tokens": "3"}
    with pytest.raises(Skip, match=why):
        run_binding(tmp_path, "vllm_parallel_drafting", PARALLEL_DRAFTING, call, options=options)


SLIDING = {"vllm/v1/worker/gpu/block_table.py": '''
    from vllm.v1.worker.gpu.buffer_utils import _load_ptr  # a bare import: never run

    @triton.jit
    def _compute_slot_mappings_kernel(max_num_tokens, idx_mapping, query_start_loc, pos, block_table_ptrs,
                                      block_table_strides, block_sizes, slot_mappings_ptr, slot_mappings_stride,
                                      cp_rank, CP_SIZE, CP_INTERLEAVE, PAD_ID, TRITON_BLOCK_SIZE):
        RECORD.update(grid=GRID, max_num_tokens=max_num_tokens, idx=list(idx_mapping), stride=slot_mappings_stride,
                      load_ptr=_load_ptr(None, None), block_sizes=list(block_sizes), cp=(CP_SIZE, cp_rank))
        for group_id in range(GRID[0]):                     # block_table.py:277-323
            out = slot_mappings_ptr[group_id]
            stride, bs = int(block_table_strides[group_id]), int(block_sizes[group_id])
            for batch_idx in range(GRID[1]):
                if batch_idx == GRID[1] - 1:                # :283-291 PAD the rest
                    out[query_start_loc[batch_idx]:max_num_tokens] = PAD_ID
                    continue
                row = int(idx_mapping[batch_idx])
                for t in range(query_start_loc[batch_idx], query_start_loc[batch_idx + 1]):
                    p = int(pos[t])
                    addr = int(block_table_ptrs[group_id]) + 4 * (row * stride + p // bs)
                    out[t] = ctypes.c_int32.from_address(addr).value * bs + p % bs
''', "vllm/v1/worker/gpu/buffer_utils.py": '''
    def _load_ptr(ptr_to_ptr, elem_dtype):
        return "buffer_utils._load_ptr"
'''}


def test_sliding_window_argument_mapping(tmp_path):
    # block 4, a persistent table of 3 rows, 3 wide. request 0 reads row 2 (its column 0 the null block the
    # window freed), positions 5, 6: column 1, block 5 -> 21, 22; request 1 reads row 0, position 9: column 2,
    # block 11 -> 45; one padding token: PAD from the last program.
    call = make_call([0, 2, 3], [5, 6, 9, 0], [7, 10], [2, 0], [[7, 8, 11], [1, 2, 3], [0, 5, 6]], 3,
                     rows_by_idx=True, params={"block_size": 4, "sliding_window": 6})
    record = run_binding(tmp_path, "vllm_sliding_window", SLIDING, call)
    assert record["grid"] == (1, 3) and record["max_num_tokens"] == 4 and record["idx"] == [2, 0]
    assert record["load_ptr"] == "buffer_utils._load_ptr" and record["block_sizes"] == [4] and record["cp"] == (1, 0)
    assert list(call.slot_mapping) == [21, 22, 45, -1]


@pytest.mark.parametrize("idx, positions, why", [
    ([2, -1], [5, 6, 9, 0], "a dummy request"),
    ([2, 0], [5, 6, 40, 0], "past the table's last row"),
])
def test_sliding_window_skips_what_the_runner_never_hands_the_kernel(tmp_path, idx, positions, why):
    call = make_call([0, 2, 3], positions, [7, 10], idx, [[7, 8, 11], [1, 2, 3], [0, 5, 6]], 3,
                     rows_by_idx=True, params={"block_size": 4, "sliding_window": 6})
    with pytest.raises(Skip, match=why):
        run_binding(tmp_path, "vllm_sliding_window", SLIDING, call)


# ---------------------------------------------------------------------------
# What a binding says when the tree lacks what it binds.


HISPARSE = {"vllm/v1/kv_offload/sparse/hisparse_runtime.py": '''
    import numpy

    def _compress_hisparse_slot_mapping_kernel():
        pass

    def compress_hisparse_slot_mapping(source, positions, *, logical_block_size, storage_block_size,
                                       compress_ratio, out=None):
        RECORD.update(source=source.tolist(), positions=positions.tolist(), L=logical_block_size,
                      S=storage_block_size, cr=compress_ratio)
        num_tokens = min(source.size, positions.size)    # hisparse_runtime.py:106 (d10b2d53)
        out.fill(-1)                                      # :109
        for t in range(num_tokens):                       # :86-93 (sources >= 0: C and numpy division agree)
            if source[t] >= 0 and (positions[t] + 1) % compress_ratio == 0:
                out[t] = (source[t] // logical_block_size * storage_block_size
                          + source[t] % logical_block_size // compress_ratio)
        return out[:num_tokens]
'''}


def test_hisparse_compressed_argument_mapping(tmp_path):
    # The source is the linked group's output (common_slot_mapping); L 8, cr 4, S 2: t1 at position 11 keeps
    # 27 // 8 * 2 + 3 // 4 = 6, t2 at 3 keeps 43 // 8 * 2 + 3 // 4 = 10; t0 is no boundary, t3's source is PAD.
    call = make_call([0, 2, 3], [10, 11, 3, 0], [12, 4], [0, 1], [[7, 3], [5, 6]], 2,
                     params={"src": 0, "logical_block_size": 8, "manager_block_size": 8, "compress_ratio": 4,
                             "storage_block_size": 2})
    call.common_slot_mapping = np.array([26, 27, 43, -1], dtype=np.int64)
    record = run_binding(tmp_path, "vllm_hisparse_compressed", HISPARSE, call)
    assert record == {"source": [26, 27, 43, -1], "positions": [10, 11, 3, 0], "L": 8, "S": 2, "cr": 4}
    assert list(call.slot_mapping) == [-1, 6, 10, -1]
    call.common_slot_mapping = None
    with pytest.raises(Skip, match="no source group"):
        run_binding(tmp_path, "vllm_hisparse_compressed", HISPARSE, call)


def test_a_missing_function_is_one_line_naming_it_the_path_and_the_version(tmp_path):
    root = write_tree(tmp_path, {"vllm/v1/worker/gpu/spec_decode/dflash/speculator.py": "def other():\n    pass\n",
                                 "COMMIT": "0123456789abcdef0123456789abcdef01234567\n"})
    with pytest.raises(BindingError) as e:
        bind("vllm", "dflash", root, ops_with({}))
    assert str(e.value) == ("prepare_dflash_inputs: no such function in "
                            "vllm/v1/worker/gpu/spec_decode/dflash/speculator.py at commit "
                            "0123456789abcdef0123456789abcdef01234567 (checkout, %s)" % root)


def test_a_renamed_function_names_the_one_bound(tmp_path):
    renamed = DFLASH["vllm/v1/worker/gpu/spec_decode/dflash/speculator.py"].replace(
        "def prepare_dflash_inputs(", "def prepare_dflash_inputs_v2(")
    root = write_tree(tmp_path, {"vllm/v1/worker/gpu/spec_decode/dflash/speculator.py": renamed})
    with pytest.raises(BindingError, match=r"^prepare_dflash_inputs: no such function in vllm/v1/worker/gpu/"
                                           r"spec_decode/dflash/speculator.py at "):
        bind("vllm", "dflash", root, ops_with({}))


def test_a_renamed_method_names_class_and_method(tmp_path):
    text = OFFLOAD["vllm/distributed/kv_transfer/kv_connector/v1/offloading/scheduler.py"].replace(
        "def _build_store_jobs(", "def _build_store_jobs_v2(")
    root = write_tree(tmp_path, {"vllm/distributed/kv_transfer/kv_connector/v1/offloading/scheduler.py": text})
    with pytest.raises(BindingError, match=r"^OffloadingConnectorScheduler._build_store_jobs: no such function in "):
        bind("vllm", "vllm_offload_store", root, ops_with({}))


def test_a_missing_file_and_a_tree_without_the_package(tmp_path):
    root = write_tree(tmp_path, {"vllm/__init__.py": ""})
    with pytest.raises(BindingError, match=r"^get_compressed_slot_mapping: cannot read vllm/v1/attention/"
                                           r"backends/mla/compressor_utils.py in "):
        bind("vllm", "dsv4_compressed", root, ops_with({}))
    with pytest.raises(BindingError, match=r"^--source .*: no vllm/ directory there"):
        find_tree("vllm", str(tmp_path / "vllm"))


def test_the_command_says_it_in_one_line_and_exits_2(tmp_path):
    root = write_tree(tmp_path, {"vllm/v1/spec_decode/utils.py": "X = 1\n"})
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    for extra in (["--check"], []):  # bind only, and as a provider: it never serves
        p = subprocess.run([sys.executable, "-m", "slotguard.engines", "vllm", "--family", "eagle_step",
                            "--source", root] + extra, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, env=env, timeout=60)
        assert p.returncode == 2
        assert p.stderr.splitlines() == [
            "slotguard.engines: eagle_step_update_slot_mapping_and_metadata: no such function in "
            "vllm/v1/spec_decode/utils.py at %s (checkout, %s)" % (os.path.basename(root), root)]


def test_each_description_names_what_its_binding_binds():
    for family, binding in BINDINGS.items():
        with open(os.path.join(ROOT, "families", family + ".json")) as f:
            engine = json.load(f)["engine"]
        assert engine["repo"] in VLLM_REPOS
        assert engine["bind"] == binding.path + ":" + binding.function, family


# vLLM's repository, and the fork whose HiSparse stack vllm_hisparse_compressed reads (d10b2d53).
VLLM_REPOS = ("vllm-project/vllm", "MatthewBonanni/vllm")


# vLLM families with no binding yet, and why.
UNBOUND = {
    # the runner's inline torch.zeros (gpu_model_runner.py:4126-4138): no function computes the mapping
    "vllm_encoder_only",
    # ReqMeta.from_request_tracker needs a RequestTracker and LMCache's config: not bound yet
    "lmcache_vllm_adapter",
}


def test_every_shipped_vllm_family_has_a_binding():
    shipped = set()
    for name in os.listdir(os.path.join(ROOT, "families")):
        with open(os.path.join(ROOT, "families", name)) as f:
            if json.load(f).get("engine", {}).get("repo") in VLLM_REPOS:
                shipped.add(name[:-5])
    assert shipped - UNBOUND == set(BINDINGS)
    assert not UNBOUND & set(BINDINGS), "a bound family is still listed as unbound"
