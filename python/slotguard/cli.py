"""Run the slotguard CLI from Python (pytest-friendly).

    import slotguard

    def test_my_kernel_holds_the_curated_scenarios():
        slotguard.check(["scenarios/"], kernel_cmd="python3 my_provider.py")

    def test_my_kernel_survives_a_campaign():
        slotguard.fuzz(kernel_cmd="python3 my_provider.py", runs=20000, seed=1)

Both return a Result when slotguard exits 0 and raise otherwise: Failure
(exit 1: findings; the message's first line says what failed in one line,
then the failing scenarios with one line per cause, and for fuzz the
command that reproduces it and, when small, the minimized batch itself;
`.reproducer` is the minimized scenario's path), UsageError (exit 2: bad
input or usage), EnvironmentError (exit 3: no device, a CUDA error, a report
that cannot be written), each with slotguard's own error line and `.result`.
Their frames are hidden from pytest's tracebacks (__tracebackhide__): a
failure points at the test that called them.

The binary: `binary=`, else $SLOTGUARD, else `slotguard` next to the
Python interpreter, else on PATH, else build/slotguard of the checkout the
current folder is in, else of the source tree this package lives in
(find_binary()).
"""

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

__all__ = ["check", "fuzz", "replay", "find_binary", "BinaryNotFound", "Result", "SlotguardError", "Failure", "UsageError",
           "SlotguardEnvironmentError"]

EXIT_HOLDS = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2
EXIT_ENVIRONMENT = 3

_REPRODUCER = re.compile(r"^slotguard: fuzz: finding written to (.*); replay it with: (.+)$")

# What a fuzz campaign in pytest uses when fuzz() is given no `regressions`:
# the plugin's slotguard_regressions ini option (slotguard.pytest_plugin).
DEFAULTS = {"regressions": None}

# A minimized batch is printed inline in a Failure up to this size.
_INLINE_TOKENS = 64
_INLINE_CHARS = 2000


class Result(object):
    """What one slotguard run said."""

    def __init__(self, args, returncode, stdout, stderr, report=None):
        self.args = list(args)
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.report = report          # the parsed --json report, when one was asked for
        lines = stdout.splitlines()
        summary = [l for l in lines if l.startswith("slotguard:")]
        self.summary = summary[-1] if summary else ""
        self.reproducer = None
        self.replay_command = None   # a command that reproduces the fuzz finding (`slotguard replay ...`)
        for line in lines:
            m = _REPRODUCER.match(line)
            if m:
                self.reproducer = m.group(1)
                self.replay_command = m.group(2)
        if self.reproducer is None and isinstance(report, dict) and report.get("file"):
            self.reproducer = report["file"]
        if self.replay_command is None and isinstance(report, dict):
            for f in report.get("findings") or []:
                if isinstance(f, dict) and f.get("file") == self.reproducer and f.get("replay_command"):
                    self.replay_command = f["replay_command"]
        # fuzz: every distinct finding's reproducer (one with --keep-going
        # unless it found several), suppressed ones left out.
        self.reproducers = []
        if isinstance(report, dict) and isinstance(report.get("findings"), list):
            self.reproducers = [f["file"] for f in report["findings"] if f.get("file") and not f.get("suppressed_by")]

    @property
    def finding_lines(self):
        """The lines that say what went wrong: findings, FAIL and ERROR lines,
        and fuzz's finding line (not the `ok` lines or the summary)."""
        out = []
        for line in self.stdout.splitlines():
            if not line.strip() or line.startswith("ok    ") or line.startswith("slotguard: "):
                continue
            if line.startswith("fuzz: classification") or line.startswith("fuzz: operators never"):
                continue
            out.append(line)
        return out

    @property
    def causes(self):
        """One line per cause: each failing scenario's file with its groups'
        headlines ("x.json: group tail: request 1 (dummy) wrote slots 0-1 of
        block 0 (tokens 3-4); reference PAD"), and fuzz's ("group ..." of its
        reproducer)."""
        out, current = [], None
        for line in self.stdout.splitlines():
            m = re.match(r"^(FAIL|ok|supp|skip)  +(.*?) \(", line)
            if m:
                current = m.group(2) if m.group(1) == "FAIL" else None
                continue
            if line.startswith("  group ") and current is not None:
                out.append("%s: %s" % (current, line.strip()))
            elif line.startswith("fuzz: group "):
                out.append(line[len("fuzz: "):])
        return out

    @property
    def error_line(self):
        """slotguard's one-line error (stderr's last `slotguard: error:` line), or ''."""
        errs = [l for l in self.stderr.splitlines() if l.startswith("slotguard: error:")]
        if errs:
            return errs[-1]
        errs = [l for l in self.stdout.splitlines() if l.startswith("ERROR ")]
        return errs[-1] if errs else ""

    def __repr__(self):
        return "<slotguard Result exit %d: %s>" % (self.returncode, self.summary)


class SlotguardError(Exception):
    """slotguard exited with a code other than 0."""

    def __init__(self, message, result):
        Exception.__init__(self, message)
        self.result = result
        self.returncode = result.returncode
        self.reproducer = result.reproducer
        self.reproducers = result.reproducers


class Failure(SlotguardError, AssertionError):
    """Exit 1: findings (an AssertionError, so pytest reports it as a failed
    assertion). The message holds the finding lines; .reproducer the fuzz
    reproducer's path."""


class UsageError(SlotguardError):
    """Exit 2: bad input or usage (a scenario that does not load, an unknown
    flag, a provider that fails its handshake)."""


class SlotguardEnvironmentError(SlotguardError, EnvironmentError):
    """Exit 3: environment (no usable device, a CUDA error, a provider that
    fails a second handshake, a report that cannot be written)."""

    def __str__(self):
        return Exception.__str__(self)


class BinaryNotFound(FileNotFoundError):
    """No slotguard binary where find_binary() looks (the message lists each
    place). One cause for every test of a session: the pytest plugin reports
    it once."""


def _checkout_binaries(start):
    """build/slotguard of the checkout `start` is in: `start` and each folder
    above it, nearest first."""
    folder = os.path.abspath(start)
    while True:
        yield os.path.join(folder, "build", "slotguard")
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


def _is_binary(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_binary(binary=None):
    """The slotguard executable, the first of:

    1. `binary`, as given;
    2. $SLOTGUARD (it must be an executable file);
    3. `slotguard` next to the Python interpreter (a virtual environment's
       bin/, where `cp build/slotguard VENV/bin/` or `cmake --install build
       --prefix VENV` puts it);
    4. `slotguard` on PATH;
    5. build/slotguard of the checkout the current folder is in (the folder
       itself or one above it);
    6. build/slotguard of the source tree this package lives in (an editable
       install, or PYTHONPATH=python).

    Raises BinaryNotFound, naming every place it looked, when none is."""
    __tracebackhide__ = True
    looked = []
    if binary:
        return binary
    env = os.environ.get("SLOTGUARD")
    if env:
        if _is_binary(env) or (os.sep not in env and shutil.which(env)):
            return env
        raise BinaryNotFound("no slotguard binary: SLOTGUARD=%s is not an executable file; expected the path of "
                             "a built slotguard (build/slotguard after `make build`)" % env)
    looked.append("$SLOTGUARD (not set)")
    beside = os.path.join(os.path.dirname(sys.executable), "slotguard")
    if sys.executable and _is_binary(beside):
        return beside
    looked.append(beside)
    on_path = shutil.which("slotguard")
    if on_path:
        return on_path
    looked.append("slotguard on PATH")
    for candidate in _checkout_binaries(os.getcwd()):
        if _is_binary(candidate):
            return candidate
    looked.append("build/slotguard in %s and the folders above it" % os.getcwd())
    here = os.path.dirname(os.path.abspath(__file__))        # python/slotguard
    tree = os.path.normpath(os.path.join(here, "..", "..", "build", "slotguard"))
    if _is_binary(tree):
        return tree
    looked.append(tree)
    raise BinaryNotFound("no slotguard binary; looked at %s. Build it with `make build` in a slotguard checkout, "
                         "then run from that checkout, set SLOTGUARD=/path/to/build/slotguard, or copy it next to "
                         "this Python (%s)" % (", ".join(looked), os.path.dirname(sys.executable)))


def _shorten(lines, limit=60):
    if len(lines) <= limit:
        return lines
    return lines[:limit] + ["... %d more lines" % (len(lines) - limit)]


_MAX_REPORT_BYTES = 1 << 30


def _file_state(path):
    """(device, inode, size, mtime) of a regular file at `path`, or None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else None


def _read_report(path, before):
    """The JSON report slotguard wrote at `path` in this run, or None: only a
    regular file (opened without blocking, checked with fstat, so a FIFO or a
    device is never read), bounded in size, and one this run wrote (not the
    file that was there before, when slotguard refused the path)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_REPORT_BYTES:
            return None
        if before is not None and before == (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns):
            return None  # not written by this run
        with os.fdopen(fd, "rb") as f:
            fd = None
            data = f.read(_MAX_REPORT_BYTES + 1)
        return json.loads(data.decode("utf-8", "replace"))
    except ValueError:
        return None
    finally:
        if fd is not None:
            os.close(fd)


def _communicate(argv, cwd, env, timeout):
    """Runs slotguard with its output in temporary files, not pipes: a
    process it started (a provider's child) that keeps them open cannot make
    this wait; decodes with errors="replace" (a provider's log may hold any
    bytes). On `timeout`, SIGTERM first (slotguard kills its providers'
    process groups), then SIGKILL, then subprocess.TimeoutExpired."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd, env=env)
        try:
            returncode = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            raise
        texts = []
        for f in (out, err):
            f.seek(0)
            texts.append(f.read().decode("utf-8", "replace"))
    return returncode, texts[0], texts[1]


def _with_binary(command, exe):
    """`slotguard replay ...` with the binary this package ran, so that it
    runs as copied."""
    import shlex
    if command.startswith("slotguard ") and exe != "slotguard":
        return shlex.quote(exe) + command[len("slotguard"):]
    return command


def _inline_batch(path):
    """A small reproducer's batch and groups, a few lines to read in the
    failure itself; [] when it is large or cannot be read."""
    if not path:
        return []
    try:
        with open(path) as f:
            doc = json.load(f)
        batch = doc["batch"]
        if int(batch.get("num_tokens", len(batch.get("positions", [])))) > _INLINE_TOKENS:
            return []
        compact = lambda v: json.dumps(v, separators=(", ", ": "))
        lines = ["minimized batch (%d requests, %d tokens, num_blocks %d):" % (
                     len(batch["query_start_loc"]) - 1, batch.get("num_tokens", 0), doc.get("num_blocks", 0)),
                 "  batch " + compact(batch)]
        for g in doc["groups"]:
            rest = {k: v for k, v in g.items() if k != "name"}
            lines.append("  group %s %s" % (g["name"], compact(rest)))
        if sum(len(l) for l in lines) > _INLINE_CHARS:
            return []
        return lines
    except (OSError, ValueError, KeyError, TypeError):
        return []


def _failure_message(subcommand, result, exe):
    """One line that says what failed first (what pytest's short summary
    shows), then the failing scenarios with a line per cause, how to
    reproduce it, the minimized batch when small, and the summary."""
    lines = result.stdout.splitlines()
    causes = result.causes
    if subcommand == "fuzz":
        again = [l for l in lines if re.match(r"^slotguard: fuzz: \d+ of \d+ regressions", l)]
        first = causes[0] if causes else (result.finding_lines[0] if result.finding_lines else "")
        if again:
            head = "slotguard fuzz: %s" % again[0][len("slotguard: fuzz: "):].split(" (above)")[0]
        else:
            head = "slotguard fuzz found a bug"
        if first:
            head += ": " + first
    else:
        fails = [l for l in lines if l.startswith("FAIL  ")]
        runs = re.search(r"(\d+) scenario runs", result.summary)
        head = "slotguard %s: %d of %s scenario runs fail" % (subcommand, len(fails), runs.group(1) if runs else "1")
        if causes:
            head += ": " + causes[0]
        elif fails:
            head += ": " + fails[0][len("FAIL  "):]
    body = []
    if result.replay_command:
        body.append("reproduce it with: " + _with_binary(result.replay_command, exe))
    body += _inline_batch(result.reproducer)
    body += _shorten(result.finding_lines)
    if result.summary:
        body.append(result.summary)
    return "\n".join([head] + body)


def _run(subcommand, args, json_path, binary, cwd, env, timeout, check_exit):
    __tracebackhide__ = True  # a failure points at the test, not at this package
    exe = find_binary(binary)
    argv = [exe, subcommand] + [str(a) for a in args]
    where = os.path.join(cwd, json_path) if json_path and cwd else json_path
    before = _file_state(where) if where else None
    returncode, stdout, stderr = _communicate(argv, cwd, env, timeout)
    # slotguard refuses a report path that is not a regular file (exit 2);
    # whatever is there is read back only if this run wrote it.
    report = _read_report(where, before) if where else None
    result = Result(argv, returncode, stdout, stderr, report)
    if not check_exit or returncode == EXIT_HOLDS:
        return result
    cmd = " ".join(argv)
    if returncode == EXIT_FINDINGS:
        raise Failure(_failure_message(subcommand, result, exe), result)
    err = result.error_line or (stderr.strip().splitlines() or [""])[-1]
    if returncode == EXIT_BAD_INPUT:
        raise UsageError("%s (exit 2: bad input or usage; command: %s)" % (err, cmd), result)
    if returncode == EXIT_ENVIRONMENT:
        raise SlotguardEnvironmentError("%s (exit 3: environment; command: %s)" % (err, cmd), result)
    raise SlotguardError("slotguard exited with %d: %s (command: %s)" % (returncode, err, cmd), result)


def _json_arg(extra_args):
    extra = [str(a) for a in extra_args]
    for i, a in enumerate(extra):
        if a == "--json" and i + 1 < len(extra):
            return extra[i + 1]
        if a.startswith("--json="):
            return a[len("--json="):]
    return None


def _common(kernel_cmd, backend, suppressions=None):
    args = []
    # None leaves a flag out; an empty value goes to the binary, which
    # refuses it (exit 2) rather than running without it.
    if backend is not None:
        args += ["--backend", backend]
    if kernel_cmd is not None:
        args += ["--kernel-cmd", kernel_cmd]
    if suppressions is not None:
        args += ["--suppressions", os.fspath(suppressions)]
    return args


def check(paths, kernel_cmd=None, backend="host", extra_args=(), binary=None, cwd=None, env=None, timeout=None,
          raise_on_failure=True, suppressions=None):
    """`slotguard check [--backend B] [--kernel-cmd CMD] [--suppressions F] EXTRA PATHS`.

    Returns a Result (returncode, stdout, stderr, summary, report when
    extra_args has --json FILE); raises Failure / UsageError /
    EnvironmentError for exit 1 / 2 / 3 unless raise_on_failure is False."""
    __tracebackhide__ = True
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    args = _common(kernel_cmd, backend, suppressions) + [str(a) for a in extra_args] + [os.fspath(p) for p in paths]
    return _run("check", args, _json_arg(extra_args), binary, cwd, env, timeout, raise_on_failure)


def replay(path, kernel_cmd=None, backend="host", extra_args=(), binary=None, cwd=None, env=None, timeout=None,
           raise_on_failure=True):
    """`slotguard replay FILE` (same conventions as check). A fuzz reproducer
    records the implementation it was found with: with kernel_cmd None and
    backend None, replay runs that one."""
    __tracebackhide__ = True
    args = _common(kernel_cmd, backend) + [str(a) for a in extra_args] + [os.fspath(path)]
    return _run("replay", args, _json_arg(extra_args), binary, cwd, env, timeout, raise_on_failure)


def fuzz(kernel_cmd=None, backend="host", time=None, runs=None, seed=None, families=(), out=None, extra_args=(),
         binary=None, cwd=None, env=None, timeout=None, raise_on_failure=True, keep_going=False, suppressions=None,
         regressions=None):
    """`slotguard fuzz` with a JSON summary (result.report).

    time/runs bound the campaign (slotguard's default without either is 60 s);
    families: --family for each; out: the reproducer directory (default: a
    new temporary directory, kept when there is a finding); keep_going:
    --keep-going (every distinct finding, `.reproducers` lists their files);
    suppressions: a --suppressions file; regressions: a folder of past
    reproducers, replayed before the campaign, the new ones added to it
    (default: the pytest plugin's slotguard_regressions, when set). On a
    finding no suppression covers raises Failure: its first line the
    finding in one line, then the command that reproduces it and the
    minimized batch when small; `.reproducer` is the first minimized
    scenario file, `.result.replay_command` that command."""
    __tracebackhide__ = True
    if isinstance(families, str):
        families = [families]
    if regressions is None:
        regressions = DEFAULTS["regressions"]
    args = _common(kernel_cmd, backend, suppressions)
    if regressions:
        args += ["--regressions", os.fspath(regressions)]
    if keep_going:
        args += ["--keep-going"]
    if time is not None:
        args += ["--time", str(time)]
    if runs is not None:
        args += ["--runs", str(runs)]
    if seed is not None:
        args += ["--seed", str(seed)]
    for f in families:
        args += ["--family", f]
    made_out = out is None
    if made_out:
        out = tempfile.mkdtemp(prefix="slotguard-fuzz-")
    args += ["--out", os.fspath(out)]
    extra = [str(a) for a in extra_args]
    json_path = _json_arg(extra)
    tmp_json = None
    if json_path is None:
        fd, tmp_json = tempfile.mkstemp(prefix="slotguard-fuzz-", suffix=".json")
        os.close(fd)
        os.unlink(tmp_json)
        json_path = tmp_json
        extra += ["--json", json_path]
    try:
        return _run("fuzz", args + extra, json_path, binary, cwd, env, timeout, raise_on_failure)
    finally:
        if tmp_json and os.path.exists(tmp_json):
            os.unlink(tmp_json)
        if made_out and os.path.isdir(out) and not os.listdir(out):
            os.rmdir(out)
