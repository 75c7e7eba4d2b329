"""Write a slotguard kernel provider in Python: `slotguard check --kernel-cmd "python3 my_provider.py"`.

slotguard starts the command once per concurrent runner, keeps it running and
sends it many scenarios per message over the binary protocol of
docs/provider-protocol.md. This module speaks that protocol; you write the
launch of your kernel:

    import slotguard

    p = slotguard.Provider("my-kpool")        # arrays="auto"|"numpy"|"torch"|"memoryview"

    # mode 0: one call per group; the engine routes num_reqs == 0 elsewhere
    @p.family("kpool_tail", requires="num_reqs >= 1")
    def run(call):
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
inputs (a dict of the family's extra inputs by name, each an int64 array of
num_reqs or num_tokens values, also attributes: call.num_rejected; empty
for a family without inputs);
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
(--family-file) included.

A batch the launcher cannot take is said so up front: preconditions in
@p.family("kpool_tail", requires="num_reqs >= 1") (an expression over the
call's fields and parameters, a function of the call, or a list of them),
or `raise slotguard.Skip("why")` from the function. Either reports the
scenario as skipped (status 2), never as a fault. Any other exception is
that scenario's error (status 1: a no_fault finding naming the group, with
the traceback's last line, "IndexError: ..."; the first tracebacks go to
stderr, which slotguard shows), and the provider keeps serving.

A crash (a signal, os._exit) costs a fork, not a restart: after the
handshake a forked child answers the messages, and when it dies the parent
answers for it (the call it died in an error, the rest of the message "not
run") and the next child takes over. On cuda the parent never touches the
device (a CUDA context does not survive a fork): each child makes its own,
and SLOTGUARD_FORK_STANDBYS children (default 2 on cuda, 0 on the host) are
kept forked ahead, each with its context made, waiting for its turn, so
that taking over is a swap. A module that initializes CUDA at import gets
no fork server on cuda (said on stderr): there a crash costs a provider
start. Provider(..., fork_server=False) or SLOTGUARD_FORK_SERVER=0 turns it
off.

A device fault (a CUDA error: a device-side assert, an illegal address)
loses the CUDA context of the process that ran it: the package answers the
message (the call that raised it an error when each call was synchronized,
every other record "not run", status 3, which slotguard sends again) and
that process exits; under the fork server the next child takes over, else
slotguard swaps in its spare provider. Calls are synchronized after each call when slotguard asks (it sends
a lost message again that way), once a call of this process has raised, or
always with Provider(..., sync_each_call=True) or SLOTGUARD_SYNC_EACH_CALL=1:
a device fault is then raised by the call that caused it and named in its
reply. With SLOTGUARD_PROGRESS_FD set, the package writes which record's
call is running in slotguard's page, so that a process that dies names the
record that killed it.

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
# A process that answered its message after a device fault exits with this
# status: its CUDA context is lost (a fork server's parent forks the next child).
_EXIT_DEVICE_LOST = 70


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

    def sync(self):
        pass

    def warm(self):
        pass

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

    def sync(self):
        pass

    def warm(self):
        pass

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
    out per message) or CPU (zero-copy views of the message).

    On CUDA every array, an empty one included, points into device memory
    that is there: the blob's copy and the outputs are allocated with
    _SLACK bytes past their end. An engine's buffers are persistent and
    sized for its largest batch, so a kernel that reads element 0 of an
    array of no elements (a batch of no tokens or no requests) reads memory
    in the engine; here it must too, never address 0 (an illegal address
    that would be a finding of slotguard's own making)."""

    _SLACK = 256

    def __init__(self, torch, cuda):
        import warnings
        # The message's bytes are read-only and are only read (copied to the
        # device, or viewed as inputs): torch's warning about that, once per
        # process, would be one line per fork server child.
        warnings.filterwarnings("ignore", message="The given buffer is not writable", category=UserWarning)
        self.torch = torch
        self.cuda = cuda
        self.kind = "torch-cuda" if cuda else "torch"
        self.dev = torch.device("cuda") if cuda else torch.device("cpu")

    def begin(self, payload, run):
        torch = self.torch
        n = run.blob.nbytes
        if self.cuda:
            self.base = torch.empty(n + self._SLACK, dtype=torch.uint8, device=self.dev)
            if n:
                host = torch.frombuffer(payload, dtype=torch.uint8, count=n, offset=run.blob_start)
                self.base[:n].copy_(host)      # the one host-to-device copy of this message
        elif n == 0:
            self.base = torch.empty(8, dtype=torch.uint8)
        else:
            self.base = torch.frombuffer(payload, dtype=torch.uint8, count=n, offset=run.blob_start)

    def view32(self, off, n):
        n = max(n, 0)
        off = min(off, self.base.numel() - 4 * n) if n == 0 else off
        return self.base.narrow(0, off & ~3, 4 * n).view(self.torch.int32)

    def view64(self, off, n):
        n = max(n, 0)
        off = min(off, self.base.numel() - 8 * n) if n == 0 else off
        return self.base.narrow(0, off & ~7, 8 * n).view(self.torch.int64)

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def warm(self):
        """[a fork server's standby child] Makes this process's CUDA context
        (and Triton's driver, when imported) before its turn comes, so that
        taking over from a child that died costs a swap."""
        if not self.cuda:
            return
        torch = self.torch
        torch.cuda.init()
        torch.empty(self._SLACK, dtype=torch.uint8, device=self.dev)
        torch.cuda.synchronize()
        triton = sys.modules.get("triton")
        if triton is not None:
            try:
                triton.runtime.driver.active.get_current_target()
            except Exception:  # noqa: BLE001 (an older Triton: its first launch does it)
                pass

    def table2d(self, flat, rows, width, stride):
        return flat.as_strided((rows, width), (stride, 1))

    def alloc_outputs(self, total):
        slack = self._SLACK // 8 if self.cuda else 0
        self.total = total
        self.out = self.torch.zeros(total + slack, dtype=self.torch.int64, device=self.dev)
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
            self._keep = self.out[:self.total].cpu()      # the one device-to-host copy (and synchronization)
        else:
            self._keep = self.out
        return _host_bytes(self._keep)

    def drop(self):
        self.base = self.out = None


def _cuda_available(torch):
    """torch.cuda.is_available() asked through NVML, not the CUDA runtime:
    a process that initialized the CUDA driver cannot fork a child that uses
    it, and the fork server forks after this check (torch falls back to the
    runtime itself when NVML cannot answer; _forked_child_can_use_cuda()
    then sees it)."""
    old = os.environ.get("PYTORCH_NVML_BASED_CUDA_CHECK")
    os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"
    try:
        return torch.cuda.is_available()
    finally:
        if old is None:
            del os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"]
        else:
            os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = old


def _forked_child_can_use_cuda(arrays):
    """Whether a child forked from this process can make a CUDA context of
    its own: none can once this process initialized the CUDA driver. torch's
    own flag says so for torch; when the driver library is loaded anyway
    (by another library), a forked probe makes a context and says."""
    torch = sys.modules.get("torch")
    try:
        if torch is not None and torch.cuda.is_initialized():
            return False
    except Exception:  # noqa: BLE001 (a torch without CUDA)
        pass
    try:
        with open("/proc/self/maps") as maps:
            loaded = any("libcuda.so" in line for line in maps)
    except OSError:
        loaded = True
    if not loaded:
        return True
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            arrays.warm()
            code = 0
        except BaseException:  # noqa: BLE001 (the probe says no)
            pass
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _make_arrays(kind, dev):
    if kind not in ("auto", "numpy", "torch", "memoryview"):
        raise ValueError("arrays=%r; expected 'auto', 'numpy', 'torch' or 'memoryview'" % (kind,))
    if kind == "auto" and dev == "cuda":
        try:
            import torch
            if _cuda_available(torch):
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
        inputs = d.get("inputs")
        if inputs and name in inputs:
            return inputs[name]
        raise AttributeError("call of family %s has no field %r (parameters: %s)"
                             % (d.get("family"), name, ", ".join(list(params or ()) + list(inputs or ())) or "none"))

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


class _DeviceLost(Exception):
    """The device context is gone (a CUDA error): nothing more runs in this
    process. `record`: the record whose call raised it while each call was
    synchronized (the fault is that call's), else None."""

    def __init__(self, line, record=None):
        Exception.__init__(self, line)
        self.line = line
        self.record = record


def _device_fault(e, dev):
    """Whether an exception is the device's (a CUDA error): its context is
    lost, the process must go. A device-side assert and an illegal address
    are sticky; the rarer ones that are not are treated the same."""
    if dev != "cuda" or isinstance(e, (Skip, _GroupFailed)):
        return False
    text = str(e)
    return isinstance(e, RuntimeError) and ("CUDA" in text or "cuda" in type(e).__name__.lower()
                                            or type(e).__name__ == "AcceleratorError")


class _Precondition(object):
    """One `requires=` check: a string (an expression over the call's
    fields and parameters, e.g. "num_reqs >= 1") or a function of the call."""

    __slots__ = ("text", "test")

    def __init__(self, check):
        if isinstance(check, str):
            code = compile(check, "<requires %s>" % check, "eval")
            self.text = check
            self.test = lambda c: eval(code, {"__builtins__": {"min": min, "max": max, "len": len, "abs": abs}},
                                       _Fields(c))
        elif callable(check):
            name = getattr(check, "__name__", "")
            self.text = name if name and name != "<lambda>" else "a requires= function"
            self.test = check
        else:
            raise TypeError("requires=%r; expected a string such as \"num_reqs >= 1\", a function of the call, "
                            "or a list of them" % (check,))


class _Fields(dict):
    """The names a requires= string reads: the call's (or step's) fields, then its parameters."""

    def __init__(self, call):
        dict.__init__(self)
        self.call = call

    def __missing__(self, name):
        if name == "call":
            return self.call
        try:
            return getattr(self.call, name)
        except AttributeError:
            raise NameError("requires= reads %r, which the call does not have" % name)


def _preconditions(requires):
    if requires is None:
        return []
    if isinstance(requires, (list, tuple)):
        return [_Precondition(r) for r in requires]
    return [_Precondition(requires)]


def _check(preconditions, call):
    for p in preconditions:
        if not p.test(call):
            raise Skip("the launcher does not take this batch: requires %s" % p.text)


def _env_flag(name):
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


# ---------------------------------------------------------------------------
# The provider.


class Provider(object):
    """A kernel provider. Register functions with @family or @scenario, then
    call serve().

    sync_each_call: synchronize the device after every call, so that a
    device fault (a device-side assert, an illegal address) is raised by
    the call that caused it and named in its reply. Default: the
    SLOTGUARD_SYNC_EACH_CALL environment variable; either way the package
    synchronizes after each call when slotguard asks (it sends a lost
    message again that way) and once a call of this process has raised."""

    _blob = None

    def __init__(self, name, arrays="auto", sync_each_call=None, fork_server=None):
        if not name:
            raise ValueError("a provider needs a name (shown in slotguard's reports)")
        if arrays not in ("auto", "numpy", "torch", "memoryview"):
            raise ValueError("arrays=%r; expected 'auto', 'numpy', 'torch' or 'memoryview'" % (arrays,))
        self.name = name
        self.arrays = arrays
        self.sync_each_call = _env_flag("SLOTGUARD_SYNC_EACH_CALL") if sync_each_call is None else bool(sync_each_call)
        self.fork_server = fork_server
        self._fork_state = None   # in a fork server's child: its page (_ForkServer)
        self.mode = None
        self._functions = {}      # family name -> function
        self._requires = {}       # family name -> [_Precondition]
        self._scenario_fn = None
        self.hello = None
        self.device = None
        self._array_impl = None
        self._families = None     # code -> FamilyInfo
        self._fault_seen = False  # a call of this process raised: synchronize after each call from now on
        self._warm_record = -1    # the last RUN: a record answered OK that reads no other record's output
        self._exit_after_reply = None
        self._progress = P.Progress(fd=-1)

    # -- registration --------------------------------------------------------

    def family(self, name, requires=None):
        """@p.family("kpool_tail", requires="num_reqs >= 1"): fn(call) runs
        one group (mode 0). A batch a precondition rejects is skipped (status
        2), never run: a string is an expression over the call's fields and
        parameters, or give a function of the call, or a list of them."""
        if self.mode == 1:
            raise ValueError("provider %s already has a @scenario function (mode 1); "
                             "one provider speaks one mode" % self.name)
        if name in self._functions:
            raise ValueError("family %s registered twice" % name)
        checks = _preconditions(requires)

        def register(fn):
            self.mode = 0
            self._functions[name] = fn
            self._requires[name] = checks
            return fn
        return register

    def scenario(self, families, requires=None):
        """@p.scenario(families=["paged"], requires=...): fn(step) runs every
        group of these families of one scenario in one call (mode 1);
        `requires` is checked on the step (its batch fields)."""
        if isinstance(families, str):
            families = [families]
        families = list(families)
        if not families:
            raise ValueError("@scenario needs at least one family")
        if self.mode is not None:
            raise ValueError("provider %s already has %s; one provider speaks one mode"
                             % (self.name, "a @scenario function" if self.mode == 1 else "@family functions"))
        checks = _preconditions(requires)

        def register(fn):
            self.mode = 1
            self._scenario_fn = fn
            for f in families:
                self._functions[f] = fn
                self._requires[f] = checks
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
        """RUN bytes -> the RESULTS message as a list of byte-like parts.
        After a device fault, `exit_after_reply` is set: the caller writes
        the reply, then the process exits (its device context is lost)."""
        run = P.decode_run(buf)
        sync = bool(run.flags & P.RUN_SYNC_EACH_CALL) or self.sync_each_call or self._fault_seen
        try:
            entries, out, starts, total = self._run(buf, run, sync)
        except _DeviceLost as e:
            return self._lost(run, e)
        except Exception as e:
            if not _device_fault(e, self.device):
                raise
            self._traceback()
            return self._lost(run, _DeviceLost(_one_line(e)))
        ok = [entry[0] == P.STATUS_OK for entry in entries]
        self._warm_record = next((k for k, rec in enumerate(run.records)
                                  if ok[k] and all(g.common_group < 0 for g in rec.groups)), -1)
        parts = [P.encode_results_head(entries, run.sequence)]
        if all(ok):
            parts.append(out)
        else:
            ends = starts[1:] + [total]
            for keep, a, b in zip(ok, starts, ends):
                if keep and b > a:
                    parts.append(out[8 * a:8 * b])
        return parts

    def warm_run(self, buf, record):
        """[a fork server's standby] Runs one record of a RUN that another
        child answered OK, its output dropped and nothing sent: the kernels
        it launches are loaded in this process before its turn. No progress
        page is written (slotguard's page names the serving child's calls),
        no traceback printed, and a failure is no fault of this process's.
        True when it ran OK; a device fault raises _DeviceLost (its context
        is lost: no standby)."""
        run = P.decode_run(buf)
        run.records = run.records[record:record + 1]
        saved = self._progress, self._fault_seen, getattr(self, "_tracebacks", 0)
        self._progress = P.Progress(fd=-1)
        self._tracebacks = self._TRACEBACKS + 1   # none printed
        try:
            entries = self._run(buf, run, True)[0]
        finally:
            self._progress, self._fault_seen, self._tracebacks = saved
        return all(entry[0] == P.STATUS_OK for entry in entries)

    def _run(self, buf, run, sync):
        """Runs a decoded RUN's records into the message's one output
        buffer: (the entries, the output bytes, each record's first output,
        the outputs in all)."""
        ad = self._array_impl
        self._blob = run.blob
        try:
            ad.begin(buf, run)
            starts, total = self._output_starts(run)
            ad.alloc_outputs(total)
            entries = self._run_records(run, starts, sync)
            return entries, ad.finish(), starts, total
        finally:
            ad.drop()

    @property
    def exit_after_reply(self):
        return self._exit_after_reply

    def _output_starts(self, run):
        # Where each record's outputs go in the message's one output buffer.
        starts = []
        total = 0
        for rec in run.records:
            starts.append(total)
            for g in rec.groups:
                f = self._families.get(g.family)
                total += (f.outputs if f is not None else 1) * g.output_length
        return starts, total

    def _run_records(self, run, starts, sync):
        entries = []
        done = {}   # mode 0: (scenario, group) -> output 0 view, or (status, message) when it did not run
        progress = self._progress
        state = self._fork_state
        for k, (rec, start) in enumerate(zip(run.records, starts)):
            progress.start(k)
            if state is not None:
                state.record(k, rec.groups[0].group if rec.groups else 0)
            try:
                # Synchronized from the call after one that raised on.
                now = sync or self._fault_seen
                if self.mode == 1:
                    entries.append(self._run_step(rec, start, now))
                else:
                    entries.append(self._run_group(rec, start, done, now))
            except _DeviceLost as e:
                e.record = k if now else None
                raise
            finally:
                progress.done()
        return entries

    def _lost(self, run, lost):
        """RESULTS after the device context was lost: the call that raised it
        (when each call was synchronized) is an error; every other record is
        "not run", which slotguard sends again to another process."""
        what = "device fault: " + lost.line
        sys.stderr.write("slotguard provider %s: %s; %s; exiting (the CUDA context is lost)\n"
                         % (self.name, what, "raised by its own call" if lost.record is not None
                            else "outside a synchronized call: slotguard sends the message again, synchronizing "
                                 "after each call"))
        sys.stderr.flush()
        entries = []
        for k, rec in enumerate(run.records):
            group = rec.groups[0].group if rec.groups else 0
            if k == lost.record:
                entries.append((P.STATUS_ERROR, getattr(lost, "group", group), what))
            else:
                entries.append((P.STATUS_NOT_RUN, group, "not run: " + what))
        self._exit_after_reply = _EXIT_DEVICE_LOST
        # A fork server's child: the provider goes on (its parent forks the
        # next child); else the process exits and slotguard swaps in a spare.
        flags = 0 if self._fork_state is not None else P.RESULTS_EXITING
        return [P.encode_results_head(entries, run.sequence, flags)]

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
        c.params = dict(zip(f.param_names, values))
        T = rec.num_tokens
        # The family's extra inputs, after the parameters: an array per request or per token each.
        c.inputs = {}
        if g.flags & P.GROUP_INPUTS:
            at = g.params_offset + 8 * n
            for name, per in f.inputs:
                length = T if per == "token" else rec.num_reqs
                c.inputs[name] = ad.view64(at, length)
                at += 8 * length
        n = g.output_length   # T for a slot per token; num_reqs (x operations) for a per-request family
        c.kind = ("state_index" if f.flags & P.FLAG_STATE_INDEX else
                  "block_op" if f.flags & P.FLAG_BLOCK_OP else
                  "table_producer" if f.flags & P.FLAG_TABLE_PRODUCER else "slot_mapping")
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

    def _failed(self, e, group):
        """A call raised: a device fault ends the process (_DeviceLost); any
        other exception is its scenario's error, and the process goes on,
        synchronizing after each call from now on."""
        self._traceback()
        if not _device_fault(e, self.device) and self.device == "cuda":
            # The launcher may have raised after launching: what it left on
            # the device is this call's too.
            try:
                self._array_impl.sync()
            except Exception as after:  # noqa: BLE001 (any error of the device's)
                if _device_fault(after, self.device):
                    e = after
        if _device_fault(e, self.device):
            lost = _DeviceLost(_one_line(e))
            lost.group = group
            raise lost
        self._fault_seen = True
        return _one_line(e)

    _TRACEBACKS = 5   # per process: a launcher that raises on every tenth batch must not flood stderr

    def _traceback(self):
        self._tracebacks = getattr(self, "_tracebacks", 0) + 1
        if self._tracebacks <= self._TRACEBACKS:
            traceback.print_exc(file=sys.stderr)
        if self._tracebacks == self._TRACEBACKS:
            sys.stderr.write("slotguard provider %s: %d calls raised; the next tracebacks are not printed (each "
                             "reply still names its exception)\n" % (self.name, self._TRACEBACKS))

    def _run_group(self, rec, start, done, sync):
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
            _check(self._requires.get(f.name, ()), call)
            self._store(call, fn(call))
            if sync:
                self._array_impl.sync()
        except _GroupFailed as e:
            done[key] = (e.status, e.message)
            return (e.status, g.group, e.message)
        except Skip as e:
            msg = str(e) or "skipped by provider %s" % self.name
            done[key] = (P.STATUS_SKIP, msg)
            return (P.STATUS_SKIP, g.group, msg)
        except Exception as e:
            msg = self._failed(e, g.group)
            done[key] = (P.STATUS_ERROR, msg)
            return (P.STATUS_ERROR, g.group, msg)
        done[key] = call.slot_mapping
        return (P.STATUS_OK, g.group, "")

    def _run_step(self, rec, start, sync):
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
            if calls:
                _check(self._requires.get(calls[0].family, ()), step)
            value = self._scenario_fn(step)
            if value is not None:
                if len(value) != len(calls):
                    raise ValueError("returned %d outputs for %d groups" % (len(value), len(calls)))
                for c, v in zip(calls, value):
                    self._store(c, v)
            if sync:
                ad.sync()
        except Skip as e:
            return (P.STATUS_SKIP, first, str(e) or "skipped by provider %s" % self.name)
        except Exception as e:
            group = getattr(e, "slotguard_group", first)
            group = group if isinstance(group, int) else first
            return (P.STATUS_ERROR, group, self._failed(e, group))
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
        self._progress = P.Progress()
        buf = P.read_frame(rfd)
        if buf is None:
            return
        P.write_frame(wfd, self.welcome(buf))
        if self._forks():
            return _ForkServer(self, rfd, wfd, self._standbys()).serve()
        self._serve_messages(rfd, wfd)

    def _serve_messages(self, rfd, wfd, state=None):
        """Answers RUNs until end of file or BYE. `state`: the fork server's
        page (_ForkServer), told where each message is."""
        while True:
            buf = P.read_frame(rfd)
            if buf is None:
                return
            kind = P.message_type(buf)
            if kind == P.BYE:
                return
            if kind != P.RUN:
                raise P.ProtocolError("provider %s: unexpected message type %d" % (self.name, kind))
            if state is not None:
                state.running(buf)
            parts = self.run_message(buf)
            if state is not None:
                state.replying()
            P.write_frame(wfd, *parts)
            if state is not None:
                state.idle()
                if self._warm_record >= 0 and self._exit_after_reply is None:
                    state.keep_for_warming(buf, self._warm_record)
            if self._exit_after_reply is not None:
                sys.stderr.flush()
                os._exit(self._exit_after_reply)

    def _forks(self):
        """Whether serve() answers from forked children (_ForkServer): on,
        unless turned off, and on cuda only while this process has not
        touched the CUDA driver (a child could not use it)."""
        if not hasattr(os, "fork"):
            return False
        if self.fork_server is not None:
            on = bool(self.fork_server)
        else:
            on = os.environ.get("SLOTGUARD_FORK_SERVER", "").strip().lower() not in ("0", "false", "no", "off")
        if on and self._array_impl.kind == "torch-cuda" and not _forked_child_can_use_cuda(self._array_impl):
            sys.stderr.write("slotguard provider %s: no fork server: this process initialized CUDA before serving "
                             "(at import?), and a forked child could not use it; a crash or device fault costs a "
                             "provider start\n" % self.name)
            return False
        return on

    def _standbys(self):
        """How many children the fork server keeps forked ahead: on cuda,
        each has made its CUDA context and waits for its turn
        (SLOTGUARD_FORK_STANDBYS, default 2); on the host a fork is cheap
        and none is kept (the variable sets a number there too)."""
        value = os.environ.get("SLOTGUARD_FORK_STANDBYS", "").strip()
        if value:
            try:
                return max(0, min(16, int(value)))
            except ValueError:
                sys.stderr.write("slotguard provider %s: SLOTGUARD_FORK_STANDBYS=%r is not a number; using the "
                                 "default\n" % (self.name, value))
        return 2 if self._array_impl.kind == "torch-cuda" else 0


class _ForkServer(object):
    """Crashes that cost a fork, not a start. After the handshake the
    process (imports done, families bound) forks a child that answers the
    messages. When the child dies, the parent, which holds the same pipes,
    answers the message it was running: the call that was running is an
    error naming how the child died, every other record "not run" (status 3,
    sent again by slotguard, synchronized); then the next child takes over.
    A child that answered after a device fault (its CUDA context lost) exits
    and the next takes over too.

    On cuda the parent never touches the device (a CUDA context does not
    survive a fork): each child makes its own. So that taking over costs a
    swap, not a context, the parent keeps `standbys` children forked ahead:
    each makes its context, then waits on a pipe of its own for its turn
    (one byte: "G", or "F" when a fault was seen: synchronize after each
    call). A standby that dies before its turn is replaced; three in a row,
    and the parent keeps none (a child then makes its context on its first
    call)."""

    # The page the child writes: phase (0 idle, 1 running a RUN, 2
    # writing its RESULTS), the RUN's sequence and record count, the record
    # whose call is running and its first group.
    WORDS = struct.Struct("<qqqqq")
    IDLE, RUNNING, REPLYING = 0, 1, 2
    _MAX_IDLE_DEATHS = 3
    _MAX_STANDBY_DEATHS = 3
    # The first RUN with a record a child answered OK, kept (length,
    # record, then the bytes) for the standbys to run that record once,
    # outputs dropped, before their turn: their kernels are then loaded
    # (Triton's first launch in a process, torch's kernels) as well as their
    # context.
    _WARM_BYTES = 4 << 20

    def __init__(self, provider, rfd, wfd, standbys=0):
        import mmap
        self.p = provider
        self.rfd, self.wfd = rfd, wfd
        self.page = mmap.mmap(-1, self.WORDS.size)   # anonymous, shared with the children
        self.standbys = standbys
        self.waiting = []   # the standbys: (pid, the write end of its turn pipe), oldest first
        self.standby_pids = set()   # standbys not yet serving, reaped or not
        self.warm_page = mmap.mmap(-1, self._WARM_BYTES) if standbys else None

    # -- the child's side ----------------------------------------------------

    def running(self, buf):
        _, sequence, count = struct.unpack_from("<III", buf, 0)
        self.WORDS.pack_into(self.page, 0, self.RUNNING, sequence, count, -1, 0)

    def record(self, k, group):
        struct.pack_into("<qq", self.page, 24, k, group)

    def replying(self):
        struct.pack_into("<q", self.page, 0, self.REPLYING)

    def idle(self):
        struct.pack_into("<q", self.page, 0, self.IDLE)

    def keep_for_warming(self, buf, record):
        """[the serving child] Keeps a RUN with a record it answered OK, the
        first that fits (slot 0: its length; slot 1: the record)."""
        page = self.warm_page
        if page is None or struct.unpack_from("<q", page, 0)[0] or len(buf) > len(page) - 16:
            return
        page[16:16 + len(buf)] = bytes(buf)
        struct.pack_into("<q", page, 8, record)
        struct.pack_into("<q", page, 0, len(buf))   # the length last: a standby sees it whole

    def _warm_up(self):
        """[a standby] Runs the kept record once, if there is one yet. True
        once tried (a call that fails here, the device's context left whole,
        leaves the standby as it was)."""
        n = struct.unpack_from("<q", self.warm_page, 0)[0] if self.warm_page is not None else 0
        if not n:
            return False
        record = struct.unpack_from("<q", self.warm_page, 8)[0]
        try:
            self.p.warm_run(bytes(self.warm_page[16:16 + n]), record)
        except _DeviceLost:
            os._exit(1)   # its context is lost: not a standby
        return True

    def _child(self, turn_fd):
        """A child's life: a standby (`turn_fd`) makes its device context,
        runs the kept record once when there is one, and waits for its turn;
        then it answers messages until end of file."""
        code = 0
        try:
            for _, fd in self.waiting:   # the other standbys' pipes: theirs, not ours
                os.close(fd)
            if turn_fd is not None:
                import select
                self.p._array_impl.warm()
                warmed = False
                while True:
                    warmed = warmed or self._warm_up()
                    if select.select([turn_fd], [], [], None if warmed else 0.05)[0]:
                        break
                turn = os.read(turn_fd, 1)
                if not turn:   # the parent is done (or gone): never served
                    os._exit(0)
                os.close(turn_fd)
                if turn == b"F":
                    self.p._fault_seen = True
            self.p._fork_state = self
            self.p._serve_messages(self.rfd, self.wfd, self)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except BaseException:  # noqa: BLE001 (the child reports and exits; the parent decides)
            traceback.print_exc(file=sys.stderr)
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)

    # -- the parent's side ---------------------------------------------------

    def _fork(self, standby):
        turn_r = turn_w = None
        if standby:
            turn_r, turn_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            if standby:
                os.close(turn_w)
            self._child(turn_r)
        if standby:
            os.close(turn_r)
            self.waiting.append((pid, turn_w))
            self.standby_pids.add(pid)
        return pid

    def _next(self):
        """The child that serves next: the oldest standby, told its turn, else one forked now."""
        while self.waiting:
            pid, fd = self.waiting.pop(0)
            try:
                os.write(fd, b"F" if self.p._fault_seen else b"G")
                self.standby_pids.discard(pid)   # serving now
                return pid
            except OSError:   # it died waiting (reaped below as a standby's death)
                pass
            finally:
                os.close(fd)
        return self._fork(False)

    def _done(self):
        for _, fd in self.waiting:   # end of file: each standby exits
            os.close(fd)
        self.waiting = []

    def serve(self):
        idle_deaths = standby_deaths = 0
        active = None
        while True:
            if active is None:
                self.idle()
                active = self._next()
            while len(self.waiting) < self.standbys:
                self._fork(True)
            pid, status = os.waitpid(-1, 0)
            if pid != active:
                if pid not in self.standby_pids:   # a process of the module's own, not ours
                    continue
                # A standby died before its turn.
                self.standby_pids.discard(pid)
                for w, fd in [entry for entry in self.waiting if entry[0] == pid]:
                    os.close(fd)
                    self.waiting.remove((w, fd))
                if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
                    standby_deaths += 1
                    if standby_deaths == self._MAX_STANDBY_DEATHS:
                        sys.stderr.write("slotguard provider %s: %d standby children died before their turn (%s); "
                                         "the fork server keeps none\n"
                                         % (self.p.name, standby_deaths, _how_it_ended(status)))
                        self.standbys = 0
                        self._done()
                continue
            standby_deaths = 0
            active = None
            phase, sequence, count, record, group = self.WORDS.unpack_from(self.page, 0)
            if phase == self.IDLE:
                if os.WIFEXITED(status):
                    code = os.WEXITSTATUS(status)
                    if code == 0:
                        self._done()
                        return   # end of file or BYE
                    if code == _EXIT_DEVICE_LOST:   # it answered after a device fault: the next takes over
                        self.p._fault_seen = True
                        continue
                    self._done()
                    os._exit(code)   # a bad message, an error of its own: the provider ends
                idle_deaths += 1
                if idle_deaths >= self._MAX_IDLE_DEATHS:   # killed between messages, again and again
                    self._done()
                    os._exit(70)
                continue
            if phase == self.REPLYING:
                self._done()
                os._exit(70)   # died writing its reply: the stream cannot be trusted; slotguard restarts the provider
            idle_deaths = 0
            how = _how_it_ended(status)
            sys.stderr.write("slotguard provider %s: its process %s while running record %d of RUN %d; the fork "
                             "server answers the message and %s\n"
                             % (self.p.name, how, record, sequence,
                                "its standby takes over" if self.waiting else "forks another"))
            entries = []
            for k in range(count):
                if k == record:
                    entries.append((P.STATUS_ERROR, group, "the provider's process %s in this call" % how))
                else:
                    entries.append((P.STATUS_NOT_RUN, 0, "not run: the provider's process %s in another call"
                                    % how))
            P.write_frame(self.wfd, P.encode_results_head(entries, sequence))


def _how_it_ended(status):
    """'was killed by SIGSEGV (Segmentation fault)', 'exited with status 9'."""
    if os.WIFSIGNALED(status):
        import signal
        n = os.WTERMSIG(status)
        try:
            name = signal.Signals(n).name
        except ValueError:
            name = "signal %d" % n
        text = signal.strsignal(n) if hasattr(signal, "strsignal") else None
        return "was killed by %s%s" % (name, " (%s)" % text if text else "")
    return "exited with status %d" % os.WEXITSTATUS(status)


def _main(argv):
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0
    sys.stdout.write(__doc__.split("\n\n")[0] + "\n(python3 -m slotguard.provider --help for the API)\n")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
