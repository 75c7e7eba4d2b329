"""A stand-in for slotguard's side of the --kernel-cmd protocol, written for the
tests independently of slotguard.protocol (its own struct formats, field by
field), with Python references for paged and kpool_tail transcribed from
src/reference/. It loads scenario files (the subset of the format the curated
scenarios use), lays tables out padded (poison 2^31-1 past each row), and
talks to a provider process exactly as docs/provider-protocol.md says."""

import fcntl
import json
import os
import struct
import subprocess
import sys

POISON = 2 ** 31 - 1
PAD = -1

# Family codes deliberately not 0..4: a provider must take them from HELLO.
FAMILIES = [
    ("paged", 17, 1, ["block_size", "kernel_block_size", "dcp_world", "dcp_rank", "dcp_interleave", "enabled"]),
    ("kpool_tail", 23, 1, ["kpool"]),
    ("qsa_ring", 5, 1, ["ring"]),
    ("qsa_compressed", 9, 1, ["block_size", "compress_ratio"]),
    ("compressor_ring", 2, 2, ["capacity", "ring_block_size"]),
]
CODE = {name: code for name, code, _, _ in FAMILIES}
OUTPUTS = {name: outs for name, _, outs, _ in FAMILIES}
PARAMS = {name: params for name, _, _, params in FAMILIES}


def s_(text):
    b = text.encode()
    return struct.pack("<I", len(b)) + b


def hello(device="cpu", families=FAMILIES, version=2):
    out = struct.pack("<I", 1) + struct.pack("<I", version) + s_(device) + struct.pack("<I", len(families))
    for name, code, outs, params in families:
        out += s_(name) + struct.pack("<I", code) + struct.pack("<I", outs)
        out += s_("") + (s_("tail") if outs > 1 else b"")
        out += struct.pack("<I", len(params))
        for p in params:
            out += s_(p)
        out += struct.pack("<I", 1 if name == "qsa_compressed" else 0)  # flags: the gate
    return out


def parse_welcome(buf):
    def string(at):
        (n,) = struct.unpack_from("<I", buf, at)
        return buf[at + 4:at + 4 + n].decode(), at + 4 + n
    kind, version = struct.unpack_from("<II", buf, 0)
    name, at = string(8)
    mode, count = struct.unpack_from("<II", buf, at)
    at += 8
    fams = []
    for _ in range(count):
        f, at = string(at)
        fams.append(f)
    assert at == len(buf), "WELCOME has %d trailing bytes" % (len(buf) - at)
    return kind, version, name, mode, fams


# ----------------------------------------------------------------------------- scenarios


class Scenario(object):
    pass


def load(path_or_dict):
    d = path_or_dict
    if not isinstance(d, dict):
        with open(d) as f:
            d = json.load(f)
    s = Scenario()
    s.name = d["name"]
    b = d["batch"]
    qsl = list(b["query_start_loc"])
    R = len(qsl) - 1
    real = qsl[-1]
    n_act = b.get("num_actual_tokens", real)
    if "positions" in b:
        T = len(b["positions"])
    else:
        T = b.get("num_tokens", max(real, n_act))
    if "positions" in b:
        pos = list(b["positions"])
        if "seq_lens" in b:
            seq = list(b["seq_lens"])
        else:
            seq = [pos[qsl[r + 1] - 1] + 1 if qsl[r + 1] > qsl[r] else 0 for r in range(R)]
    else:
        seq = list(b["seq_lens"]) if "seq_lens" in b else [qsl[r + 1] - qsl[r] for r in range(R)]
        pos = [0] * T
        for r in range(R):
            q = qsl[r + 1] - qsl[r]
            for i in range(q):
                pos[qsl[r] + i] = seq[r] - q + i
    s.qsl, s.positions, s.seq_lens = qsl, pos, seq
    s.R, s.T, s.n_act, s.real = R, T, n_act, real
    s.idx = list(b.get("idx_mapping", range(R)))
    s.slot_in = list(b.get("slot_mapping_in", [PAD] * T))
    s.persistent = b.get("table_rows", "request") == "idx_mapping"
    s.groups = []
    for g in d["groups"]:
        fam = g["kernel"]
        grp = {"name": g["name"], "family": fam, "variant": g.get("variant", "fixed"), "table": g["block_table"]}
        if fam == "paged":
            dcp = g.get("dcp", {})
            grp["params"] = [g["block_size"], g.get("kernel_block_size", g["block_size"]), dcp.get("world", 1),
                             dcp.get("rank", 0), dcp.get("interleave", 1), 1 if g.get("enabled", True) else 0]
        elif fam == "kpool_tail":
            grp["params"] = [g["kpool"]]
        elif fam == "qsa_ring":
            grp["params"] = [g["ring"]]
        elif fam == "qsa_compressed":
            grp["params"] = [g["block_size"], g["compress_ratio"]]
            grp["common"] = g.get("common")
        elif fam == "compressor_ring":
            grp["params"] = [g["capacity"], g["ring_block_size"]]
        else:
            grp["params"] = None  # a family this host does not know (an engine family): never sent
        s.groups.append(grp)
    s.expect = d.get("expect", {})
    return s


def rows_of(table):
    return len(table), (len(table[0]) if table else 0)


def reference(s, g):
    """Output 0 of group g (paged or kpool_tail), from src/reference/."""
    out = [PAD] * s.T
    table = g["table"]

    def row_of(r):
        return s.idx[r] if s.persistent else r
    if g["family"] == "paged":
        bs, kbs, world, rank, inter, enabled = g["params"]
        if not enabled:
            return out
        width = rows_of(table)[1]
        for r in range(s.R):
            if s.idx[r] == -1:
                continue
            for t in range(s.qsl[r], s.qsl[r + 1]):
                pos = s.positions[t]
                local = pos
                if world > 1:
                    vbs = bs * world
                    off = pos % vbs
                    if (off // inter) % world != rank:
                        continue
                    local = pos // vbs * bs + (off // (inter * world)) * inter + off % inter
                col = local // kbs
                if col >= width:
                    continue
                out[t] = table[row_of(r)][col] * kbs + local % kbs
        return out
    if g["family"] == "kpool_tail":
        (kpool,) = g["params"]
        out = list(s.slot_in)
        last = 0
        for t in range(s.n_act):
            out[t] = PAD
            if s.R == 0:
                continue
            while last + 1 <= s.R and s.qsl[last + 1] <= t:
                last += 1
            r = min(last, s.R - 1)
            row = row_of(r)
            if row < 0:
                continue
            b = table[row][0]
            if b > 0:
                out[t] = b * kpool + s.positions[t] % kpool
        return out
    raise NotImplementedError(g["family"])


# ----------------------------------------------------------------------------- RUN


class Blob(object):
    def __init__(self):
        self.data = bytearray()

    def put(self, fmt, values):
        off = len(self.data)
        self.data += struct.pack("<%d%s" % (len(values), fmt), *values)
        self.data += b"\0" * (-len(self.data) & 7)
        return off


def layout(table, R, extra=2):
    """Padded: each row followed by `extra` poison columns; room for R rows."""
    rows, width = rows_of(table)
    stride = width + extra
    n = max(rows, R, 1) * stride
    flat = [POISON] * n
    for r, row in enumerate(table):
        flat[r * stride:r * stride + width] = row
    return flat, stride


def record_bytes(ordinal, s, blob, group_indices, common_map=None, inline=None):
    """One record (head + groups) for the groups with these indices."""
    qsl = blob.put("i", s.qsl)
    pos = blob.put("q", s.positions)
    seq = blob.put("q", s.seq_lens)
    seq32 = blob.put("i", [min(x, 2 ** 31 - 1) for x in s.seq_lens])
    idx = blob.put("i", s.idx)
    sin = blob.put("q", s.slot_in)
    rot = [-1] * s.T
    for r in range(s.R):
        for t in range(s.qsl[r], s.qsl[r + 1]):
            rot[t] = r
    rot_off = blob.put("i", rot)
    out = struct.pack("<I", ordinal) + struct.pack("<I", len(group_indices)) + struct.pack("<i", s.R)
    out += struct.pack("<I", 1 if s.persistent else 0)
    out += struct.pack("<q", s.n_act) + struct.pack("<q", s.real) + struct.pack("<q", s.T)
    out += struct.pack("<7Q", qsl, pos, seq, seq32, idx, sin, rot_off)
    for gi in group_indices:
        g = s.groups[gi]
        flat, stride = layout(g["table"], s.R)
        t_off = blob.put("i", flat)
        rows, width = rows_of(g["table"])
        p_off = blob.put("q", g["params"])
        cg = (common_map or {}).get(gi, -1)
        ci, co = 0, 0
        if inline and gi in inline:
            ci, co = 1, blob.put("q", inline[gi])
        out += struct.pack("<I", gi) + struct.pack("<I", CODE[g["family"]]) + struct.pack("<i", rows)
        out += struct.pack("<i", width) + struct.pack("<q", stride) + struct.pack("<Q", t_off)
        out += struct.pack("<Q", len(flat)) + struct.pack("<I", len(g["params"])) + struct.pack("<I", ci)
        out += struct.pack("<Q", p_off) + struct.pack("<i", cg) + struct.pack("<I", s.T)  # output_length
        out += struct.pack("<Q", co) + struct.pack("<Q", 0)
    return out


def run_message(records, blob, sequence=1, flags=0):
    """flags: 1, synchronize after each call."""
    head = struct.pack("<I", 2) + struct.pack("<I", sequence) + struct.pack("<I", len(records))
    head += struct.pack("<I", flags) + struct.pack("<Q", len(blob.data))
    body = head + b"".join(records)
    body += b"\0" * (-len(body) & 7)
    return body + bytes(blob.data)


def results_flags(buf):
    """RESULTS' flags (1: the provider exits after this reply)."""
    return struct.unpack_from("<I", buf, 12)[0]


def parse_results(buf, shapes, sequence=1):
    """shapes: per record, a list of (T, outputs) per group."""
    kind, answered, count, _ = struct.unpack_from("<IIII", buf, 0)
    assert kind == 102, kind
    assert answered == sequence, "the answer to RUN %d; expected RUN %d's" % (answered, sequence)
    assert count == len(shapes), (count, len(shapes))
    at = 16
    heads = []
    for _ in range(count):
        heads.append(struct.unpack_from("<III", buf, at))
        at += 12
    msgs = []
    for _, _, n in heads:
        msgs.append(buf[at:at + n].decode())
        at += n
    at += -at & 7
    res = []
    for (status, group, _), msg, shape in zip(heads, msgs, shapes):
        outs = []
        if status == 0:
            for T, k in shape:
                for _ in range(k):
                    outs.append(list(struct.unpack_from("<%dq" % T, buf, at)))
                    at += 8 * T
        res.append((status, group, msg, outs))
    assert at == len(buf), "RESULTS: %d bytes, expected %d" % (len(buf), at)
    return res


# ----------------------------------------------------------------------------- the process


def _read_exact(fd, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


class ProviderProcess(object):
    """A provider started the way slotguard starts one: /bin/sh -c 'exec CMD',
    requests on fd 3, replies on fd 4, stdin /dev/null, stdout to stderr."""

    def __init__(self, command, device="cpu", env=None, cwd=None):
        req_r, self.req_w = os.pipe()
        self.rep_r, rep_w = os.pipe()
        # Move the child's ends above 9 so that the redirections to 3 and 4 cannot clobber them.
        for name in ("req_r", "rep_w"):
            fd = locals()[name]
            high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
            os.close(fd)
            if name == "req_r":
                req_r = high
            else:
                rep_w = high
        e = dict(os.environ if env is None else env)
        e.update(SLOTGUARD_PROVIDER_PROTOCOL="2", SLOTGUARD_REQUEST_FD="3", SLOTGUARD_REPLY_FD="4",
                 SLOTGUARD_DEVICE=device)
        def wire():
            os.dup2(req_r, 3)
            os.dup2(rep_w, 4)
        self.proc = subprocess.Popen(["/bin/sh", "-c", "exec " + command], stdin=subprocess.DEVNULL,
                                     stdout=sys.stderr.fileno(), stderr=sys.stderr.fileno(),
                                     pass_fds=(3, 4, req_r, rep_w), preexec_fn=wire, env=e, cwd=cwd)
        os.close(req_r)
        os.close(rep_w)

    def send(self, payload):
        data = struct.pack("<Q", len(payload)) + bytes(payload)
        view = memoryview(data)
        while view:
            n = os.write(self.req_w, view)
            view = view[n:]

    def recv(self):
        head = _read_exact(self.rep_r, 8)
        if head is None:
            return None
        (n,) = struct.unpack("<Q", head)
        return _read_exact(self.rep_r, n) if n else b""

    def handshake(self, device="cpu", families=FAMILIES):
        self.send(hello(device, families))
        buf = self.recv()
        assert buf is not None, "provider exited during the handshake (rc %s)" % self.proc.wait()
        return parse_welcome(buf)

    def close(self, bye=True):
        try:
            if bye:
                self.send(struct.pack("<I", 3))
        except OSError:
            pass
        os.close(self.req_w)
        rc = self.proc.wait(timeout=30)
        os.close(self.rep_r)
        return rc


def check_files(proc, paths, mode, families, per_message=16):
    """Runs every group of these families of the scenario files through the
    provider (forced variants stay with 'slotguard', as it does) and compares
    with the reference and the goldens. Returns (groups checked, mismatches)."""
    scenarios = [(p, load(p)) for p in paths]
    checked, bad = 0, []
    for i in range(0, len(scenarios), per_message):
        chunk = scenarios[i:i + per_message]
        blob = Blob()
        records, shapes, meta = [], [], []
        for ordinal, (path, s) in enumerate(chunk):
            mine = [gi for gi, g in enumerate(s.groups) if g["family"] in families and g["variant"] == "fixed"]
            if not mine:
                continue
            if mode == 1:
                records.append(record_bytes(ordinal, s, blob, mine))
                shapes.append([(s.T, OUTPUTS[s.groups[gi]["family"]]) for gi in mine])
                meta.append((path, s, mine))
            else:
                for gi in mine:
                    records.append(record_bytes(ordinal, s, blob, [gi]))
                    shapes.append([(s.T, OUTPUTS[s.groups[gi]["family"]])])
                    meta.append((path, s, [gi]))
        if not records:
            continue
        proc.send(run_message(records, blob))
        res = parse_results(proc.recv(), shapes)
        for (path, s, gis), (status, group, msg, outs) in zip(meta, res):
            if status != 0:
                bad.append("%s: status %d group %d: %s" % (path, status, group, msg))
                continue
            for gi, out in zip(gis, outs):
                checked += 1
                g = s.groups[gi]
                ref = reference(s, g)
                golden = s.expect.get("slot_mapping", {}).get(g["name"])
                if out != ref:
                    bad.append("%s group %s: provider %s != reference %s" % (path, g["name"], out[:20], ref[:20]))
                if golden is not None and golden != ref:
                    bad.append("%s group %s: fake host's reference disagrees with the golden" % (path, g["name"]))
    return checked, bad
