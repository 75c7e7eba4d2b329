"""capture(): engine tensors -> a scenario file the real loader accepts."""
import json
import os

import pytest

import slotguard

try:
    import numpy as np
except ImportError:
    np = None


def two_groups(**kw):
    args = dict(query_start_loc=[0, 3, 5], positions=None, seq_lens=[3, 2], idx_mapping=[0, -1], num_blocks=8,
                groups=[dict(name="attn", family="paged", block_size=16, block_table=[[2], [0]]),
                        dict(name="tail", family="kpool_tail", kpool=4, block_table=[[3], [0]])])
    args.update(kw)
    return args


def test_format_1_with_the_keys_given(tmp_path):
    s = slotguard.capture(str(tmp_path / "a.json"), **two_groups(name="two"))
    on_disk = json.load(open(str(tmp_path / "a.json")))
    assert on_disk == s
    assert s["slotguard"] == 1 and s["name"] == "two" and s["num_blocks"] == 8
    assert s["batch"] == {"query_start_loc": [0, 3, 5], "seq_lens": [3, 2], "num_actual_tokens": 5,
                          "num_tokens": 5, "idx_mapping": [0, -1]}
    assert s["groups"][0] == {"name": "attn", "kernel": "paged", "block_size": 16, "block_table": [[2], [0]]}
    assert s["groups"][1] == {"name": "tail", "kernel": "kpool_tail", "kpool": 4, "block_table": [[3], [0]]}
    assert "expect" not in s


def test_format_2_only_when_needed_and_64_bit_positions_stay_format_1(tmp_path):
    s = slotguard.capture(str(tmp_path / "p.json"), query_start_loc=[0, 1], positions=[2 ** 40], seq_lens=None,
                          groups=[dict(name="a", family="paged", block_size=16, block_table=[[1] * 4])])
    assert s["slotguard"] == 1   # positions are int64 in either version (docs/scenario-format.md)
    s = slotguard.capture(str(tmp_path / "q.json"), query_start_loc=[0, 1], positions=[0], seq_lens=None,
                          idx_mapping=[1], table_rows="idx_mapping",
                          groups=[dict(name="a", family="paged", block_size=16, block_table=[[5], [1]])])
    assert s["slotguard"] == 2 and s["batch"]["table_rows"] == "idx_mapping"


def test_engine_buffers_are_cut_to_the_step(tmp_path):
    s = slotguard.capture(str(tmp_path / "c.json"), query_start_loc=[0, 2, 3, 3, 3], num_reqs=2,
                          positions=[5, 6, 0, 99, 99], num_tokens=4, seq_lens=[7, 1, 0, 0], idx_mapping=[0, 1, 0],
                          groups=[dict(name="a", family="paged", block_size=4, kernel_block_size=2,
                                       dcp_world=2, dcp_rank=1, block_table=[[1, 2], [3, 4], [0, 0]])])
    assert s["batch"]["query_start_loc"] == [0, 2, 3] and s["batch"]["positions"] == [5, 6, 0, 99]
    assert s["batch"]["seq_lens"] == [7, 1] and s["batch"]["idx_mapping"] == [0, 1]
    assert s["groups"][0]["block_table"] == [[1, 2], [3, 4]]
    assert s["groups"][0]["dcp"] == {"world": 2, "rank": 1}   # the keys given; the loader's defaults do the rest
    assert s["num_blocks"] == 3   # kernel block id 4 is manager block 2


@pytest.mark.skipif(np is None, reason="numpy is not importable")
def test_numpy_inputs(tmp_path):
    s = slotguard.capture(str(tmp_path / "n.json"), query_start_loc=np.array([0, 2], dtype=np.int32),
                          positions=np.array([4, 5], dtype=np.int64), seq_lens=np.array([6]),
                          groups=[dict(name="t", family="kpool_tail", kpool=np.int32(4),
                                       block_table=np.array([[3, 0]], dtype=np.int32))])
    assert s["batch"]["positions"] == [4, 5] and s["groups"][0]["block_table"] == [[3, 0]]


def test_torch_cuda_tensors_move_to_the_cpu(tmp_path):
    torch = pytest.importorskip("torch")
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    s = slotguard.capture(str(tmp_path / "t.json"), query_start_loc=torch.tensor([0, 1], device=dev),
                          positions=torch.tensor([3], device=dev), seq_lens=None,
                          groups=[dict(name="t", family="kpool_tail", kpool=4,
                                       block_table=torch.tensor([[2]], dtype=torch.int32, device=dev))])
    assert s["batch"]["positions"] == [3] and s["groups"][0]["block_table"] == [[2]]


@pytest.mark.parametrize("change, message", [
    (dict(query_start_loc=[1, 3, 5]), "query_start_loc[0]"),
    (dict(query_start_loc=[0, 3, 2]), "decreases"),
    (dict(seq_lens=[1, 2]), "shorter than request 0"),
    (dict(idx_mapping=[0, -2]), "idx_mapping[1]"),
    (dict(num_blocks=2), "group 'attn': block_table[0][0]: block id 2 out of range; expected -1 <= id < num_blocks (2)"),
    (dict(groups=[dict(name="a", family="pagd", block_size=4, block_table=[[1], [1]])]), "family 'pagd'"),
    (dict(groups=[dict(name="a", family="paged", kpool=4, block_size=4, block_table=[[1], [1]])]),
     "a key of kpool_tail"),
    (dict(groups=[dict(name="a", family="paged", block_table=[[1], [1]])]), "missing block_size"),
    (dict(groups=[dict(name="a", family="paged", block_size=6, kernel_block_size=4, block_table=[[1], [1]])]),
     "does not divide"),
    (dict(groups=[dict(name="a", family="paged", block_size=4, block_table=[[1]])]), "has 1 rows"),
    (dict(groups=[dict(name="a", family="paged", block_size=4, block_table=[[1], [1, 2]])]), "row 1 has 2"),
    (dict(groups=[dict(name="a", family="kpool_tail", kpool=4, block_table=[[], []])]),
     "x.json:/groups/0/block_table/0: row too narrow; expected 1 column"),
    (dict(groups=[dict(name="q", family="qsa_compressed", block_size=4, compress_ratio=2, common="x",
                       block_table=[[1], [1]])]), "names no paged group"),
    (dict(table_rows="persistent"), "table_rows"),
    (dict(num_actual_tokens=9, num_tokens=5), "num_actual_tokens 9 > num_tokens 5"),
    (dict(expect={"verdict": "maybe"}), "verdict"),
])
def test_bad_inputs_are_clear_value_errors(tmp_path, change, message):
    with pytest.raises(ValueError) as e:
        slotguard.capture(str(tmp_path / "x.json"), **two_groups(**change))
    assert message in str(e.value)


# Every malformed input is a ValueError naming the field, the row and the
# column (a string, dict or object array was a RecursionError, a 0-d array
# a TypeError).
@pytest.mark.parametrize("change, message", [
    (dict(positions="abc"), "positions: expected an array of integers, got the str 'abc'"),
    (dict(positions={"a": 1}), "positions: expected an array of integers, got a dict"),
    (dict(positions=[0, 1, "x", 3, 4]), "positions[2]: expected an integer, got the str 'x'"),
    (dict(positions=[0, 1, [2], 3, 4]), "positions[2]: expected an integer, got a list of 1 elements"),
    (dict(seq_lens="ab"), "seq_lens: expected an array of integers"),
    (dict(idx_mapping={"r": 0}), "idx_mapping: expected an array of integers, got a dict"),
    (dict(slot_mapping_in="x" * 5), "slot_mapping_in: expected an array of integers"),
    (dict(num_tokens=[5, 6]), "num_tokens: expected an integer, got a list of 2 elements"),
    (dict(groups=[dict(name="attn", family="paged", block_size=16, block_table="xy")]),
     "group 'attn': block_table: expected an array of integers, got the str 'xy'"),
    (dict(groups=[dict(name="attn", family="paged", block_size=16, block_table={"rows": [[2]]})]),
     "group 'attn': block_table: expected an array of integers, got a dict"),
    (dict(groups=[dict(name="attn", family="paged", block_size=16, block_table=[[2], "x"])]),
     "group 'attn': block_table[1]: expected an array of integers, got the str 'x'"),
    (dict(groups=[dict(name="attn", family="paged", block_size=16, block_table=[[2, 3], [0, "z"]])]),
     "group 'attn': block_table[1][1]: expected an integer, got the str 'z'"),
    (dict(groups=[dict(name="attn", family="paged", block_size=[16, 32], block_table=[[2], [0]])]),
     "group 'attn': block_size: expected an integer, got a list of 2 elements"),
    (dict(expect={"verdict": "finding", "findings": "null_block"}),
     "expect findings: expected a list of invariant names, got the str 'null_block'"),
])
def test_malformed_inputs_are_value_errors_naming_field_row_and_column(tmp_path, change, message):
    with pytest.raises(ValueError) as e:
        slotguard.capture(str(tmp_path / "x.json"), **two_groups(**change))
    assert message in str(e.value)


@pytest.mark.skipif(np is None, reason="numpy not installed")
def test_malformed_numpy_inputs_are_value_errors(tmp_path):
    cases = [
        (dict(positions=np.array(5)), "positions: expected an array of integers, got 5"),
        (dict(query_start_loc=np.array(0)), "query_start_loc: expected an array of integers, got 0"),
        (dict(positions=np.array([0, object(), 2, 3, 4], dtype=object)), "positions[1]: expected an integer, got an object"),
        (dict(groups=[dict(name="attn", family="paged", block_size=16, block_table=np.array(2))]),
         "group 'attn': block_table: expected an array of integers, got 2"),
    ]
    for change, message in cases:
        with pytest.raises(ValueError) as e:
            slotguard.capture(str(tmp_path / "x.json"), **two_groups(**change))
        assert message in str(e.value)


# expect's invariant names are checked against the binary's registry
# (`slotguard list --json`) when the file is written, not later by check.
def test_an_unknown_expected_invariant_is_refused_at_capture(binary, tmp_path):
    with pytest.raises(ValueError) as e:
        slotguard.capture(str(tmp_path / "x.json"), binary=binary,
                          **two_groups(expect={"verdict": "finding", "findings": ["null_block", "nul_block"]}))
    assert "expect findings[1]: unknown invariant 'nul_block', did you mean 'null_block'?" in str(e.value)
    assert not (tmp_path / "x.json").exists()
    s = slotguard.capture(str(tmp_path / "y.json"), binary=binary,
                          **two_groups(expect={"verdict": "finding", "findings": ["null_block", "row_bounds"]}))
    assert s["expect"]["findings"] == ["null_block", "row_bounds"]


def test_a_dummy_run_is_format_2_and_its_dummies_may_share_a_row(tmp_path):
    # vLLM v2's make_dummy: idx_mapping arange; a dummy run owns no row, so two
    # requests naming one row is no conflict there.
    s = slotguard.capture(str(tmp_path / "d.json"), query_start_loc=[0, 1, 2], positions=[0, 0], seq_lens=None,
                          idx_mapping=[0, 0], table_rows="idx_mapping", dummy_run=True,
                          groups=[dict(name="a", family="paged", block_size=16, block_table=[[0]])])
    assert s["slotguard"] == 2 and s["batch"]["dummy_run"] is True
    s = slotguard.capture(str(tmp_path / "e.json"), query_start_loc=[0, 1], positions=[0], seq_lens=None,
                          groups=[dict(name="a", family="paged", block_size=16, block_table=[[0]])])
    assert "dummy_run" not in s["batch"]
    with pytest.raises(ValueError, match="dummy_run 1; expected True"):
        slotguard.capture(str(tmp_path / "f.json"), query_start_loc=[0, 1], positions=[0], seq_lens=None,
                          dummy_run=1, groups=[dict(name="a", family="paged", block_size=16, block_table=[[0]])])


def test_two_live_requests_on_one_persistent_row(tmp_path):
    with pytest.raises(ValueError, match="both read row 0"):
        slotguard.capture(str(tmp_path / "x.json"), query_start_loc=[0, 1, 2], positions=[0, 0], seq_lens=None,
                          idx_mapping=[0, 0], table_rows="idx_mapping",
                          groups=[dict(name="a", family="paged", block_size=4, block_table=[[1]])])


def test_captured_files_load_and_hold_in_the_real_binary(binary, tmp_path):
    # Hand-worked: attn block 2, block_size 16: positions 0,1,2 -> 32,33,34; request 1 is a dummy -> PAD.
    # tail: kpool 4, block 3: 3*4 + pos mod 4 -> 12,13,14; request 1's null entry -> PAD.
    good = str(tmp_path / "good.json")
    slotguard.capture(good, **two_groups(expect={"slot_mapping": {"attn": [32, 33, 34, -1, -1],
                                                                  "tail": [12, 13, 14, -1, -1]}}))
    # A dummy whose row still names block 1 under the v2 runner: every family maps it to PAD (holds);
    # plus a persistent table with a stale row, read through idx_mapping.
    persist = str(tmp_path / "persist.json")
    slotguard.capture(persist, query_start_loc=[0, 2, 3, 4], positions=[0, 1, 0, 7], seq_lens=None,
                      idx_mapping=[2, -1, 0], table_rows="idx_mapping", num_blocks=8,
                      groups=[dict(name="attn", family="paged", block_size=16, block_table=[[3], [5], [5]])],
                      expect={"slot_mapping": {"attn": [80, 81, -1, 55]}})
    # A dummy request on the null block through the historical variant: the expected finding.
    caught = str(tmp_path / "caught.json")
    slotguard.capture(caught, **two_groups(
        groups=[dict(name="attn", family="paged", variant="dummy_reads_row", block_size=16,
                     block_table=[[2], [0]])],
        expect={"verdict": "finding", "findings": ["null_block"]}))
    r = slotguard.check([good, persist, caught], binary=binary)
    assert "3 scenario runs (3 hold, 0 fail)" in r.summary
    # The same batch without the expectation is a failure with the finding lines.
    raw = str(tmp_path / "raw.json")
    slotguard.capture(raw, **two_groups(groups=[dict(name="attn", family="paged", variant="dummy_reads_row",
                                                     block_size=16, block_table=[[2], [0]])]))
    with pytest.raises(slotguard.Failure) as e:
        slotguard.check([raw], binary=binary)
    assert "group attn: request 1 (dummy) wrote slots 0-1 of block 0 (tokens 3-4); reference PAD" in str(e.value)
    rep = slotguard.replay(good, binary=binary)
    assert rep.returncode == 0


def test_the_folder_is_created(tmp_path):
    path = tmp_path / "steps" / "day-1" / "step-17.json"
    slotguard.capture(str(path), **two_groups())
    assert json.load(open(str(path)))["name"] == "captured-step"


def test_a_bad_block_id_names_its_row_and_column(tmp_path):
    groups = [dict(name="attn", family="paged", block_size=16, block_table=[[2, 3], [0, 70]])]
    with pytest.raises(ValueError) as e:
        slotguard.capture(str(tmp_path / "x.json"), **two_groups(groups=groups, num_blocks=64))
    assert str(e.value) == "group 'attn': block_table[1][1]: block id 70 out of range; expected -1 <= id < num_blocks (64)"


@pytest.mark.parametrize("change, message", [
    (dict(posiitons=[0, 1, 2, 0, 1]), "capture() got an unknown argument 'posiitons', did you mean 'positions'?"),
    (dict(groups=[dict(name="a", family="paged", blok_size=16, block_table=[[1], [0]])]),
     "group 'a': unknown key 'blok_size' for family paged, did you mean 'block_size'?"),
    (dict(groups=[dict(name="a", family="paged", block_size=16, dcp=dict(wrld=2), block_table=[[1], [0]])]),
     "group 'a': dcp: unknown key 'wrld', did you mean 'world'?"),
    (dict(expect={"verdcit": "pass"}), "expect: unknown key 'verdcit', did you mean 'verdict'?"),
])
def test_unknown_keys_get_the_closest_name(tmp_path, change, message):
    with pytest.raises((TypeError, ValueError)) as e:
        slotguard.capture(str(tmp_path / "x.json"), **two_groups(**change))
    assert message in str(e.value)


# Per-request families: a state index has one entry per request, a block
# operation one per request and operation (num_reqs * ops); a copy's second
# output is NAME.dst.
def test_state_indices_and_block_operations_are_captured_per_request(binary, tmp_path):
    # Hand-worked, vllm_mamba (column 0, the marker 0 for the padded row): [4, 9, 0].
    batch = dict(query_start_loc=[0, 1, 2, 2], positions=None, seq_lens=[5, 7, 0], idx_mapping=[0, 1, -1],
                 num_blocks=16)
    mamba = str(tmp_path / "mamba.json")
    slotguard.capture(mamba, binary=binary, groups=[dict(name="ssm", family="vllm_mamba", block_size=16,
                                                         block_table=[[4], [9], [0]])],
                      expect={"slot_mapping": {"ssm": [4, 9, 0]}}, **batch)
    with pytest.raises(ValueError, match=r"x.json:/expect/slot_mapping/ssm: length disagrees with the number of "
                                         r"requests \(a state index per request\); expected 3 entries, got 2"):
        slotguard.capture(str(tmp_path / "x.json"), binary=binary,
                          groups=[dict(name="ssm", family="vllm_mamba", block_size=16, block_table=[[4], [9], [0]])],
                          expect={"slot_mapping": {"ssm": [4, 9]}}, **batch)
    # vllm_mamba_copy, block_size 4: r0 (1 token, seq_len 5) moves from column 0 to 1: copy 4 -> 6;
    # r1 (1 token, seq_len 7) stays in column 1: no copy; r2 is padded: no copy.
    copy = str(tmp_path / "copy.json")
    slotguard.capture(copy, binary=binary, groups=[dict(name="cp", family="vllm_mamba_copy", block_size=4,
                                                        block_table=[[4, 6], [9, 10], [0, 0]])],
                      expect={"slot_mapping": {"cp": [4, -1, -1], "cp.dst": [6, -1, -1]}}, **batch)
    r = slotguard.check([mamba, copy], binary=binary)
    assert "2 scenario runs (2 hold, 0 fail)" in r.summary


# Issue 35, items 20-22 (and 3 as capture() meets it): engine buffers are
# cut before they are looked at, every argument error is a ValueError that
# names the argument, and one family file is one path.
def test_garbage_past_the_step_is_never_looked_at(tmp_path):
    # Past num_reqs + 1, num_tokens and R: values no step could hold (negative, not integers).
    s = slotguard.capture(str(tmp_path / "c.json"), query_start_loc=[0, 2, 3, -7, "x"], num_reqs=2,
                          positions=[5, 6, 0, -1, 2 ** 70], num_tokens=3, seq_lens=[7, 1, -5, None],
                          idx_mapping=[0, 1, -9],
                          groups=[dict(name="a", family="paged", block_size=4, block_table=[[1], [3], [-5]])])
    assert s["batch"]["query_start_loc"] == [0, 2, 3] and s["batch"]["positions"] == [5, 6, 0]
    assert s["batch"]["seq_lens"] == [7, 1] and s["batch"]["idx_mapping"] == [0, 1]
    assert s["groups"][0]["block_table"] == [[1], [3]]


@pytest.mark.parametrize("change, message", [
    (dict(num_blocks="8"), "num_blocks: expected an integer, got the str '8'"),
    (dict(num_blocks=[8, 9]), "num_blocks: expected an integer, got a list of 2 elements"),
    (dict(groups=[dict(name="a", family=["paged"], block_size=16, block_table=[[1], [0]])]),
     "group 'a': family a list of 1 elements; expected one of"),
    (dict(groups=[{"name": "a", "family": "paged", "block_size": 16, "block_table": [[1], [0]], 7: 1, "zz": 2}]),
     "group 'a': unknown key 7 for family paged"),
    (dict(expect={"verdict": "pass", 3: "x", "q": 1}), "expect: unknown key 3"),
])
def test_argument_errors_are_value_errors_naming_the_argument(tmp_path, change, message):
    with pytest.raises(ValueError) as e:
        slotguard.capture(str(tmp_path / "x.json"), **two_groups(**change))
    assert message in str(e.value)


@pytest.mark.skipif(np is None, reason="numpy is not importable")
def test_numpy_argument_errors_name_the_argument(tmp_path):
    with pytest.raises(ValueError) as e:
        slotguard.capture(str(tmp_path / "x.json"), **two_groups(num_blocks=np.array([8, 9])))
    assert "num_blocks: expected an integer, got a list of 2 elements" in str(e.value)
    groups = [dict(name="p", family="paged", block_size=16, enabled=np.array([1, 0]), block_table=[[1], [0]])]
    with pytest.raises(ValueError) as e:
        slotguard.capture(str(tmp_path / "x.json"), **two_groups(groups=groups))
    assert "group 'p': enabled must be true or false, got a list of 2 elements" in str(e.value)
    # A 1-element array is its element, as for the integers.
    groups[0]["enabled"] = np.array([True])
    assert slotguard.capture(str(tmp_path / "y.json"), **two_groups(groups=groups))["groups"][0]["enabled"] is True


def test_one_family_file_is_one_path(binary, tmp_path):
    import os
    import shutil
    here = os.path.dirname(os.path.abspath(__file__))
    family = os.path.join(here, "..", "..", "examples", "families", "sliding_window.json")
    s = slotguard.capture(str(tmp_path / "w.json"), binary=binary, family_files=family,
                          query_start_loc=[0, 1], positions=[3], seq_lens=None,
                          groups=[dict(name="w", family="sliding_window", block_size=4, window_blocks=2,
                                       block_table=[[1, 2]])])
    assert s["groups"][0]["kernel"] == "sliding_window"
    # A family file under a folder whose name is not UTF-8: slotguard list --json escapes it.
    odd = os.path.join(os.fsencode(str(tmp_path)), b"bad\xff")
    os.mkdir(odd)
    shutil.copy(family, os.path.join(odd, b"sliding_window.json"))
    s = slotguard.capture(str(tmp_path / "u.json"), binary=binary,
                          family_files=[os.path.join(odd, b"sliding_window.json")],
                          query_start_loc=[0, 1], positions=[3], seq_lens=None,
                          groups=[dict(name="w", family="sliding_window", block_size=4, window_blocks=2,
                                       block_table=[[1, 2]])])
    assert s["groups"][0]["kernel"] == "sliding_window"
    from slotguard.capture import families
    assert "bad\\xff" in families(binary, [os.path.join(odd, b"sliding_window.json")])["sliding_window"]["file"]


# Issue 36, item 2: capture() keeps no model of a family's shapes; the binary
# that checks the file says what a family reads. Python's own formula reader
# followed + - * / % and four functions only, so a min_width with a
# comparison (here: 3 columns when window_blocks > 2, else 1) went
# unchecked, and the file was written for the binary to refuse later.
def test_the_binary_judges_every_family_rule_and_no_refused_file_stays(binary, tmp_path):
    fam = json.load(open(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "families",
                                      "sliding_window.json")))
    fam["name"] = "window_cmp"
    fam["min_width"] = "(window_blocks > 2) * 2 + 1"
    path = tmp_path / "window_cmp.json"
    path.write_text(json.dumps(fam))
    step = dict(query_start_loc=[0, 1], positions=[5], seq_lens=[6], num_blocks=8, binary=binary,
                family_files=[str(path)])
    out = tmp_path / "w.json"
    with pytest.raises(ValueError, match=r"w.json:/groups/0/block_table/0: row too narrow; expected 3 columns"):
        slotguard.capture(str(out), groups=[dict(name="w", family="window_cmp", block_size=4, window_blocks=3,
                                                 block_table=[[2, 3]])], **step)
    assert not out.exists()
    # window_blocks 2: (2 > 2) * 2 + 1 = 1 column is enough.
    slotguard.capture(str(out), groups=[dict(name="w", family="window_cmp", block_size=4, window_blocks=2,
                                             block_table=[[2, 3]])], **step)
    assert out.exists()
    # scenario_dict writes no file; the binary's line names it "scenario".
    with pytest.raises(ValueError, match=r"^scenario:/groups/0/block_table/0: row too narrow"):
        slotguard.scenario_dict(groups=[dict(name="w", family="window_cmp", block_size=4, window_blocks=3,
                                             block_table=[[2, 3]])], **step)


def test_a_familys_inputs_are_captured_and_checked_by_the_binary(tmp_path):
    # vllm_parallel_drafting reads the per-request input num_rejected
    # (docs/family-format.md, "Inputs"): capture() writes it in batch.inputs
    # (format 2), and the binary refuses an array of the wrong length.
    args = dict(query_start_loc=[0, 5, 8], positions=[5, 6, 7, 8, 0, 9, 10, 11], seq_lens=[9, 12], num_blocks=10,
                groups=[dict(name="draft", family="vllm_parallel_drafting", block_size=4, max_model_len=64,
                             block_table=[[0, 8, 2], [7, 3, 6]])])
    s = slotguard.capture(str(tmp_path / "d.json"), inputs={"num_rejected": [1, 0]}, **args)
    assert s["slotguard"] == 2
    assert s["batch"]["inputs"] == {"num_rejected": [1, 0]}
    assert json.load(open(str(tmp_path / "d.json"))) == s
    with pytest.raises(ValueError) as e:
        slotguard.capture(str(tmp_path / "e.json"), inputs={"num_rejected": [1, 0, 0]}, **args)
    assert "/batch/inputs/num_rejected: length disagrees with the number of requests" in str(e.value)
    assert not os.path.exists(str(tmp_path / "e.json"))
