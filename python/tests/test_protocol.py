"""The wire format: frames, HELLO/WELCOME, RUN (encoded by the test-side
fakehost, independently of slotguard.protocol) and RESULTS, every status,
both modes, the common group, through Provider in process."""
import os
import struct
import threading

import pytest

import fakehost as fh
import slotguard
from slotguard import protocol as P


def test_struct_sizes_match_the_spec():
    assert P.RECORD.size == 4 * 4 + 3 * 8 + 7 * 8
    assert P.GROUP.size == 4 * 4 + 8 + 8 + 8 + 4 + 4 + 8 + 4 + 4 + 8 + 8


def test_frames_round_trip_over_a_pipe():
    r, w = os.pipe()
    payloads = [b"", b"x", bytes(range(256)) * 1000]

    def writer():
        for p in payloads:
            P.write_frame(w, p[:3], p[3:])
        os.close(w)
    th = threading.Thread(target=writer)
    th.start()
    got = []
    while True:
        f = P.read_frame(r)
        if f is None:
            break
        got.append(bytes(f))
    th.join()
    os.close(r)
    assert got == payloads


def test_a_frame_cut_short_is_a_protocol_error():
    r, w = os.pipe()
    os.write(w, struct.pack("<Q", 10) + b"abc")
    os.close(w)
    with pytest.raises(P.ProtocolError):
        P.read_frame(r)
    os.close(r)


def test_hello_decodes_as_the_test_side_wrote_it():
    h = P.decode_hello(fh.hello("cuda"))
    assert h.version == 2 and h.device == "cuda"
    assert [(f.name, f.code, f.outputs, list(f.params)) for f in h.families] == [
        (n, c, o, p) for n, c, o, p in fh.FAMILIES]
    again = P.decode_hello(P.encode_hello("cpu", h.families))
    assert again.families == h.families and again.device == "cpu"


def test_welcome_encodes_as_the_spec_says():
    kind, version, name, mode, fams = fh.parse_welcome(bytes(P.encode_welcome("prov", 1, ["paged", "kpool_tail"])))
    assert (kind, version, name, mode, fams) == (101, 2, "prov", 1, ["paged", "kpool_tail"])


def kpool_scenario(**kw):
    d = {"slotguard": 1, "name": "k", "num_blocks": 8,
         "batch": {"query_start_loc": [0, 2, 3], "positions": [4, 5, 6, 0, 0], "num_actual_tokens": 4,
                   "slot_mapping_in": [-1, -1, -1, -1, 9001]},
         "groups": [{"name": "tail", "kernel": "kpool_tail", "kpool": 4, "block_table": [[7], [2]]}]}
    d.update(kw)
    return fh.load(d)


def test_run_decodes_every_field():
    s = kpool_scenario()
    blob = fh.Blob()
    rec = fh.record_bytes(3, s, blob, [0])
    run = P.decode_run(bytearray(fh.run_message([rec], blob)))
    (r,) = run.records
    assert (r.scenario, r.num_reqs, r.rows_by_idx_mapping, r.num_actual_tokens, r.num_real_tokens,
            r.num_tokens) == (3, 2, 0, 4, 3, 5)
    (g,) = r.groups
    assert (g.group, g.family, g.table_rows, g.table_width, g.table_row_stride) == (0, 23, 2, 1, 3)
    assert g.param_count == 1 and g.common_group == -1 and not g.common_inline and g.row_widths == 0
    assert struct.unpack_from("<q", bytes(run.blob), g.params_offset) == (4,)
    blob_bytes = bytes(run.blob)
    assert blob_bytes == bytes(blob.data)
    assert struct.unpack_from("<3i", blob_bytes, r.query_start_loc) == (0, 2, 3)
    assert struct.unpack_from("<5q", blob_bytes, r.positions) == (4, 5, 6, 0, 0)
    assert struct.unpack_from("<5i", blob_bytes, r.request_of_token) == (0, 0, 1, -1, -1)
    assert struct.unpack_from("<6i", blob_bytes, g.table) == (7, fh.POISON, fh.POISON, 2, fh.POISON, fh.POISON)
    assert run.blob_start % 8 == 0
    for off in (r.query_start_loc, r.positions, r.seq_lens, r.idx_mapping, g.table):
        assert off % 8 == 0


def test_run_round_trips_through_the_library_encoder():
    g = P.RunGroup(1, 23, 2, 1, 3, 0, 6, 1, 8, -1, 0, 0)
    rec = P.RunRecord(0, 2, 1, 4, 3, 5, 8, 16, 24, 32, 40, 48, 56, [g])
    buf = P.encode_run([rec], bytes(64))
    (back,) = P.decode_run(buf).records
    assert back.pack() == rec.pack()


def test_truncated_run_is_a_protocol_error():
    s = kpool_scenario()
    blob = fh.Blob()
    msg = fh.run_message([fh.record_bytes(0, s, blob, [0])], blob)
    with pytest.raises(P.ProtocolError):
        P.decode_run(bytearray(msg[:60]))
    with pytest.raises(P.ProtocolError):
        P.decode_run(bytearray(msg[:-8]))


def test_results_decode_and_length_checks():
    head = P.encode_results_head([(0, 0, ""), (1, 2, "ValueError: x"), (2, 0, "why")], 7)
    assert len(head) % 8 == 0
    out = P.decode_results(bytes(head) + struct.pack("<2q", 5, 6), [[(2, 1)], [(2, 1)], [(2, 1)]], 7)
    assert out[0] == (0, 0, "", [struct.pack("<2q", 5, 6)])
    assert out[1][:3] == (1, 2, "ValueError: x") and out[2][:3] == (2, 0, "why")
    with pytest.raises(P.ProtocolError):
        P.decode_results(bytes(head), [[(2, 1)], [(2, 1)], [(2, 1)]])
    # The answer to another RUN is refused.
    with pytest.raises(P.ProtocolError, match="the answer to RUN 7; expected RUN 8's"):
        P.decode_results(bytes(head) + struct.pack("<2q", 5, 6), [[(2, 1)], [(2, 1)], [(2, 1)]], 8)


# ----------------------------------------------------------------------------- in process


def serve_once(provider, records, blob, shapes, families=fh.FAMILIES):
    provider.welcome(fh.hello("cpu", families))
    parts = provider.run_message(bytearray(fh.run_message(records, blob)))
    return fh.parse_results(b"".join(bytes(p) for p in parts), shapes)


@pytest.mark.parametrize("arrays", ["numpy", "memoryview"])
def test_status_ok_error_skip_in_one_message(arrays, capsys):
    p = slotguard.Provider("t", arrays=arrays)

    @p.family("kpool_tail")
    def run(call):
        if call.scenario == 1:
            raise slotguard.Skip("not this one")
        if call.scenario == 2:
            raise KeyError("boom\nsecond line")
        for t in range(call.num_tokens):
            call.slot_mapping[t] = 100 + t + call.kpool
    s = kpool_scenario()
    blob = fh.Blob()
    recs = [fh.record_bytes(i, s, blob, [0]) for i in range(4)]
    res = serve_once(p, recs, blob, [[(5, 1)]] * 4)
    assert res[0] == (0, 0, "", [[104, 105, 106, 107, 108]])
    assert res[1] == (2, 0, "not this one", [])
    assert res[2][0] == 1 and res[2][1] == 0 and res[2][2].startswith("KeyError: ") and "\n" not in res[2][2]
    assert res[3] == (0, 0, "", [[104, 105, 106, 107, 108]])
    assert "Traceback" in capsys.readouterr().err


@pytest.mark.parametrize("arrays", ["numpy", "memoryview"])
def test_returned_values_are_copied_and_two_outputs(arrays):
    p = slotguard.Provider("t", arrays=arrays)

    @p.family("compressor_ring")
    def ring(call):
        assert call.tail_slot_mapping is not None and call.capacity == 8 and call.ring_block_size == 4
        return [1] * call.num_tokens, [2] * call.num_tokens

    @p.family("kpool_tail")
    def kp(call):
        assert call.tail_slot_mapping is None
        return [7] * call.num_tokens
    d = {"slotguard": 1, "name": "c", "num_blocks": 16, "batch": {"query_start_loc": [0, 3]},
         "groups": [{"name": "c", "kernel": "compressor_ring", "capacity": 8, "ring_block_size": 4,
                     "block_table": [[1, 2]]},
                    {"name": "k", "kernel": "kpool_tail", "kpool": 4, "block_table": [[3]]}]}
    s = fh.load(d)
    blob = fh.Blob()
    recs = [fh.record_bytes(0, s, blob, [0]), fh.record_bytes(0, s, blob, [1])]
    res = serve_once(p, recs, blob, [[(3, 2)], [(3, 1)]])
    assert res[0] == (0, 0, "", [[1, 1, 1], [2, 2, 2]])
    assert res[1] == (0, 1, "", [[7, 7, 7]])


def test_a_wrong_length_return_is_an_error():
    p = slotguard.Provider("t", arrays="numpy")

    @p.family("kpool_tail")
    def kp(call):
        return [1, 2]
    s = kpool_scenario()
    blob = fh.Blob()
    res = serve_once(p, [fh.record_bytes(0, s, blob, [0])], blob, [[(5, 1)]])
    assert res[0][0] == 1 and res[0][2].startswith("ValueError")


def compressed_scenario():
    return fh.load({"slotguard": 1, "name": "q", "num_blocks": 8, "batch": {"query_start_loc": [0, 2]},
                    "groups": [{"name": "attn", "kernel": "paged", "block_size": 4, "block_table": [[3]]},
                               {"name": "qc", "kernel": "qsa_compressed", "block_size": 4, "compress_ratio": 1,
                                "common": "attn", "block_table": [[5]]}]})


@pytest.mark.parametrize("arrays", ["numpy", "memoryview"])
def test_mode0_common_group_is_the_earlier_records_output(arrays):
    p = slotguard.Provider("t", arrays=arrays)
    seen = {}

    @p.family("paged")
    def paged(call):
        assert call.common_slot_mapping is None
        call.slot_mapping[0] = 41
        call.slot_mapping[1] = 42

    @p.family("qsa_compressed")
    def qc(call):
        seen["common"] = list(call.common_slot_mapping)
        return [x + 1 for x in call.common_slot_mapping]
    s = compressed_scenario()
    blob = fh.Blob()
    recs = [fh.record_bytes(0, s, blob, [0]), fh.record_bytes(0, s, blob, [1], common_map={1: 0})]
    res = serve_once(p, recs, blob, [[(2, 1)], [(2, 1)]])
    assert seen["common"] == [41, 42]
    assert res[1] == (0, 1, "", [[42, 43]])


def test_mode0_common_group_that_failed_fails_its_reader():
    p = slotguard.Provider("t", arrays="numpy")

    @p.family("paged")
    def paged(call):
        raise RuntimeError("paged broke")

    @p.family("qsa_compressed")
    def qc(call):
        raise AssertionError("must not run")
    s = compressed_scenario()
    blob = fh.Blob()
    recs = [fh.record_bytes(0, s, blob, [0]), fh.record_bytes(0, s, blob, [1], common_map={1: 0})]
    res = serve_once(p, recs, blob, [[(2, 1)], [(2, 1)]])
    assert res[0][0] == 1 and "paged broke" in res[0][2]
    assert res[1][0] == 1 and res[1][1] == 1 and "common group 0" in res[1][2]


def test_common_inline_is_slotguards_buffer():
    p = slotguard.Provider("t", arrays="numpy")

    @p.family("qsa_compressed")
    def qc(call):
        return call.common_slot_mapping * 2
    s = compressed_scenario()
    blob = fh.Blob()
    recs = [fh.record_bytes(0, s, blob, [1], inline={1: [5, -1]})]
    res = serve_once(p, recs, blob, [[(2, 1)]])
    assert res[0] == (0, 1, "", [[10, -2]])


@pytest.mark.parametrize("arrays", ["numpy", "memoryview"])
def test_mode1_step_has_every_group_in_order_and_common_aliases(arrays):
    p = slotguard.Provider("t", arrays=arrays)
    seen = {}

    @p.scenario(families=["paged", "qsa_compressed"])
    def run_all(step):
        seen["groups"] = [(c.family, c.group) for c in step.groups]
        seen["R"] = step.num_reqs
        attn, qc = step.groups
        attn.slot_mapping[0] = 7
        # the alias: qc's common_slot_mapping is attn's output buffer
        seen["alias"] = qc.common_slot_mapping[0]
        qc.slot_mapping[0] = 9
    s = compressed_scenario()
    blob = fh.Blob()
    res = serve_once(p, [fh.record_bytes(0, s, blob, [0, 1], common_map={1: 0})], blob, [[(2, 1), (2, 1)]])
    assert seen == {"groups": [("paged", 0), ("qsa_compressed", 1)], "R": 1, "alias": 7}
    assert res[0] == (0, 0, "", [[7, 0], [9, 0]])


def test_mode1_error_and_skip():
    p = slotguard.Provider("t", arrays="numpy")

    @p.scenario(families=["paged"])
    def run_all(step):
        if step.scenario == 0:
            raise ZeroDivisionError("division by zero")
        raise slotguard.Skip("num_reqs %d" % step.num_reqs)
    s = compressed_scenario()
    blob = fh.Blob()
    recs = [fh.record_bytes(0, s, blob, [0]), fh.record_bytes(1, s, blob, [0])]
    res = serve_once(p, recs, blob, [[(2, 1)], [(2, 1)]])
    assert res[0][:3] == (1, 0, "ZeroDivisionError: division by zero")
    assert res[1] == (2, 0, "num_reqs 1", [])


class Served(object):
    """One Provider, past its handshake, served message after message (as
    serve() does), counting the device synchronizations."""

    def __init__(self, provider, device="cpu"):
        self.p = provider
        provider.welcome(fh.hello(device))
        self.syncs = 0
        real = provider._array_impl.sync

        def counted():
            self.syncs += 1
            real()
        provider._array_impl.sync = counted

    def run(self, records, blob, shapes, flags=0, sequence=1):
        parts = self.p.run_message(bytearray(fh.run_message(records, blob, sequence, flags)))
        buf = b"".join(bytes(x) for x in parts)
        return fh.parse_results(buf, shapes, sequence), fh.results_flags(buf)


def kpool_records(count):
    s = kpool_scenario()
    blob = fh.Blob()
    return [fh.record_bytes(i, s, blob, [0]) for i in range(count)], blob, [[(5, 1)]] * count


def fill(call):
    for t in range(call.num_tokens):
        call.slot_mapping[t] = 100 + t


@pytest.mark.parametrize("requires", ["num_reqs >= 3", lambda c: c.num_reqs >= 3, ["kpool >= 1", "num_reqs >= 3"]])
def test_requires_skips_a_batch_the_launcher_cannot_take_without_calling_it(requires):
    p = slotguard.Provider("t", arrays="numpy")
    called = []

    @p.family("kpool_tail", requires=requires)
    def run(call):
        called.append(call.scenario)
    recs, blob, shapes = kpool_records(2)     # num_reqs 2
    (a, b), flags = Served(p).run(recs, blob, shapes)
    assert called == [] and flags == 0
    assert a[0] == 2 and b[0] == 2
    assert a[2].startswith("the launcher does not take this batch: requires ")
    if isinstance(requires, str):
        assert a[2].endswith("num_reqs >= 3")


def test_requires_that_holds_runs_the_call_and_a_bad_name_is_an_error():
    p = slotguard.Provider("t", arrays="numpy")
    p.family("kpool_tail", requires="num_reqs >= 1 and kpool == 4")(fill)
    q = slotguard.Provider("t", arrays="numpy")
    q.family("kpool_tail", requires="num_requests >= 1")(fill)
    recs, blob, shapes = kpool_records(1)
    (ok,), _ = Served(p).run(recs, blob, shapes)
    assert ok == (0, 0, "", [[100, 101, 102, 103, 104]])
    (bad,), _ = Served(q).run(recs, blob, shapes)
    assert bad[0] == 1 and "num_requests" in bad[2]
    with pytest.raises(TypeError):
        slotguard.Provider("t").family("kpool_tail", requires=3)


# An exception is its scenario's error, with the traceback's last line; the
# process goes on serving, and synchronizes after each call from then on
# (a launcher that raised may have left work on the device).
def test_an_exception_costs_its_scenario_and_the_provider_keeps_serving_synchronized(capsys):
    p = slotguard.Provider("t", arrays="numpy")

    @p.family("kpool_tail")
    def run(call):
        if call.scenario == 1:
            [][call.num_reqs]
        fill(call)
    served = Served(p)
    recs, blob, shapes = kpool_records(3)
    res, flags = served.run(recs, blob, shapes)
    assert [r[0] for r in res] == [0, 1, 0] and flags == 0
    assert res[1][2] == "IndexError: list index out of range"
    assert res[2][3] == [[100, 101, 102, 103, 104]]
    assert served.syncs == 1, "after the call that raised, each call is synchronized"
    assert p.exit_after_reply is None
    res, flags = served.run(recs, blob, shapes, sequence=2)
    assert [r[0] for r in res] == [0, 1, 0] and flags == 0
    assert served.syncs == 1 + 2, "each call that returned"
    assert "IndexError" in capsys.readouterr().err


def test_a_provider_synchronizes_after_each_call_only_when_asked():
    recs, blob, shapes = kpool_records(2)
    p = slotguard.Provider("t", arrays="numpy")
    p.family("kpool_tail")(fill)
    served = Served(p)
    served.run(recs, blob, shapes)
    assert served.syncs == 0
    served.run(recs, blob, shapes, flags=1, sequence=2)      # slotguard asks (a message sent again)
    assert served.syncs == 2
    q = slotguard.Provider("t", arrays="numpy", sync_each_call=True)
    q.family("kpool_tail")(fill)
    served = Served(q)
    served.run(recs, blob, shapes)
    assert served.syncs == 2


def cuda_error(call):
    if call.scenario == 1:
        raise RuntimeError("CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously "
                           "reported at some other API call")
    fill(call)


# A device fault loses the CUDA context: the reply says the provider exits
# (flag 1) and it does, after answering. Unsynchronized, the fault may be
# an earlier call's: every record is "not run" (status 3), sent again.
def test_a_device_fault_outside_a_synchronized_call_is_not_run_for_the_message_and_an_exit(capsys):
    p = slotguard.Provider("t", arrays="numpy")
    p.family("kpool_tail")(cuda_error)
    recs, blob, shapes = kpool_records(3)
    res, flags = Served(p, "cuda").run(recs, blob, shapes)
    assert flags == 1 and p.exit_after_reply == 70
    assert [r[0] for r in res] == [3, 3, 3] and all(r[3] == [] for r in res)
    assert res[0][2].startswith("not run: device fault: RuntimeError: CUDA error: device-side assert triggered")
    assert "outside a synchronized call" in capsys.readouterr().err


# Synchronized (slotguard sends the message again so), the fault is raised by
# the call that caused it: that record is the error naming it; the others
# are not run.
def test_a_device_fault_in_a_synchronized_call_is_named_in_its_reply():
    p = slotguard.Provider("t", arrays="numpy")
    p.family("kpool_tail")(cuda_error)
    recs, blob, shapes = kpool_records(3)
    res, flags = Served(p, "cuda").run(recs, blob, shapes, flags=1)
    assert flags == 1 and p.exit_after_reply == 70
    assert [r[0] for r in res] == [3, 1, 3]
    assert res[1][2].startswith("device fault: RuntimeError: CUDA error: device-side assert triggered")


# On the host there is no device context to lose: the same exception is an
# error like any other, and the provider keeps serving.
def test_a_cuda_looking_exception_on_the_host_is_an_ordinary_error():
    p = slotguard.Provider("t", arrays="numpy")
    p.family("kpool_tail")(cuda_error)
    recs, blob, shapes = kpool_records(3)
    res, flags = Served(p, "cpu").run(recs, blob, shapes)
    assert flags == 0 and p.exit_after_reply is None
    assert [r[0] for r in res] == [0, 1, 0]


def test_a_skip_in_a_whole_scenario_function_and_requires_on_its_step():
    p = slotguard.Provider("t", arrays="numpy")
    called = []

    @p.scenario(families=["kpool_tail"], requires="num_reqs >= 3")
    def run_all(step):
        called.append(step.scenario)
    recs, blob, shapes = kpool_records(1)
    (r,), _ = Served(p).run(recs, blob, shapes)
    assert r[0] == 2 and "requires num_reqs >= 3" in r[2] and called == []


def test_family_codes_and_params_come_from_hello():
    fams = [("kpool_tail", 99, 1, ["zz_first", "kpool"])]
    p = slotguard.Provider("t", arrays="memoryview")
    got = {}

    @p.family("kpool_tail")
    def kp(call):
        got.update(call.params)
        got["attr"] = call.kpool
    s = kpool_scenario()
    s.groups[0]["params"] = [5, 4]
    old = fh.CODE["kpool_tail"]
    fh.CODE["kpool_tail"] = 99
    try:
        blob = fh.Blob()
        serve_once(p, [fh.record_bytes(0, s, blob, [0])], blob, [[(5, 1)]], families=fams)
    finally:
        fh.CODE["kpool_tail"] = old
    assert got == {"zz_first": 5, "kpool": 4, "attr": 4}


def test_an_unimplemented_family_code_is_an_error_not_a_crash():
    p = slotguard.Provider("t", arrays="numpy")

    @p.family("kpool_tail")
    def kp(call):
        pass
    s = compressed_scenario()
    blob = fh.Blob()
    res = serve_once(p, [fh.record_bytes(0, s, blob, [0])], blob, [[(2, 1)]])
    assert res[0][0] == 1 and "does not implement" in res[0][2]


def test_one_mode_per_provider():
    p = slotguard.Provider("t")
    p.family("paged")(lambda c: None)
    with pytest.raises(ValueError):
        p.scenario(families=["kpool_tail"])
    with pytest.raises(ValueError):
        slotguard.Provider("t", arrays="cupy")


def test_module_help():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "slotguard.provider", "--help"], stdout=subprocess.PIPE,
                         universal_newlines=True, env=dict(os.environ, PYTHONPATH=os.path.dirname(
                             os.path.dirname(slotguard.__file__)))).stdout
    assert "@p.family" in out and "Skip" in out


def test_a_familys_inputs_ride_after_its_parameter_names():
    # HELLO lists a family's extra inputs after its parameters, as
    # "name:request" / "name:token" (docs/provider-protocol.md); a reader that
    # knows no inputs still reads the message, and a RUN group's param_count
    # counts the parameters alone.
    f = P.FamilyInfo("vllm_parallel_drafting", 40, 1, ["block_size", "max_model_len", "num_rejected:request",
                                                        "batch_indices:token"], P.FLAG_INPUTS)
    again = P.decode_hello(P.encode_hello("cpu", [f])).families[0]
    assert again == f
    assert again.param_names == ("block_size", "max_model_len")
    assert again.inputs == (("num_rejected", "request"), ("batch_indices", "token"))
    assert P.FamilyInfo("paged", 0, 1, ["block_size"]).inputs == ()
