"""Write a slotguard kernel provider in Python: `slotguard check --kernel-cmd "python3 my_provider.py"`.

slotguard starts the command once per concurrent runner, keeps it running and
sends it many scenarios per message over the binary protocol of
docs/provider-protocol.md. This module speaks that protocol; you write the
launch of your kernel:

    import slotguard

    p = slotguard.Provider("my-kpool")        # arrays="auto"|"numpy"|"torch"|"memoryview"

    @p.family("kpool_tail")                   # mode 0: one call per group
    def run(call):
        if call.num_reqs == 0:
            raise slotguard.Skip("the launcher routes num_reqs == 0 elsewhere")
        my_launcher(call.slot_mapping, call.positions, call.query_start_loc,
                    call.block_table, call.block_table_row_stride, call.kpool, ...)

    if __name__ == "__main__":
        p.serve()

    # or, mode 1, one call per scenario with every group of the families:
    # @p.scenario(families=["paged"])
    # def run_all(step): ... step.groups is the list of calls, in run order

A call has the plugin ABI's fields (include/slotguard/plugin.h):
query_start_loc, positions, seq_lens, seq_lens_i32, idx_mapping,
slot_mapping_in, request_of_token (arrays); block_table (flat, entry
(row, c) at row * block_table_row_stride + c), block_table_2d (a
[block_table_rows, block_table_width] strided view), block_table_row_stride,
block_table_width, block_table_rows, rows_by_idx_mapping, num_reqs,
num_actual_tokens, num_real_tokens, num_tokens; params (a dict by the names
slotguard's HELLO gives, also attributes: call.kpool, call.block_size, ...);
common_slot_mapping (a family with a gate: the output the gate reads, the
linked group's output 0 or the absent rule's mapping; None otherwise);
block_table_row_widths (a family of ragged, CSR rows: each row's own width;
None otherwise);
family, group (its index in the scenario), scenario (its ordinal in the
message), device ("cpu" or "cuda"), arrays (what the arrays are: "numpy",
"memoryview", "torch" or "torch-cuda"); and the outputs slot_mapping and
tail_slot_mapping (the second output, None for a family of one), zeroed
and writable; outputs (the list of them) and output_names ("" for the
group's own, then the family's names: "tail", ...).

Write the outputs in place, or return an array (or a tuple, one per
output), which is copied into them. The families and their parameters are
what the slotguard binary knows (`slotguard list --json`), described ones
(--family-file) included. `raise slotguard.Skip("why")` reports the scenario as
skipped (status 2); any other exception is an error (status 1: a no_fault
finding naming the group, with a one-line message naming the exception; the
traceback goes to stderr, which slotguard shows).

Arrays: with SLOTGUARD_DEVICE=cuda (slotguard --backend gpu) and torch
importable, torch CUDA tensors: each RUN's blob goes to the device in one
copy and every array is a typed view of it, all outputs of a message live in
one CUDA tensor and come back in one copy (one synchronization per message).
On cpu, numpy arrays (zero-copy np.frombuffer views; inputs read-only) when
numpy is importable, else memoryview.cast views. arrays="torch" gives torch
CPU tensors on cpu. Inputs are int32/int64 as in the ABI; outputs int64.

`python3 -m slotguard.provider --help` prints this text.
"""

import os
import struct
import sys
import traceback

from . import protocol as P

__all__ = ["Provider", "Skip", "Call", "Step", "device"]

_LITTLE = sys.byteorder == "little"


class Skip(Exception):
    """Raise from a kernel function: this provider does not take the scenario
    (status 2, reported as skipped with the message as the reason)."""


def device():
    """The device slotguard asked for: "cpu" or "cuda" (SLOTGUARD_DEVICE)."""
    return os.environ.get("SLOTGUARD_DEVICE", "cpu")


# ---------------------------------------------------------------------------
# Array adapters: typed views of one message's blob, and its outputs.


class _NumpyArrays(object):
    kind = "numpy"

    def __init__(self, np):
        self.np = np
        self.i32 = np.dtype("<i4")
        self.i64 = np.dtype("<i8")
        self.empty32 = np.empty(0, self.i32)
        self.empty64 = np.empty(0, self.i64)
        self.empty32.flags.writeable = False
        self.empty64.flags.writeable = False

    def begin(self, payload, run):
        self.blob = run.blob.toreadonly()   # inputs are read-only views

    def view32(self, off, n):
        if n <= 0:
            return self.empty32
        return self.np.frombuffer(self.blob, self.i32, n, off)

    def view64(self, off, n):
        if n <= 0:
            return self.empty64
        return self.np.frombuffer(self.blob, self.i64, n, off)

    def table2d(self, flat, rows, width, stride):
        return self.np.lib.stride_tricks.as_strided(flat, (rows, width), (stride * 4, 4), writeable=False)

    def alloc_outputs(self, total):
        self.out_bytes = bytearray(8 * total)
        self.out = self.np.frombuffer(self.out_bytes, self.i64)
        return self.out

    def out_view(self, start, n):
        return self.out[start:start + n]

    def store(self, dst, value):
        if value is dst:
            return
        src = self.np.asarray(value)
        if src.shape != dst.shape:
            raise ValueError("returned array of shape %s; the output has %d elements" % (src.shape, dst.shape[0]))
        dst[...] = src

    def finish(self):
        return memoryview(self.out_bytes)

    def drop(self):
        self.blob = self.out = self.out_bytes = None


class _Rows(object):
    """block_table_2d for memoryview arrays: t[r] is row r (a memoryview of
    block_table_width entries), t[r, c] one entry."""

    __slots__ = ("flat", "rows", "width", "stride", "shape")

    def __init__(self, flat, rows, width, stride):
        self.flat, self.rows, self.width, self.stride = flat, rows, width, stride
        self.shape = (rows, width)

    def __len__(self):
        return self.rows

    def __getitem__(self, key):
        if isinstance(key, tuple):
            r, c = key
            if not (0 <= r < self.rows and 0 <= c < self.width):
                raise IndexError("block_table_2d[%d, %d] outside %dx%d" % (r, c, self.rows, self.width))
            return self.flat[r * self.stride + c]
        if not 0 <= key < self.rows:
            raise IndexError("row %d outside %d rows" % (key, self.rows))
        return self.flat[key * self.stride:key * self.stride + self.width]

    def tolist(self):
        return [self[r].tolist() for r in range(self.rows)]


class _MemoryviewArrays(object):
    kind = "memoryview"

    def __init__(self):
        if not _LITTLE:
            raise RuntimeError("memoryview arrays need a little-endian machine")
        self.empty32 = memoryview(b"").cast("i")
        self.empty64 = memoryview(b"").cast("q")

    def begin(self, payload, run):
        self.blob = run.blob.toreadonly()

    def view32(self, off, n):
        if n <= 0:
            return self.empty32
        return self.blob[off:off + 4 * n].cast("i")

    def view64(self, off, n):
        if n <= 0:
            return self.empty64
        return self.blob[off:off + 8 * n].cast("q")

    def table2d(self, flat, rows, width, stride):
        return _Rows(flat, rows, width, stride)

    def alloc_outputs(self, total):
        self.out_bytes = bytearray(8 * total)
        self.out = memoryview(self.out_bytes).cast("q")
        return self.out

    def out_view(self, start, n):
        return self.out[start:start + n]

    def store(self, dst, value):
        if value is dst:
            return
        if len(value) != len(dst):
            raise ValueError("returned %d values; the output has %d elements" % (len(value), len(dst)))
        try:
            dst[:] = memoryview(value).cast("B").cast("q")
        except TypeError:
            for i, x in enumerate(value):
                dst[i] = x

    def finish(self):
        return memoryview(self.out_bytes)

    def drop(self):
        self.blob = self.out = self.out_bytes = None


def _host_bytes(t):
    """The bytes of a contiguous CPU tensor, without numpy."""
    import ctypes
    n = t.numel() * t.element_size()
    if n == 0:
        return memoryview(b"")
    return memoryview((ctypes.c_char * n).from_address(t.data_ptr())).cast("B")


class _TorchArrays(object):
    """torch tensors: CUDA (one copy of the blob in, one copy of the outputs
    out per message) or CPU (zero-copy views of the message)."""

    def __init__(self, torch, cuda):
        self.torch = torch
        self.cuda = cuda
        self.kind = "torch-cuda" if cuda else "torch"
        self.dev = torch.device("cuda") if cuda else torch.device("cpu")
        self.empty32 = torch.empty(0, dtype=torch.int32, device=self.dev)
        self.empty64 = torch.empty(0, dtype=torch.int64, device=self.dev)

    def begin(self, payload, run):
        torch = self.torch
        n = run.blob.nbytes
        if n == 0:
            self.base = torch.empty(0, dtype=torch.uint8, device=self.dev)
            return
        host = torch.frombuffer(payload, dtype=torch.uint8, count=n, offset=run.blob_start)
        if self.cuda:
            self.base = torch.empty(n, dtype=torch.uint8, device=self.dev)
            self.base.copy_(host)      # the one host-to-device copy of this message
        else:
            self.base = host

    def view32(self, off, n):
        if n <= 0:
            return self.empty32
        return self.base.narrow(0, off, 4 * n).view(self.torch.int32)

    def view64(self, off, n):
        if n <= 0:
            return self.empty64
        return self.base.narrow(0, off, 8 * n).view(self.torch.int64)

    def table2d(self, flat, rows, width, stride):
        return flat.as_strided((rows, width), (stride, 1))

    def alloc_outputs(self, total):
        self.out = self.torch.zeros(total, dtype=self.torch.int64, device=self.dev)
        return self.out

    def out_view(self, start, n):
        return self.out.narrow(0, start, n)

    def store(self, dst, value):
        if value is dst:
            return
        torch = self.torch
        src = value if isinstance(value, torch.Tensor) else torch.as_tensor(value)
        if tuple(src.shape) != tuple(dst.shape):
            raise ValueError("returned tensor of shape %s; the output has %d elements"
                             % (tuple(src.shape), dst.shape[0]))
        dst.copy_(src)

    def finish(self):
        # The bytes returned point into a tensor (ctypes, no reference): it is
        # kept in self._keep until the next message's finish, after the write.
        if self.cuda:
            self._keep = self.out.cpu()      # the one device-to-host copy (and synchronization)
        else:
            self._keep = self.out
        return _host_bytes(self._keep)

    def drop(self):
        self.base = self.out = None


def _make_arrays(kind, dev):
    if kind not in ("auto", "numpy", "torch", "memoryview"):
        raise ValueError("arrays=%r; expected 'auto', 'numpy', 'torch' or 'memoryview'" % (kind,))
    if kind == "auto" and dev == "cuda":
        try:
            import torch
            if torch.cuda.is_available():
                return _TorchArrays(torch, True)
            sys.stderr.write("slotguard provider: SLOTGUARD_DEVICE=cuda but torch sees no GPU; using host arrays\n")
        except ImportError:
            sys.stderr.write("slotguard provider: SLOTGUARD_DEVICE=cuda but torch is not importable; "
                             "using host arrays\n")
    if kind == "torch":
        import torch
        return _TorchArrays(torch, dev == "cuda")
    if kind in ("auto", "numpy"):
        try:
            import numpy
            return _NumpyArrays(numpy)
        except ImportError:
            if kind == "numpy":
                raise
    return _MemoryviewArrays()


# ---------------------------------------------------------------------------
# What a kernel function gets.

# Batch arrays: name -> (record field of the offset, 32-bit?, length: 'R', 'R1' or 'T').
_BATCH_ARRAYS = {
    "query_start_loc": (True, "R1"),
    "positions": (False, "T"),
    "seq_lens": (False, "R"),
    "seq_lens_i32": (True, "R"),
    "idx_mapping": (True, "R"),
    "slot_mapping_in": (False, "T"),
    "request_of_token": (True, "T"),
}


class _BatchFields(object):
    """The batch of one record. Arrays are made on first use (zero-copy views)."""

    def _init_batch(self, rec, arrays, dev):
        self._rec = rec
        self._arrays = arrays
        self.arrays = arrays.kind      # "numpy", "memoryview", "torch" (cpu) or "torch-cuda"
        self.device = dev
        self.scenario = rec.scenario
        self.num_reqs = rec.num_reqs
        self.rows_by_idx_mapping = rec.rows_by_idx_mapping
        self.num_actual_tokens = rec.num_actual_tokens
        self.num_real_tokens = rec.num_real_tokens
        self.num_tokens = rec.num_tokens

    def __getattr__(self, name):
        # Only called for attributes not set yet: the lazy arrays.
        spec = _BATCH_ARRAYS.get(name)
        if spec is not None:
            rec = self.__dict__["_rec"]
            ad = self.__dict__["_arrays"]
            is32, length = spec
            n = rec.num_tokens if length == "T" else rec.num_reqs + (1 if length == "R1" else 0)
            off = getattr(rec, name)
            v = ad.view32(off, n) if is32 else ad.view64(off, n)
            self.__dict__[name] = v
            return v
        return self._more(name)

    def _more(self, name):
        raise AttributeError("%s has no field %r" % (type(self).__name__, name))


class Call(_BatchFields):
    """One mapping call: one group of one scenario (see the module docstring)."""

    def _more(self, name):
        d = self.__dict__
        if name == "block_table":
            g = d["_group"]
            v = d["_arrays"].view32(g.table, g.table_elements)
            d[name] = v
            return v
        if name == "block_table_2d":
            g = d["_group"]
            flat = self.block_table
            rows, width, stride = g.table_rows, g.table_width, g.table_row_stride
            if rows > 0 and width > 0:
                fit = (g.table_elements - width) // stride + 1 if stride > 0 and g.table_elements >= width else 0
                rows = max(0, min(rows, fit))
            v = d["_arrays"].table2d(flat, rows, width, stride)
            d[name] = v
            return v
        params = d.get("params")
        if params is not None and name in params:
            return params[name]
        raise AttributeError("call of family %s has no field %r (parameters: %s)"
                             % (d.get("family"), name, ", ".join(params or ()) or "none"))

    def __repr__(self):
        return "<slotguard call %s group %d of scenario %d: %d requests, %d tokens>" % (
            self.family, self.group, self.scenario, self.num_reqs, self.num_tokens)


class Step(_BatchFields):
    """Mode 1: one scenario, its batch and every group the provider runs
    (step.groups, calls in run order)."""

    def __repr__(self):
        return "<slotguard step of scenario %d: %d requests, %d tokens, groups %s>" % (
            self.scenario, self.num_reqs, self.num_tokens, [c.group for c in self.groups])


def _one_line(e):
    text = str(e).replace("\r", " ").replace("\n", " ").strip()
    line = type(e).__name__ + (": " + text if text else "")
    return line if len(line) <= 500 else line[:497] + "..."


class _GroupFailed(Exception):
    def __init__(self, status, message):
        Exception.__init__(self, message)
        self.status = status
        self.message = message


# ---------------------------------------------------------------------------
# The provider.


class Provider(object):
    """A kernel provider. Register functions with @family or @scenario, then
    call serve()."""

    _blob = None

    def __init__(self, name, arrays="auto"):
        if not name:
            raise ValueError("a provider needs a name (shown in slotguard's reports)")
        if arrays not in ("auto", "numpy", "torch", "memoryview"):
            raise ValueError("arrays=%r; expected 'auto', 'numpy', 'torch' or 'memoryview'" % (arrays,))
        self.name = name
        self.arrays = arrays
        self.mode = None
        self._functions = {}      # family name -> function
        self._scenario_fn = None
        self.hello = None
        self.device = None
        self._array_impl = None
        self._families = None     # code -> FamilyInfo

    # -- registration --------------------------------------------------------

    def family(self, name):
        """@p.family("kpool_tail"): fn(call) runs one group (mode 0)."""
        if self.mode == 1:
            raise ValueError("provider %s already has a @scenario function (mode 1); "
                             "one provider speaks one mode" % self.name)
        if name in self._functions:
            raise ValueError("family %s registered twice" % name)

        def register(fn):
            self.mode = 0
            self._functions[name] = fn
            return fn
        return register

    def scenario(self, families):
        """@p.scenario(families=["paged"]): fn(step) runs every group of these
        families of one scenario in one call (mode 1)."""
        if isinstance(families, str):
            families = [families]
        families = list(families)
        if not families:
            raise ValueError("@scenario needs at least one family")
        if self.mode is not None:
            raise ValueError("provider %s already has %s; one provider speaks one mode"
                             % (self.name, "a @scenario function" if self.mode == 1 else "@family functions"))

        def register(fn):
            self.mode = 1
            self._scenario_fn = fn
            for f in families:
                self._functions[f] = fn
            return fn
        return register

    # -- the protocol, message by message (serve() wires them to the fds) ---

    def welcome(self, hello_buf):
        """HELLO bytes -> WELCOME bytes; picks the arrays for the device."""
        if not self._functions:
            raise ValueError("provider %s implements no family: register one with @family or @scenario" % self.name)
        hello = P.decode_hello(hello_buf)
        self.hello = hello
        self.device = hello.device or device()
        known = hello.by_name()
        for f in self._functions:
            if f not in known:
                sys.stderr.write("slotguard provider %s: family %r is not one slotguard knows (%s)\n"
                                 % (self.name, f, ", ".join(known)))
        self._families = hello.by_code()
        self._array_impl = _make_arrays(self.arrays, self.device)
        return P.encode_welcome(self.name, self.mode, list(self._functions))

    def run_message(self, buf):
        """RUN bytes -> the RESULTS message as a list of byte-like parts."""
        run = P.decode_run(buf)
        ad = self._array_impl
        fams = self._families
        self._blob = run.blob
        ad.begin(buf, run)
        try:
            # Where each record's outputs go in the message's one output buffer.
            starts = []
            total = 0
            for rec in run.records:
                starts.append(total)
                for g in rec.groups:
                    f = fams.get(g.family)
                    total += (f.outputs if f is not None else 1) * g.output_length
            ad.alloc_outputs(total)
            entries = []
            ok = []
            if self.mode == 1:
                for rec, start in zip(run.records, starts):
                    entries.append(self._run_step(rec, start))
                    ok.append(entries[-1][0] == P.STATUS_OK)
            else:
                done = {}   # (scenario, group) -> output 0 view, or (status, message) when it did not run
                for rec, start in zip(run.records, starts):
                    entries.append(self._run_group(rec, start, done))
                    ok.append(entries[-1][0] == P.STATUS_OK)
            out = ad.finish()
            parts = [P.encode_results_head(entries, run.sequence)]
            if all(ok):
                parts.append(out)
            else:
                ends = starts[1:] + [total]
                for keep, a, b in zip(ok, starts, ends):
                    if keep and b > a:
                        parts.append(out[8 * a:8 * b])
            return parts
        finally:
            ad.drop()

    # -- one record --------------------------------------------------------------

    def _make_call(self, rec, g, start, f):
        ad = self._array_impl
        c = Call.__new__(Call)
        c._init_batch(rec, ad, self.device)
        c._group = g
        c.family = f.name
        c.group = g.group
        c.block_table_rows = g.table_rows
        c.block_table_width = g.table_width
        c.block_table_row_stride = g.table_row_stride
        c.block_table_elements = g.table_elements
        n = g.param_count
        values = struct.unpack_from("<%dq" % n, self._blob, g.params_offset) if n else ()
        c.params = dict(zip(f.params, values))
        T = rec.num_tokens
        n = g.output_length   # T for a slot per token; num_reqs (x operations) for a per-request family
        c.kind = ("state_index" if f.flags & P.FLAG_STATE_INDEX else
                  "block_op" if f.flags & P.FLAG_BLOCK_OP else "slot_mapping")
        c.ops_per_request = n // rec.num_reqs if c.kind == "block_op" and rec.num_reqs else 1
        c.outputs = [ad.out_view(start + k * n, n) for k in range(f.outputs)]
        c.output_names = f.output_names
        c.slot_mapping = c.outputs[0]
        c.tail_slot_mapping = c.outputs[1] if f.outputs >= 2 else None
        c.common_group = g.common_group
        if g.common_inline:
            c.common_slot_mapping = ad.view64(g.common_offset, T)
        else:
            c.common_slot_mapping = None
        c.block_table_row_widths = (ad.view32(g.row_widths, g.table_rows)
                                    if g.flags & P.GROUP_ROW_WIDTHS else None)
        return c

    def _store(self, call, value):
        ad = self._array_impl
        if value is None:
            return
        if isinstance(value, tuple):
            if len(value) != len(call.outputs):
                raise ValueError("returned a tuple of %d; family %s has %d output(s)"
                                 % (len(value), call.family, len(call.outputs)))
            for out, v in zip(call.outputs, value):
                ad.store(out, v)
        else:
            ad.store(call.slot_mapping, value)

    def _fatal(self, e):
        """A CUDA error poisons the context: exit, so slotguard restarts the
        provider and sends the scenarios again one per message."""
        if self.device == "cuda" and "CUDA" in str(e) and isinstance(e, RuntimeError):
            sys.stderr.write("slotguard provider %s: %s; exiting so that slotguard re-runs one scenario per "
                             "message\n" % (self.name, _one_line(e)))
            sys.stderr.flush()
            os._exit(70)

    def _run_group(self, rec, start, done):
        # Mode 0: one group per record.
        if len(rec.groups) != 1:
            return (P.STATUS_ERROR, rec.groups[0].group if rec.groups else 0,
                    "mode 0 provider got a record of %d groups" % len(rec.groups))
        g = rec.groups[0]
        key = (rec.scenario, g.group)
        f = self._families.get(g.family)
        fn = self._functions.get(f.name) if f is not None else None
        if fn is None:
            done[key] = (P.STATUS_ERROR, "not run")
            return (P.STATUS_ERROR, g.group, "provider %s does not implement family code %d (%s)"
                    % (self.name, g.family, f.name if f else "not in HELLO"))
        try:
            call = self._make_call(rec, g, start, f)
            if g.common_group >= 0:
                src = done.get((rec.scenario, g.common_group))
                if src is None:
                    raise _GroupFailed(P.STATUS_ERROR, "common group %d has no output in this message"
                                       % g.common_group)
                if isinstance(src, tuple):
                    raise _GroupFailed(src[0], "common group %d %s: %s" % (
                        g.common_group, "was skipped" if src[0] == P.STATUS_SKIP else "failed", src[1]))
                call.common_slot_mapping = src
            self._store(call, fn(call))
        except _GroupFailed as e:
            done[key] = (e.status, e.message)
            return (e.status, g.group, e.message)
        except Skip as e:
            msg = str(e) or "skipped by provider %s" % self.name
            done[key] = (P.STATUS_SKIP, msg)
            return (P.STATUS_SKIP, g.group, msg)
        except Exception as e:
            self._fatal(e)
            traceback.print_exc(file=sys.stderr)
            msg = _one_line(e)
            done[key] = (P.STATUS_ERROR, msg)
            return (P.STATUS_ERROR, g.group, msg)
        done[key] = call.slot_mapping
        return (P.STATUS_OK, g.group, "")

    def _run_step(self, rec, start):
        # Mode 1: one scenario, all its groups of our families, in order.
        ad = self._array_impl
        step = Step.__new__(Step)
        step._init_batch(rec, ad, self.device)
        calls = []
        first = rec.groups[0].group if rec.groups else 0
        try:
            by_group = {}
            at = start
            for g in rec.groups:
                f = self._families.get(g.family)
                if f is None or f.name not in self._functions:
                    return (P.STATUS_ERROR, g.group, "provider %s does not implement family code %d (%s)"
                            % (self.name, g.family, f.name if f else "not in HELLO"))
                c = self._make_call(rec, g, at, f)
                if g.common_group >= 0:
                    src = by_group.get(g.common_group)
                    if src is None:
                        return (P.STATUS_ERROR, g.group, "common group %d is not an earlier group of the record"
                                % g.common_group)
                    c.common_slot_mapping = src.slot_mapping   # alias: that group's output buffer
                by_group[g.group] = c
                calls.append(c)
                at += f.outputs * g.output_length
            step.groups = calls
            value = self._scenario_fn(step)
            if value is not None:
                if len(value) != len(calls):
                    raise ValueError("returned %d outputs for %d groups" % (len(value), len(calls)))
                for c, v in zip(calls, value):
                    self._store(c, v)
        except Skip as e:
            return (P.STATUS_SKIP, first, str(e) or "skipped by provider %s" % self.name)
        except Exception as e:
            self._fatal(e)
            traceback.print_exc(file=sys.stderr)
            group = getattr(e, "slotguard_group", first)
            return (P.STATUS_ERROR, group if isinstance(group, int) else first, _one_line(e))
        return (P.STATUS_OK, first, "")

    # -- the loop ------------------------------------------------------------

    def serve(self, request_fd=None, reply_fd=None):
        """Handshake, then answer RUNs until end of file or BYE."""
        rfd = int(os.environ.get("SLOTGUARD_REQUEST_FD", 3)) if request_fd is None else request_fd
        wfd = int(os.environ.get("SLOTGUARD_REPLY_FD", 4)) if reply_fd is None else reply_fd
        try:
            os.fstat(rfd)
            os.fstat(wfd)
        except OSError:
            sys.stderr.write("slotguard provider %s: no protocol pipes on fds %d/%d; run me through "
                             "`slotguard check --kernel-cmd \"python3 %s\"` (see %s --help)\n"
                             % (self.name, rfd, wfd, sys.argv[0], sys.argv[0]))
            raise SystemExit(2)
        buf = P.read_frame(rfd)
        if buf is None:
            return
        P.write_frame(wfd, self.welcome(buf))
        while True:
            buf = P.read_frame(rfd)
            if buf is None:
                return
            kind = P.message_type(buf)
            if kind == P.BYE:
                return
            if kind != P.RUN:
                raise P.ProtocolError("provider %s: unexpected message type %d" % (self.name, kind))
            P.write_frame(wfd, *self.run_message(buf))


def _main(argv):
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0
    sys.stdout.write(__doc__.split("\n\n")[0] + "\n(python3 -m slotguard.provider --help for the API)\n")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
