"""The pytest plugin (slotguard.pytest_plugin), run by pytester in a pytest
of its own: one test per scenario through the slotguard_scenarios marker,
failures that point at the test (slotguard's frames hidden) and say what
failed in their first line, and the regressions folder replayed before a
campaign."""
import json
import os
import shutil

import pytest

from conftest import ROOT

pytest_plugins = ["pytester"]


@pytest.fixture
def session(pytester, binary, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.path.join(ROOT, "python"))
    monkeypatch.setenv("SLOTGUARD", os.path.abspath(binary))
    monkeypatch.setenv("CI", "1")  # pytest's short summary lines unshortened
    cases = pytester.path / "cases"
    cases.mkdir()
    shutil.copy(os.path.join(ROOT, "scenarios", "paged", "decode.json"), str(cases / "holds.json"))
    bad = json.load(open(os.path.join(ROOT, "scenarios", "paged", "mutants", "dummy-reads-row.json")))
    del bad["expect"]
    (cases / "fails.json").write_text(json.dumps(bad))
    return pytester


def run(pytester, *args):
    return pytester.runpytest_subprocess("-p", "slotguard.pytest_plugin", "-p", "no:cacheprovider", *args)


TEST_SCENARIOS = """
import pytest

@pytest.mark.slotguard_scenarios("cases", backend="host")
def test_scenario(slotguard_scenario):
    slotguard_scenario.check()
"""


def test_one_test_per_scenario_whose_failure_says_what_failed_first(session):
    session.makepyfile(test_s=TEST_SCENARIOS)
    r = run(session, "-rf", "--tb=short")
    r.assert_outcomes(passed=1, failed=1)
    out = r.stdout.str()
    assert "test_s.py::test_scenario[fails.json] FAILED" in out or "test_scenario[fails.json]" in out
    # The short summary: the one line, who wrote block 0.
    summary = [l for l in r.stdout.lines if l.startswith("FAILED test_s.py::test_scenario[fails.json]")]
    assert summary and summary[0].endswith(
        "slotguard check: 1 of 1 scenario runs fail: %s: group attn: request 1 (dummy) wrote slots 0-1 of block 0 "
        "(tokens 3-4); reference PAD" % (session.path / "cases" / "fails.json")), summary


def test_the_failure_points_at_the_test_not_at_slotguard(session):
    session.makepyfile(test_s=TEST_SCENARIOS)
    r = run(session, "--tb=line")
    lines = [l for l in r.stdout.lines if "Failure: slotguard check:" in l]
    # The test's own line: `slotguard_scenario.check()`, line 5 of the file.
    assert lines and lines[0].startswith(str(session.path / "test_s.py") + ":5: "), r.stdout.str()
    r = run(session, "--tb=long")
    out = r.stdout.str()
    assert "def test_scenario(slotguard_scenario):" in out
    assert "slotguard/cli.py" not in out and "def _run(" not in out and "pytest_plugin.py" not in out, out


def test_a_marker_without_scenarios_and_a_fixture_without_a_marker_say_so(session):
    session.makepyfile(test_s="""
import pytest

@pytest.mark.slotguard_scenarios("nowhere")
def test_a(slotguard_scenario):
    pass

def test_b(slotguard_scenario):
    pass
""")
    r = run(session)
    assert "slotguard_scenarios: no *.json scenario file at 'nowhere'" in r.stdout.str() + r.stderr.str()
    session.makepyfile(test_s="def test_b(slotguard_scenario):\n    pass\n")
    r = run(session)
    r.assert_outcomes(errors=1)
    assert "slotguard_scenario needs @pytest.mark.slotguard_scenarios(PATH, ...) on the test" in r.stdout.str()


def test_a_marker_without_paths_is_an_error_not_a_skipped_test(session):
    session.makepyfile(test_s="""
import pytest

@pytest.mark.slotguard_scenarios(backend="host")
def test_a(slotguard_scenario):
    slotguard_scenario.check()
""")
    r = run(session, "-rs")
    assert r.ret == 2, r.stdout.str()  # interrupted: an error during collection
    out = r.stdout.str() + r.stderr.str()
    assert "slotguard_scenarios on test_s.py::test_a: no paths; expected one or more scenario files or folders" in out
    assert "skipped" not in r.stdout.lines[-1], r.stdout.lines[-1]


def _counting_binary(session, binary):
    """A wrapper that logs each slotguard command, then runs the real binary."""
    log = session.path / "calls.log"
    wrapper = session.path / "slotguard-wrapper"
    wrapper.write_text('#!/bin/sh\necho "$1" >> "%s"\nexec "%s" "$@"\n' % (log, os.path.abspath(binary)))
    wrapper.chmod(0o755)
    return str(wrapper), log


def test_the_tests_of_a_marker_share_one_check_run(session, binary, monkeypatch):
    wrapper, log = _counting_binary(session, binary)
    monkeypatch.setenv("SLOTGUARD", wrapper)
    for name in ("a", "b", "c"):
        shutil.copy(os.path.join(ROOT, "scenarios", "paged", "decode.json"), str(session.path / "cases" / (name + ".json")))
    session.makepyfile(test_s=TEST_SCENARIOS + """

@pytest.mark.slotguard_scenarios("cases/holds.json", backend="host")
def test_alone(slotguard_scenario):
    r = slotguard_scenario.check(extra_args=["-v"])   # arguments overridden: a check of its own
    assert r.returncode == 0
""")
    r = run(session, "-rf", "--tb=short")
    r.assert_outcomes(passed=5, failed=1)
    # The five scenarios of test_scenario: one check; test_alone's own: one more.
    assert log.read_text().split() == ["check", "check"], log.read_text()
    # The failing one still says what failed, in one line, from the shared run.
    summary = [l for l in r.stdout.lines if l.startswith("FAILED test_s.py::test_scenario[fails.json]")]
    assert summary and summary[0].endswith(
        "slotguard check: 1 of 1 scenario runs fail: %s: group attn: request 1 (dummy) wrote slots 0-1 of block 0 "
        "(tokens 3-4); reference PAD" % (session.path / "cases" / "fails.json")), summary
    assert "FAIL  %s (paged-dummy-reads-row)" % (session.path / "cases" / "fails.json") in r.stdout.str()


def test_a_set_up_error_is_reported_once(session, monkeypatch):
    monkeypatch.setenv("SLOTGUARD", str(session.path / "no-such-slotguard"))
    session.makepyfile(test_s=TEST_SCENARIOS + """
import slotguard

def test_direct_one():
    slotguard.check(["cases"])

def test_direct_two():
    slotguard.fuzz(runs=10)
""")
    r = run(session, "-rfs")
    # Four tests stopped by one cause: reported by the first, the rest skipped naming it.
    r.assert_outcomes(failed=1, skipped=3)
    out = r.stdout.str()
    assert out.count("is not an executable file") == 1, out
    assert "not run: slotguard's set-up error, reported once by test_s.py::test_scenario[fails.json]" in out, out
    assert "Traceback" not in out and "slotguard/cli.py" not in out and "def find_binary" not in out, out
    assert len(r.stdout.lines) < 40, out


def test_the_plugin_loads_once_from_the_entry_point_and_from_p(session, monkeypatch):
    """An installed package's entry point beside -p slotguard.pytest_plugin
    (the tests' way, and a conftest's): registered once, the tests run."""
    import sys
    sys.path.insert(0, os.path.join(ROOT, "python", "build_backend"))
    try:
        import slotguard_build
    finally:
        sys.path.pop(0)
    site = session.path / "site"
    info = site / "slotguard_entry-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: slotguard-entry\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(slotguard_build._entry_points(slotguard_build.read_pyproject()))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), os.environ["PYTHONPATH"]]))
    session.makepyfile(test_s=TEST_SCENARIOS)
    session.makeconftest('pytest_plugins = ["slotguard.pytest_plugin"]\n')
    for args in ([], ["-p", "slotguard.pytest_plugin"]):
        r = session.runpytest_subprocess("-p", "no:cacheprovider", *args)
        out = r.stdout.str() + r.stderr.str()
        assert "already registered" not in out, out
        r.assert_outcomes(passed=1, failed=1)


def test_the_regressions_folder_is_replayed_before_each_campaign(session):
    session.makeini("[pytest]\nslotguard_regressions = regs\n")
    session.makepyfile(test_f="""
import slotguard

def test_campaign(tmp_path, slotguard_regressions):
    assert slotguard_regressions.endswith("regs")
    slotguard.fuzz(families=["kpool_tail"], extra_args=["--variant", "prefix"], runs=200, out=str(tmp_path))
""")
    r = run(session, "-rf")
    r.assert_outcomes(failed=1)
    added = sorted(os.listdir(str(session.path / "regs")))
    assert len(added) == 1 and added[0].startswith("fuzz-prefix-null_block-"), added
    # The failure: the bug in one line, how to reproduce it, the batch.
    out = r.stdout.str()
    assert "slotguard fuzz found a bug: group kpool_tail: " in out
    assert "reproduce it with: " in out and "minimized batch (1 requests, 1 tokens" in out, out
    # Again: the bug is found by its reproducer first, and no campaign runs.
    r = run(session, "-rf")
    r.assert_outcomes(failed=1)
    assert ("slotguard fuzz: 1 of 1 regressions from %s fail again: %s: group kpool_tail: "
            % (session.path / "regs", session.path / "regs" / added[0])) in r.stdout.str(), r.stdout.str()
