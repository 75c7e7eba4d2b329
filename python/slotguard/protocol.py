"""The `--kernel-cmd` wire format (docs/provider-protocol.md), protocol version 2.

Standard library only. Every message is one frame: a u64 byte count, then that
many bytes; everything little-endian; a `string` is a u32 byte count and UTF-8
bytes; each message starts with a u32 type.

Decoding is built for throughput: the fixed part of a RUN record and of each of
its groups is parsed with one precompiled ``struct.Struct.unpack_from`` each,
and nothing is copied out of the blob (arrays are made later, as zero-copy
views, by ``slotguard.provider``).
"""

import os
import struct

PROTOCOL_VERSION = 2

HELLO = 1
RUN = 2
BYE = 3
WELCOME = 101
RESULTS = 102

STATUS_OK = 0
STATUS_ERROR = 1
STATUS_SKIP = 2
STATUS_NOT_RUN = 3     # not run: an earlier call broke the process (a dead CUDA context); slotguard sends it again

# RUN's flags.
RUN_SYNC_EACH_CALL = 1  # synchronize the device after each call, so that a fault is raised by its own call
# RESULTS' flags.
RESULTS_EXITING = 1     # the provider exits after this reply (its device context is lost)

PAD = -1

# HELLO's family flags.
FLAG_GATE = 1          # the family's gate reads another group's output (gate_slot_mapping)
FLAG_RAGGED_ROWS = 2   # the family's rows are ragged (CSR): each group carries its row widths
FLAG_STATE_INDEX = 4   # a state index per request: an output holds num_reqs elements
FLAG_BLOCK_OP = 8      # block operations per request: an output holds num_reqs * ops elements
FLAG_TABLE_PRODUCER = 16  # a gathered block table: an output holds num_reqs rows of the table's width
FLAG_INPUTS = 32       # the family has extra inputs: its last parameter names are "name:request" / "name:token"
# A RUN group's flags.
GROUP_GATE_INLINE = 1  # the gate's mapping is at gate_offset
GROUP_ROW_WIDTHS = 2   # the rows' widths are at row_widths
GROUP_INPUTS = 4       # the family's inputs follow the parameters' values: i64[num_reqs or num_tokens] each, in order

# Precompiled formats (all little-endian, packed: '<' has no alignment padding).
U32 = struct.Struct("<I")
U64 = struct.Struct("<Q")
TYPE_VERSION = struct.Struct("<II")          # HELLO / WELCOME: type, protocol_version
U32_2 = struct.Struct("<II")                 # HELLO family: code, output_count
RUN_HEAD = struct.Struct("<IIIIQ")           # type, sequence, record_count, flags, blob_bytes
# A RUN record: scenario, group_count, num_reqs, rows_by_idx_mapping,
# num_actual_tokens, num_real_tokens, num_tokens, then 7 u64 offsets:
# query_start_loc, positions, seq_lens, seq_lens_i32, idx_mapping,
# slot_mapping_in, request_of_token.
RECORD = struct.Struct("<IIiIqqq7Q")
# A group of a record: group, family, table_rows, table_width, table_row_stride,
# table, table_elements, param_count, flags, params (offset of i64[param_count]),
# gate_group, output_length (elements per output: num_tokens for a slot per
# token, num_reqs (x operations) for a per-request family), gate_offset,
# row_widths (offset of i32[table_rows]).
GROUP = struct.Struct("<IIiiqQQIIQiIQQ")
RESULTS_HEAD = struct.Struct("<IIII")        # type, sequence, record_count, flags
RESULT_ENTRY = struct.Struct("<III")         # status, group, message_bytes

assert RECORD.size == 96 and GROUP.size == 80


class ProtocolError(Exception):
    """A malformed or unexpected message."""


def pad8(n):
    """Bytes of zero padding that bring offset n to a multiple of 8."""
    return -n & 7


# ---------------------------------------------------------------------------
# Progress: the page slotguard shares on SLOTGUARD_PROGRESS_FD


class Progress(object):
    """Which record's call is running, in the page slotguard shares (two
    little-endian i64: the record in flight or -1, the last one started). A
    provider that dies names the record that killed it, so slotguard sends
    the rest again without bisecting. A no-op without the page."""

    __slots__ = ("page",)
    WORDS = struct.Struct("<qq")
    MEMFD = "/memfd:slotguard-running-group"

    def __init__(self, fd=None):
        self.page = None
        if fd is None:
            value = os.environ.get("SLOTGUARD_PROGRESS_FD")
            if not value:
                return
            fd = int(value)
        try:
            # Only slotguard's page: an fd inherited from elsewhere is left alone.
            if not os.readlink("/proc/self/fd/%d" % fd).startswith(self.MEMFD):
                return
            import mmap
            self.page = mmap.mmap(fd, self.WORDS.size)
            os.close(fd)   # the mapping stays; the provider's own children do not inherit the fd
        except (OSError, ValueError):
            self.page = None

    def start(self, record):
        if self.page is not None:
            self.WORDS.pack_into(self.page, 0, record, record)

    def done(self):
        if self.page is not None:
            struct.pack_into("<q", self.page, 0, -1)


# ---------------------------------------------------------------------------
# Framing


def read_exact(fd, n):
    """n bytes from fd into a new bytearray, or None on end of file before the
    first byte. A stream that ends mid-way raises ProtocolError."""
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = os.readv(fd, [view[got:]])
        if k == 0:
            if got == 0:
                return None
            raise ProtocolError("end of file inside a frame (%d of %d bytes)" % (got, n))
        got += k
    return buf


def read_frame(fd):
    """The next message (a bytearray), or None when fd is at end of file."""
    head = read_exact(fd, 8)
    if head is None:
        return None
    (n,) = U64.unpack(head)
    if n == 0:
        return bytearray()
    body = read_exact(fd, n)
    if body is None:
        raise ProtocolError("end of file after a frame header of %d bytes" % n)
    return body


def write_frame(fd, *parts):
    """One frame made of the byte-like parts (written with writev, no join)."""
    views = [memoryview(p).cast("B") for p in parts]
    views = [v for v in views if v.nbytes]
    total = sum(v.nbytes for v in views)
    views.insert(0, memoryview(U64.pack(total)))
    while views:
        k = os.writev(fd, views[:1024])
        while views and k >= views[0].nbytes:
            k -= views[0].nbytes
            views.pop(0)
        if k:
            views[0] = views[0][k:]


# ---------------------------------------------------------------------------
# Strings


def put_string(out, s):
    b = s.encode("utf-8")
    out += U32.pack(len(b))
    out += b


def get_string(buf, at):
    (n,) = U32.unpack_from(buf, at)
    at += 4
    if at + n > len(buf):
        raise ProtocolError("string of %d bytes past the end of the message" % n)
    return bytes(buf[at:at + n]).decode("utf-8"), at + n


# ---------------------------------------------------------------------------
# HELLO / WELCOME


class FamilyInfo(object):
    """A family as HELLO describes it: its code, its outputs' names ("" for
    the group's own, then e.g. "tail"), its parameters' names and flags."""

    __slots__ = ("name", "code", "output_names", "params", "flags")

    def __init__(self, name, code, output_names, params, flags=0):
        self.name = name
        self.code = code
        if isinstance(output_names, int):   # a count: "", "tail", ...
            output_names = [""] + ["tail"] * (output_names - 1) if output_names > 0 else []
        self.output_names = tuple(output_names)
        self.params = tuple(params)
        self.flags = flags

    @property
    def outputs(self):
        return len(self.output_names)

    @property
    def param_names(self):
        """The parameters' names (HELLO's names without the inputs)."""
        return tuple(p for p in self.params if ":" not in p)

    @property
    def inputs(self):
        """The family's extra inputs, in order: (name, "request" or "token")."""
        return tuple(tuple(p.split(":", 1)) for p in self.params if ":" in p)

    def __repr__(self):
        return "FamilyInfo(%r, code=%d, outputs=%r, params=%r, flags=%d)" % (
            self.name, self.code, self.output_names, self.params, self.flags)

    def __eq__(self, other):
        return isinstance(other, FamilyInfo) and (self.name, self.code, self.output_names, self.params,
                                                  self.flags) == (other.name, other.code, other.output_names,
                                                                  other.params, other.flags)


class Hello(object):
    __slots__ = ("version", "device", "families")

    def __init__(self, version, device, families):
        self.version = version
        self.device = device
        self.families = list(families)

    def by_code(self):
        return {f.code: f for f in self.families}

    def by_name(self):
        return {f.name: f for f in self.families}


class Welcome(object):
    __slots__ = ("version", "name", "mode", "families")

    def __init__(self, name, mode, families, version=PROTOCOL_VERSION):
        self.version = version
        self.name = name
        self.mode = mode
        self.families = list(families)


def encode_hello(device, families, version=PROTOCOL_VERSION):
    """HELLO (slotguard's side; for tests and fake hosts)."""
    out = bytearray(TYPE_VERSION.pack(HELLO, version))
    put_string(out, device)
    out += U32.pack(len(families))
    for f in families:
        put_string(out, f.name)
        out += U32_2.pack(f.code, len(f.output_names))
        for o in f.output_names:
            put_string(out, o)
        out += U32.pack(len(f.params))
        for p in f.params:
            put_string(out, p)
        out += U32.pack(f.flags)
    return out


def decode_hello(buf):
    if len(buf) < 8:
        raise ProtocolError("HELLO of %d bytes" % len(buf))
    kind, version = TYPE_VERSION.unpack_from(buf, 0)
    if kind != HELLO:
        raise ProtocolError("expected HELLO (type 1) first, got type %d" % kind)
    if version != PROTOCOL_VERSION:
        raise ProtocolError("HELLO of protocol version %d; this package speaks %d" % (version, PROTOCOL_VERSION))
    device, at = get_string(buf, 8)
    (count,) = U32.unpack_from(buf, at)
    at += 4
    families = []
    for _ in range(count):
        name, at = get_string(buf, at)
        code, output_count = U32_2.unpack_from(buf, at)
        at += U32_2.size
        outputs = []
        for _ in range(output_count):
            o, at = get_string(buf, at)
            outputs.append(o)
        (param_count,) = U32.unpack_from(buf, at)
        at += 4
        params = []
        for _ in range(param_count):
            p, at = get_string(buf, at)
            params.append(p)
        (flags,) = U32.unpack_from(buf, at)
        at += 4
        families.append(FamilyInfo(name, code, outputs, params, flags))
    return Hello(version, device, families)


def encode_welcome(name, mode, families, version=PROTOCOL_VERSION):
    out = bytearray(TYPE_VERSION.pack(WELCOME, version))
    put_string(out, name)
    out += U32.pack(mode)
    out += U32.pack(len(families))
    for f in families:
        put_string(out, f)
    return out


def decode_welcome(buf):
    kind, version = TYPE_VERSION.unpack_from(buf, 0)
    if kind != WELCOME:
        raise ProtocolError("expected WELCOME (type 101), got type %d" % kind)
    name, at = get_string(buf, 8)
    (mode,) = U32.unpack_from(buf, at)
    (count,) = U32.unpack_from(buf, at + 4)
    at += 8
    families = []
    for _ in range(count):
        f, at = get_string(buf, at)
        families.append(f)
    return Welcome(name, mode, families, version)


def message_type(buf):
    if len(buf) < 4:
        raise ProtocolError("message of %d bytes has no type" % len(buf))
    return U32.unpack_from(buf, 0)[0]


# ---------------------------------------------------------------------------
# RUN


class RunGroup(object):
    """One group of a RUN record, as on the wire (offsets are blob offsets)."""

    __slots__ = ("group", "family", "table_rows", "table_width", "table_row_stride", "table",
                 "table_elements", "param_count", "flags", "params_offset", "common_group", "common_offset",
                 "row_widths", "output_length")

    def __init__(self, group, family, table_rows, table_width, table_row_stride, table, table_elements,
                 param_count=0, params_offset=0, common_group=-1, common_inline=0, common_offset=0,
                 row_widths=None, output_length=0):
        self.group = group
        self.family = family
        self.table_rows = table_rows
        self.table_width = table_width
        self.table_row_stride = table_row_stride
        self.table = table
        self.table_elements = table_elements
        self.param_count = param_count
        self.params_offset = params_offset
        self.flags = (GROUP_GATE_INLINE if common_inline else 0) | (GROUP_ROW_WIDTHS if row_widths is not None else 0)
        self.common_group = common_group
        self.common_offset = common_offset
        self.row_widths = row_widths or 0
        self.output_length = output_length

    @property
    def common_inline(self):
        return bool(self.flags & GROUP_GATE_INLINE)

    @classmethod
    def unpack_from(cls, buf, at):
        v = GROUP.unpack_from(buf, at)
        g = cls.__new__(cls)
        (g.group, g.family, g.table_rows, g.table_width, g.table_row_stride, g.table, g.table_elements,
         g.param_count, g.flags, g.params_offset, g.common_group, g.output_length, g.common_offset,
         g.row_widths) = v
        return g

    def pack(self):
        return GROUP.pack(self.group, self.family, self.table_rows, self.table_width, self.table_row_stride,
                          self.table, self.table_elements, self.param_count, self.flags, self.params_offset,
                          self.common_group, self.output_length, self.common_offset, self.row_widths)


class RunRecord(object):
    """One RUN record: the batch (offsets into the blob) and its groups."""

    __slots__ = ("scenario", "num_reqs", "rows_by_idx_mapping", "num_actual_tokens", "num_real_tokens",
                 "num_tokens", "query_start_loc", "positions", "seq_lens", "seq_lens_i32", "idx_mapping",
                 "slot_mapping_in", "request_of_token", "groups")

    def __init__(self, scenario, num_reqs, rows_by_idx_mapping, num_actual_tokens, num_real_tokens, num_tokens,
                 query_start_loc, positions, seq_lens, seq_lens_i32, idx_mapping, slot_mapping_in,
                 request_of_token, groups):
        self.scenario = scenario
        self.num_reqs = num_reqs
        self.rows_by_idx_mapping = rows_by_idx_mapping
        self.num_actual_tokens = num_actual_tokens
        self.num_real_tokens = num_real_tokens
        self.num_tokens = num_tokens
        self.query_start_loc = query_start_loc
        self.positions = positions
        self.seq_lens = seq_lens
        self.seq_lens_i32 = seq_lens_i32
        self.idx_mapping = idx_mapping
        self.slot_mapping_in = slot_mapping_in
        self.request_of_token = request_of_token
        self.groups = list(groups)

    def pack(self):
        out = bytearray(RECORD.pack(self.scenario, len(self.groups), self.num_reqs, self.rows_by_idx_mapping,
                                    self.num_actual_tokens, self.num_real_tokens, self.num_tokens,
                                    self.query_start_loc, self.positions, self.seq_lens, self.seq_lens_i32,
                                    self.idx_mapping, self.slot_mapping_in, self.request_of_token))
        for g in self.groups:
            out += g.pack()
        return out


class Run(object):
    """A decoded RUN: its sequence number, flags, records and the blob (a memoryview into the message)."""

    __slots__ = ("sequence", "flags", "records", "blob", "blob_start")

    def __init__(self, records, blob, blob_start, sequence=0, flags=0):
        self.sequence = sequence
        self.flags = flags
        self.records = records
        self.blob = blob
        self.blob_start = blob_start


def decode_run(buf):
    """RUN -> Run. One unpack per record header and per group; the blob is a
    view of buf (no copy)."""
    if len(buf) < RUN_HEAD.size:
        raise ProtocolError("RUN of %d bytes" % len(buf))
    kind, sequence, count, flags, blob_bytes = RUN_HEAD.unpack_from(buf, 0)
    if kind != RUN:
        raise ProtocolError("expected RUN (type 2), got type %d" % kind)
    at = RUN_HEAD.size
    records = []
    rec_unpack = RECORD.unpack_from
    grp_unpack = GROUP.unpack_from
    new_group = RunGroup.__new__
    new_record = RunRecord.__new__
    try:
        for _ in range(count):
            v = rec_unpack(buf, at)
            at += 96
            rec = new_record(RunRecord)
            (rec.scenario, group_count, rec.num_reqs, rec.rows_by_idx_mapping, rec.num_actual_tokens,
             rec.num_real_tokens, rec.num_tokens, rec.query_start_loc, rec.positions, rec.seq_lens,
             rec.seq_lens_i32, rec.idx_mapping, rec.slot_mapping_in, rec.request_of_token) = v
            groups = []
            for _ in range(group_count):
                g = new_group(RunGroup)
                (g.group, g.family, g.table_rows, g.table_width, g.table_row_stride, g.table, g.table_elements,
                 g.param_count, g.flags, g.params_offset, g.common_group, g.output_length, g.common_offset,
                 g.row_widths) = grp_unpack(buf, at)
                at += 80
                groups.append(g)
            rec.groups = groups
            records.append(rec)
    except struct.error:
        raise ProtocolError("RUN records run past the end of the message (%d bytes)" % len(buf))
    at += pad8(at)
    if at + blob_bytes > len(buf):
        raise ProtocolError("RUN blob of %d bytes at %d past the end of the message (%d bytes)"
                            % (blob_bytes, at, len(buf)))
    return Run(records, memoryview(buf)[at:at + blob_bytes], at, sequence, flags)


def encode_run(records, blob, sequence=1, flags=0):
    """RUN from RunRecords and the blob bytes (slotguard's side; for tests)."""
    out = bytearray(RUN_HEAD.pack(RUN, sequence, len(records), flags, len(blob)))
    for r in records:
        out += r.pack()
    out += bytes(pad8(len(out)))
    out += blob
    return out


class BlobBuilder(object):
    """Lays arrays out at 8-aligned offsets (slotguard's side; for tests)."""

    def __init__(self):
        self.data = bytearray()

    def add(self, typecode, values):
        import array
        off = len(self.data)
        self.data += array.array(typecode, values).tobytes()
        self.data += bytes(pad8(len(self.data)))
        return off


# ---------------------------------------------------------------------------
# RESULTS


def encode_results_head(entries, sequence, flags=0):
    """The RESULTS bytes before the outputs: header (echoing the RUN's
    sequence number, with `flags`), entries, messages and the padding.
    entries: (status, group, message) tuples."""
    out = bytearray(RESULTS_HEAD.pack(RESULTS, sequence, len(entries), flags))
    texts = []
    for status, group, message in entries:
        m = message.encode("utf-8") if message else b""
        texts.append(m)
        out += RESULT_ENTRY.pack(status, group, len(m))
    for m in texts:
        out += m
    out += bytes(pad8(len(out)))
    return out


def encode_results(entries, outputs=b"", sequence=1):
    """RESULTS: entries (status, group, message) and the outputs' bytes."""
    return encode_results_head(entries, sequence) + bytes(outputs)


def decode_results(buf, output_counts, sequence=None):
    """RESULTS -> [(status, group, message, [outputs as bytes])], given for
    each record of the RUN the list of its groups' (num_tokens, outputs).
    Raises ProtocolError exactly where slotguard would refuse the message
    (an answer to another RUN than `sequence`, when given, too)."""
    kind, answered, count, _ = RESULTS_HEAD.unpack_from(buf, 0)
    if kind != RESULTS:
        raise ProtocolError("expected RESULTS (type 102), got type %d" % kind)
    if sequence is not None and answered != sequence:
        raise ProtocolError("the answer to RUN %d; expected RUN %d's" % (answered, sequence))
    if count != len(output_counts):
        raise ProtocolError("RESULTS has %d records; the RUN had %d" % (count, len(output_counts)))
    at = RESULTS_HEAD.size
    heads = []
    for _ in range(count):
        heads.append(RESULT_ENTRY.unpack_from(buf, at))
        at += RESULT_ENTRY.size
    messages = []
    for _, _, n in heads:
        messages.append(bytes(buf[at:at + n]).decode("utf-8"))
        at += n
    at += pad8(at)
    out = []
    for (status, group, _), message, shape in zip(heads, messages, output_counts):
        if status not in (STATUS_OK, STATUS_ERROR, STATUS_SKIP, STATUS_NOT_RUN):
            raise ProtocolError("unknown status %d" % status)
        arrays = []
        if status == STATUS_OK:
            for tokens, outputs in shape:
                for _ in range(outputs):
                    arrays.append(bytes(buf[at:at + 8 * tokens]))
                    at += 8 * tokens
        out.append((status, group, message, arrays))
    if at != len(buf):
        raise ProtocolError("RESULTS of %d bytes; the RUN's outputs make it %d" % (len(buf), at))
    return out
