"""slotguard in pytest, as Hypothesis is: one test per scenario, failures that
point at the test, and a folder of past reproducers replayed first.

Registered by the `pytest11` entry point when the package is installed
(`pip install ./python`); from a source tree, `-p slotguard.pytest_plugin`
or `pytest_plugins = ["slotguard.pytest_plugin"]` in a conftest.py. The
entry point bears the module's name, so any of these together register it
once.

    import pytest
    import slotguard

    KERNEL = "python3 my_provider.py"

    @pytest.mark.slotguard_scenarios("scenarios/", kernel_cmd=KERNEL)
    def test_curated(slotguard_scenario):      # one test per scenario file, named by its path
        slotguard_scenario.check()

    def test_campaign():                       # replays the regressions folder first
        slotguard.fuzz(kernel_cmd=KERNEL, runs=20000, seed=1)

The marker takes the scenario files or folders (searched for *.json,
relative to the rootdir, else to the test's file; none is a usage error)
and what check() takes (kernel_cmd, backend, extra_args, binary). Its tests
share one `slotguard check --json` run of all its scenarios, made when the
first of them calls .check(): a folder costs one check, not one per file.
A set-up error (no slotguard binary, a provider that fails its handshake)
is reported once, by the first test it stops, without a traceback; the
other tests it stops are skipped, naming that test. A failure's first line says what
failed in one line (pytest's short summary shows it), slotguard's own frames
are hidden, and a fuzz finding shows the command that reproduces it and,
when small, the minimized batch.

ini options (pytest.ini, or [tool.pytest.ini_options] in pyproject.toml):

    slotguard_regressions = .slotguard/regressions   # default for every fuzz(): past reproducers,
                                                     # replayed first; new ones added

or `--slotguard-regressions DIR` on the command line.
"""

import os
import re
import tempfile

import pytest

from . import cli

__all__ = ["ScenarioCase"]

_MARKER = ("slotguard_scenarios(*paths, kernel_cmd=None, backend='host', extra_args=(), binary=None): "
           "one test per scenario file under the paths, through the slotguard_scenario fixture; the tests of "
           "one marker share one `slotguard check` run")

_OPTIONS = ("kernel_cmd", "backend", "extra_args", "binary")


class _SetUpError(Exception):
    """slotguard could not run at all for a marker's scenarios (no binary, a
    provider that fails its handshake, no device): one cause for every test
    of that marker, which the plugin reports once."""

    def __init__(self, message, key):
        Exception.__init__(self, message)
        self.slotguard_set_up_key = key


class _SharedCheck(object):
    """One `slotguard check --json` run for every scenario of a marker (its
    paths and arguments), made when the first of its tests calls .check();
    each test then reads its own scenario's outcome from the report."""

    def __init__(self, paths, options):
        self.paths = list(paths)          # the marker's paths, resolved
        self.options = dict(options)
        self.done = False
        self.error = None                 # a _SetUpError
        self.result = None                # the run's cli.Result
        self.entries = {}                 # realpath -> [report entries]
        self.lines = {}                   # realpath -> [console lines]

    def run(self):
        __tracebackhide__ = True
        if self.done:
            return
        self.done = True
        extra = [str(a) for a in self.options.get("extra_args", ())]
        json_path = cli._json_arg(extra)
        tmp = None
        if json_path is None:
            fd, tmp = tempfile.mkstemp(prefix="slotguard-check-", suffix=".json")
            os.close(fd)
            os.unlink(tmp)
            json_path = tmp
            extra += ["--json", json_path]
        options = dict(self.options, extra_args=extra)
        try:
            self.result = cli.check(self.paths, raise_on_failure=False, **options)
        except cli.BinaryNotFound as e:
            self.error = _SetUpError(str(e), ("binary", str(e)))
            return
        finally:
            if tmp and os.path.exists(tmp):
                os.unlink(tmp)
        report = self.result.report
        scenarios = report.get("scenarios") if isinstance(report, dict) else None
        if self.result.returncode not in (0, 1, 2, 3) or not scenarios:
            r = self.result
            why = r.error_line or (r.stderr.strip().splitlines() or [r.summary or ""])[-1]
            self.error = _SetUpError("slotguard check could not check the scenarios of this marker: %s (exit %d; "
                                     "command: %s)" % (why, r.returncode, " ".join(r.args)), ("run", id(self)))
            return
        for e in scenarios:
            self.entries.setdefault(os.path.realpath(str(e.get("file"))), []).append(e)
        current = None
        for line in self.result.stdout.splitlines():
            m = re.match(r"^(?:FAIL|ok|supp|skip|ERROR) +(.*?)(?: \(|: |$)", line)
            if m and not line.startswith(" "):
                current = os.path.realpath(m.group(1))
                self.lines.setdefault(current, []).append(line)
            elif line.startswith("  ") and current is not None:
                self.lines[current].append(line)
            else:
                current = None

    def outcome(self, path):
        """The scenario's Result (returncode 0: it holds or was skipped);
        raises as cli.check would for that file alone."""
        __tracebackhide__ = True
        self.run()
        if self.error is not None:
            raise self.error
        r = self.result
        key = os.path.realpath(path)
        entries = self.entries.get(key, [])
        lines = self.lines.get(key, [])
        command = " ".join(r.args)
        if not entries:
            raise cli.UsageError("slotguard check's report has no entry for %s (command: %s)" % (path, command),
                                 cli.Result(r.args, 2, "\n".join(lines), r.stderr, r.report))
        env = [e for e in entries if e.get("status") == "environment_error"]
        bad = [e for e in entries if e.get("status") == "bad_input"]
        fails = [e for e in entries if e.get("status") == "checked" and e.get("holds") is False]
        code = 1 if fails else 3 if env else 2 if bad else 0
        result = cli.Result(r.args, code, "\n".join(lines) + ("\n" if lines else ""), r.stderr, r.report)
        result.scenarios = entries
        if code == 0:
            return result
        if fails:
            causes = ["%s: group %s: %s" % (path, g.get("name"), g.get("cause"))
                      for e in fails for g in (e.get("groups") or []) if g.get("cause")]
            head = "slotguard check: %d of %d scenario runs fail: %s" % (
                len(fails), len(entries), causes[0] if causes else lines[0][len("FAIL  "):] if lines else path)
            body = lines + ["(one slotguard check for the %d scenario files of this marker: %s)"
                            % (len(self.entries), command)]
            raise cli.Failure("\n".join([head] + body), result)
        first = (env or bad)[0]
        what = "%s: %s" % (path, first.get("error"))
        if env:
            raise cli.SlotguardEnvironmentError("%s (exit 3: environment; command: %s)" % (what, command), result)
        raise cli.UsageError("%s (exit 2: bad input or usage; command: %s)" % (what, command), result)


class ScenarioCase(object):
    """One scenario file of a slotguard_scenarios marker: what the
    slotguard_scenario fixture gives each test."""

    def __init__(self, path, kernel_cmd=None, backend="host", extra_args=(), binary=None, shared=None):
        self.path = path                # the scenario file
        self.kernel_cmd = kernel_cmd    # --kernel-cmd, or None for slotguard's own kernels
        self.backend = backend          # --backend
        self.extra_args = tuple(extra_args)
        self.binary = binary
        self._shared = shared           # the marker's one check run

    def check(self, **kwargs):
        """This scenario's outcome in the one `slotguard check` run of the
        marker's scenarios (made by the first test that asks); with kwargs,
        `slotguard check FILE` alone with the marker's arguments so
        overridden. Returns a Result; raises slotguard.Failure when the
        scenario does not hold (UsageError, EnvironmentError as check())."""
        __tracebackhide__ = True
        if not kwargs and self._shared is not None:
            return self._shared.outcome(self.path)
        args = dict(kernel_cmd=self.kernel_cmd, backend=self.backend, extra_args=self.extra_args,
                    binary=self.binary)
        args.update(kwargs)
        return cli.check([self.path], **args)

    def replay(self, **kwargs):
        """`slotguard replay FILE` with the marker's arguments."""
        __tracebackhide__ = True
        args = dict(kernel_cmd=self.kernel_cmd, backend=self.backend, extra_args=self.extra_args,
                    binary=self.binary)
        args.update(kwargs)
        return cli.replay(self.path, **args)

    def __repr__(self):
        return "<slotguard scenario %s>" % self.path


def pytest_addoption(parser):
    parser.addini("slotguard_regressions",
                  "slotguard: a folder of past reproducers, replayed before every slotguard.fuzz() campaign; "
                  "new reproducers are added to it (relative to the rootdir)", default="")
    parser.getgroup("slotguard").addoption(
        "--slotguard-regressions", dest="slotguard_regressions", default=None, metavar="DIR",
        help="a folder of past reproducers, replayed before every slotguard.fuzz() campaign (overrides the ini)")


def pytest_configure(config):
    config.addinivalue_line("markers", _MARKER)
    folder = config.getoption("slotguard_regressions") or config.getini("slotguard_regressions")
    config._slotguard_saved = dict(cli.DEFAULTS)
    if folder:
        cli.DEFAULTS["regressions"] = os.path.join(str(config.rootpath), folder)


def pytest_unconfigure(config):
    saved = getattr(config, "_slotguard_saved", None)
    if saved is not None:
        cli.DEFAULTS.clear()
        cli.DEFAULTS.update(saved)


def _scenario_files(path, base_dirs):
    """The *.json files at or under `path`, sorted, the folder their test ids
    are relative to, and the path itself, resolved."""
    for base in base_dirs:
        full = os.path.join(base, path)
        if os.path.isfile(full):
            return [full], os.path.dirname(full), full
        if os.path.isdir(full):
            found = []
            for top, _, names in os.walk(full):
                found += [os.path.join(top, n) for n in names if n.endswith(".json")]
            return sorted(found), full, full
    return [], None, None


def pytest_generate_tests(metafunc):
    if "slotguard_scenario" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("slotguard_scenarios")
    if marker is None:
        return  # the fixture says what is missing
    options = dict(marker.kwargs)
    unknown = set(options) - set(_OPTIONS)
    if unknown:
        pytest.fail("slotguard_scenarios: unknown argument %r; expected kernel_cmd, backend, extra_args, binary"
                    % sorted(unknown)[0], pytrace=False)
    if not marker.args:
        pytest.fail("slotguard_scenarios on %s: no paths; expected one or more scenario files or folders, as "
                    "@pytest.mark.slotguard_scenarios(\"scenarios/\")" % metafunc.definition.nodeid, pytrace=False)
    bases = [str(metafunc.config.rootpath), os.path.dirname(str(metafunc.definition.fspath))]
    found = []
    for path in marker.args:
        files, base, full = _scenario_files(str(path), bases)
        if not files:
            pytest.fail("slotguard_scenarios: no *.json scenario file at %r (relative to %s)"
                        % (str(path), " or ".join(bases)), pytrace=False)
        found.append((files, base, full))
    # The tests of markers with the same paths and arguments share one run.
    key = (tuple(full for _, _, full in found),
           tuple((k, tuple(v) if k == "extra_args" else v) for k, v in sorted(options.items())))
    groups = metafunc.config.__dict__.setdefault("_slotguard_checks", {})
    if key not in groups:
        groups[key] = _SharedCheck([full for _, _, full in found], options)
    cases, ids = [], []
    for files, base, _ in found:
        for f in files:
            cases.append(ScenarioCase(f, shared=groups[key], **options))
            ids.append(os.path.relpath(f, base))
    metafunc.parametrize("slotguard_scenario", cases, ids=ids)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A set-up error (no binary, a marker's check that could not run) is
    reported once, by the first test it stops, as one message with no
    traceback; every later test it stops is skipped, naming that test."""
    outcome = yield
    report = outcome.get_result()
    excinfo = call.excinfo
    if excinfo is None or report.outcome != "failed":
        return
    key = getattr(excinfo.value, "slotguard_set_up_key", None)
    if key is None and isinstance(excinfo.value, cli.BinaryNotFound):
        key = ("binary", str(excinfo.value))
    if key is None:
        return
    seen = item.config.__dict__.setdefault("_slotguard_set_up_errors", {})
    message = "slotguard: %s" % excinfo.value
    if key not in seen:
        seen[key] = item.nodeid
        report.longrepr = message
        return
    path, line, _ = item.location
    report.outcome = "skipped"
    report.longrepr = (str(item.config.rootpath / path), (line or 0) + 1,
                       "not run: slotguard's set-up error, reported once by %s" % seen[key])


@pytest.fixture
def slotguard_scenario():
    """One scenario file of the test's @pytest.mark.slotguard_scenarios(...)
    (a ScenarioCase: .path, .check(), .replay())."""
    pytest.fail("slotguard_scenario needs @pytest.mark.slotguard_scenarios(PATH, ...) on the test", pytrace=False)


@pytest.fixture
def slotguard_regressions():
    """The regressions folder every slotguard.fuzz() of this session replays
    first (ini slotguard_regressions), or None."""
    return cli.DEFAULTS.get("regressions")
