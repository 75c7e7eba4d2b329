"""slotguard in pytest, as Hypothesis is: one test per scenario, failures that
point at the test, and a folder of past reproducers replayed first.

Registered by the `pytest11` entry point when the package is installed
(`pip install ./python`); from a source tree, `-p slotguard.pytest_plugin`
or `pytest_plugins = ["slotguard.pytest_plugin"]` in a conftest.py.

    import pytest
    import slotguard

    KERNEL = "python3 my_provider.py"

    @pytest.mark.slotguard_scenarios("scenarios/", kernel_cmd=KERNEL)
    def test_curated(slotguard_scenario):      # one test per scenario file, named by its path
        slotguard_scenario.check()

    def test_campaign():                       # replays the regressions folder first
        slotguard.fuzz(kernel_cmd=KERNEL, runs=20000, seed=1)

The marker takes the scenario files or folders (searched for *.json,
relative to the rootdir, else to the test's file) and what check() takes
(kernel_cmd, backend, extra_args, binary). A failure's first line says what
failed in one line (pytest's short summary shows it), slotguard's own frames
are hidden, and a fuzz finding shows the command that reproduces it and,
when small, the minimized batch.

ini options (pytest.ini, or [tool.pytest.ini_options] in pyproject.toml):

    slotguard_regressions = .slotguard/regressions   # default for every fuzz(): past reproducers,
                                                     # replayed first; new ones added

or `--slotguard-regressions DIR` on the command line.
"""

import os

import pytest

from . import cli

__all__ = ["ScenarioCase"]

_MARKER = ("slotguard_scenarios(*paths, kernel_cmd=None, backend='host', extra_args=(), binary=None): "
           "one test per scenario file under the paths, through the slotguard_scenario fixture")


class ScenarioCase(object):
    """One scenario file of a slotguard_scenarios marker: what the
    slotguard_scenario fixture gives each test."""

    def __init__(self, path, kernel_cmd=None, backend="host", extra_args=(), binary=None):
        self.path = path                # the scenario file
        self.kernel_cmd = kernel_cmd    # --kernel-cmd, or None for slotguard's own kernels
        self.backend = backend          # --backend
        self.extra_args = tuple(extra_args)
        self.binary = binary

    def check(self, **kwargs):
        """`slotguard check FILE` with the marker's arguments (kwargs
        override them); raises slotguard.Failure when it does not hold."""
        __tracebackhide__ = True
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
    """The *.json files at or under `path`, sorted, and the folder their test
    ids are relative to."""
    for base in base_dirs:
        full = os.path.join(base, path)
        if os.path.isfile(full):
            return [full], os.path.dirname(full)
        if os.path.isdir(full):
            found = []
            for top, _, names in os.walk(full):
                found += [os.path.join(top, n) for n in names if n.endswith(".json")]
            return sorted(found), full
    return [], None


def pytest_generate_tests(metafunc):
    if "slotguard_scenario" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("slotguard_scenarios")
    if marker is None:
        return  # the fixture says what is missing
    options = dict(marker.kwargs)
    unknown = set(options) - {"kernel_cmd", "backend", "extra_args", "binary"}
    if unknown:
        raise pytest.UsageError("slotguard_scenarios: unknown argument %r; expected kernel_cmd, backend, extra_args, "
                                "binary" % sorted(unknown)[0])
    bases = [str(metafunc.config.rootpath), os.path.dirname(str(metafunc.definition.fspath))]
    cases, ids = [], []
    for path in marker.args:
        files, base = _scenario_files(str(path), bases)
        if not files:
            raise pytest.UsageError("slotguard_scenarios: no *.json scenario file at %r (relative to %s)"
                                    % (str(path), " or ".join(bases)))
        for f in files:
            cases.append(ScenarioCase(f, **options))
            ids.append(os.path.relpath(f, base))
    metafunc.parametrize("slotguard_scenario", cases, ids=ids)


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
