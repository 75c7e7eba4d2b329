"""The array adaptations: memoryview and numpy views of the blob (zero-copy,
read-only inputs), block_table_2d as a strided view, zeroed outputs."""
import pytest

import fakehost as fh
import slotguard

try:
    import numpy as np
except ImportError:
    np = None
try:
    import torch
except ImportError:
    torch = None

ARRAYS = ["memoryview"] + (["numpy"] if np is not None else []) + (["torch"] if torch is not None else [])


def persistent_scenario():
    return fh.load({"slotguard": 2, "name": "p", "num_blocks": 16,
                    "batch": {"table_rows": "idx_mapping", "query_start_loc": [0, 2, 3, 4],
                              "positions": [0, 1, 0, 7, 0], "idx_mapping": [2, -1, 0],
                              "seq_lens": [2, 1, 2 ** 40]},
                    "groups": [{"name": "attn", "kernel": "paged", "block_size": 16,
                                "block_table": [[3, 4], [5, 6], [7, 8], [9, 10]]}]})


@pytest.mark.parametrize("arrays", ARRAYS)
def test_views_types_values_and_2d_table(arrays):
    p = slotguard.Provider("t", arrays=arrays)
    got = {}

    @p.family("paged")
    def paged(call):
        got["kind"] = call.arrays
        got["qsl"] = list(call.query_start_loc)
        got["pos"] = list(call.positions)
        got["seq"] = list(call.seq_lens)
        got["seq32"] = list(call.seq_lens_i32)
        got["idx"] = list(call.idx_mapping)
        got["sin"] = list(call.slot_mapping_in)
        got["rot"] = list(call.request_of_token)
        got["scalars"] = (call.num_reqs, call.num_actual_tokens, call.num_real_tokens, call.num_tokens,
                          call.rows_by_idx_mapping, call.block_table_rows, call.block_table_width,
                          call.block_table_row_stride)
        t2 = call.block_table_2d
        got["shape"] = tuple(t2.shape)
        got["rows"] = [list(t2[r]) for r in range(4)]
        got["entry"] = t2[2, 1]
        got["flat0"] = [call.block_table[i] for i in range(4)]
        got["out_zero"] = [int(x) for x in call.slot_mapping]
        got["params"] = dict(call.params)
        call.slot_mapping[4] = 77
        if arrays != "torch":
            with pytest.raises((TypeError, ValueError)):
                call.positions[0] = 1     # inputs are read-only
    s = persistent_scenario()
    blob = fh.Blob()
    p.welcome(fh.hello())
    parts = p.run_message(bytearray(fh.run_message([fh.record_bytes(0, s, blob, [0])], blob)))
    res = fh.parse_results(b"".join(bytes(x) for x in parts), [[(5, 1)]])
    assert got["kind"] == arrays
    for k in ("qsl", "pos", "seq", "seq32", "idx", "sin", "rot", "flat0", "out_zero"):
        got[k] = [int(x) for x in got[k]]
    got["rows"] = [[int(x) for x in row] for row in got["rows"]]
    assert got["qsl"] == [0, 2, 3, 4] and got["pos"] == [0, 1, 0, 7, 0]
    assert got["seq"] == [2, 1, 2 ** 40] and got["seq32"] == [2, 1, 2 ** 31 - 1]
    assert got["idx"] == [2, -1, 0] and got["sin"] == [-1] * 5 and got["rot"] == [0, 0, 1, 2, -1]
    assert got["scalars"] == (3, 4, 4, 5, 1, 4, 2, 4)
    assert got["shape"] == (4, 2)
    assert got["rows"] == [[3, 4], [5, 6], [7, 8], [9, 10]] and got["entry"] == 8
    assert got["flat0"] == [3, 4, fh.POISON, fh.POISON]
    assert got["out_zero"] == [0] * 5
    assert got["params"] == {"block_size": 16, "kernel_block_size": 16, "dcp_world": 1, "dcp_rank": 0,
                             "dcp_interleave": 1, "enabled": 1}
    assert res[0][3] == [[0, 0, 0, 0, 77]]


@pytest.mark.skipif(np is None, reason="numpy is not importable")
def test_numpy_views_are_zero_copy_and_typed():
    p = slotguard.Provider("t", arrays="numpy")
    got = {}

    @p.family("paged")
    def paged(call):
        got["dtypes"] = (call.query_start_loc.dtype, call.positions.dtype, call.block_table.dtype,
                         call.slot_mapping.dtype)
        got["base"] = call.positions.base is not None and not call.positions.flags.owndata
        got["strides"] = call.block_table_2d.strides
        call.slot_mapping[:] = np.arange(call.num_tokens)
    s = persistent_scenario()
    blob = fh.Blob()
    p.welcome(fh.hello())
    parts = p.run_message(bytearray(fh.run_message([fh.record_bytes(0, s, blob, [0])], blob)))
    res = fh.parse_results(b"".join(bytes(x) for x in parts), [[(5, 1)]])
    assert [str(d) for d in got["dtypes"]] == ["int32", "int64", "int32", "int64"]
    assert got["base"] and got["strides"] == (16, 4)
    assert res[0][3] == [[0, 1, 2, 3, 4]]


@pytest.mark.parametrize("arrays", ARRAYS)
def test_empty_arrays_for_no_requests_and_no_tokens(arrays):
    p = slotguard.Provider("t", arrays=arrays)
    got = {}

    @p.family("kpool_tail")
    def kp(call):
        got["lens"] = (len(call.query_start_loc), len(call.seq_lens), len(call.idx_mapping), len(call.positions),
                       len(call.slot_mapping))
    s = fh.load({"slotguard": 1, "name": "e", "num_blocks": 2, "batch": {"query_start_loc": [0]},
                 "groups": [{"name": "k", "kernel": "kpool_tail", "kpool": 4, "block_table": []}]})
    blob = fh.Blob()
    p.welcome(fh.hello())
    parts = p.run_message(bytearray(fh.run_message([fh.record_bytes(0, s, blob, [0])], blob)))
    res = fh.parse_results(b"".join(bytes(x) for x in parts), [[(0, 1)]])
    assert got["lens"] == (1, 0, 0, 0, 0) and res[0][:3] == (0, 0, "")


@pytest.mark.skipif(torch is None, reason="torch is not importable")
def test_torch_cpu_views_share_the_message_and_returned_tensors_are_copied():
    p = slotguard.Provider("t", arrays="torch")
    got = {}

    @p.family("paged")
    def paged(call):
        got["dtypes"] = (call.query_start_loc.dtype, call.positions.dtype, call.block_table.dtype,
                         call.slot_mapping.dtype)
        got["stride"] = call.block_table_2d.stride()
        return torch.arange(call.num_tokens) * 10
    s = persistent_scenario()
    blob = fh.Blob()
    p.welcome(fh.hello())
    parts = p.run_message(bytearray(fh.run_message([fh.record_bytes(0, s, blob, [0])], blob)))
    res = fh.parse_results(b"".join(bytes(x) for x in parts), [[(5, 1)]])
    assert got["dtypes"] == (torch.int32, torch.int64, torch.int32, torch.int64) and got["stride"] == (4, 1)
    assert res[0][3] == [[0, 10, 20, 30, 40]]


@pytest.mark.skipif(torch is None, reason="torch is not importable")
def test_kpool_example_torch_fallback_for_an_empty_batch():
    import importlib.util
    import os
    from conftest import ROOT
    spec = importlib.util.spec_from_file_location("kp", os.path.join(ROOT, "examples", "python",
                                                                     "kpool_tail_provider.py"))
    kp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kp)
    kp.torch = torch       # the cuda route's torch ops, on CPU tensors
    out = torch.zeros(5, dtype=torch.int64)
    sin = torch.tensor([1, 2, 3, 9001, 9002])
    e32 = torch.empty(0, dtype=torch.int32)
    kp.kpool_tail_launch(out, torch.zeros(5, dtype=torch.int64), torch.tensor([0], dtype=torch.int32), e32, e32,
                         sin, 1, 0, 0, 0, 3, 5, 4)
    assert out.tolist() == [-1, -1, -1, 9001, 9002]
