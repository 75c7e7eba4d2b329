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
