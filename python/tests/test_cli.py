"""slotguard.check / fuzz / replay against the real binary (no provider needed)."""
import json
import os

import pytest

import slotguard
from conftest import ROOT


def _executable(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_find_binary_order(monkeypatch, tmp_path):
    from slotguard import cli
    assert slotguard.find_binary("/x/y") == "/x/y"
    env = _executable(tmp_path / "env" / "slotguard")
    monkeypatch.setenv("SLOTGUARD", env)
    assert slotguard.find_binary() == env
    monkeypatch.delenv("SLOTGUARD")
    # Next to the interpreter (a virtual environment's bin/), before PATH.
    venv_bin = tmp_path / "venv" / "bin"
    monkeypatch.setattr(cli.sys, "executable", str(venv_bin / "python"))
    on_path = _executable(tmp_path / "path" / "slotguard")
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    assert slotguard.find_binary() == on_path
    beside = _executable(venv_bin / "slotguard")
    assert slotguard.find_binary() == beside
    os.unlink(beside)
    # The checkout the current folder is in: its build/, from a folder below it.
    monkeypatch.setenv("PATH", "/nonexistent")
    checkout = _executable(tmp_path / "checkout" / "build" / "slotguard")
    (tmp_path / "checkout" / "tests" / "deep").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "checkout" / "tests" / "deep")
    assert slotguard.find_binary() == checkout
    # Else the source tree this package lives in.
    monkeypatch.chdir(tmp_path)
    found = slotguard.find_binary() if os.access(os.path.join(ROOT, "build", "slotguard"), os.X_OK) else None
    if found:
        assert os.path.samefile(found, os.path.join(ROOT, "build", "slotguard"))


def test_no_binary_names_every_place_it_looked(monkeypatch, tmp_path):
    from slotguard import cli
    import subprocess, sys
    python = sys.executable
    monkeypatch.delenv("SLOTGUARD", raising=False)
    monkeypatch.setattr(cli.sys, "executable", str(tmp_path / "venv" / "bin" / "python"))
    monkeypatch.setattr(cli, "__file__", str(tmp_path / "site" / "slotguard" / "cli.py"))
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(slotguard.BinaryNotFound) as e:
        slotguard.find_binary()
    message = str(e.value)
    for place in ("$SLOTGUARD (not set)", str(tmp_path / "venv" / "bin" / "slotguard"), "slotguard on PATH",
                  "build/slotguard in %s and the folders above it" % tmp_path,
                  str(tmp_path / "build" / "slotguard"), "make build"):
        assert place in message, message
    # A $SLOTGUARD that is not an executable file is said so, not exec'd later.
    monkeypatch.setenv("SLOTGUARD", str(tmp_path / "missing"))
    with pytest.raises(slotguard.BinaryNotFound, match="SLOTGUARD=.*missing is not an executable file"):
        slotguard.find_binary()
    # python -m slotguard says so in one line, exit 2.
    r = subprocess.run([python, "-m", "slotguard", "--version"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True,
                       env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
    assert r.returncode == 2 and r.stderr.startswith("slotguard: error: no slotguard binary: SLOTGUARD="), r.stderr
    assert len(r.stderr.splitlines()) == 1


def test_check_holds_and_parses_the_json_report(binary, tmp_path):
    report = str(tmp_path / "r.json")
    r = slotguard.check([os.path.join(ROOT, "scenarios")], binary=binary, extra_args=["--json", report, "-q"])
    assert r.returncode == 0 and r.summary.startswith("slotguard: ") and "0 fail" in r.summary
    assert r.report["all_hold"] is True and len(r.report["scenarios"]) >= 40


def test_check_failure_carries_the_finding_lines(binary, tmp_path):
    s = json.load(open(os.path.join(ROOT, "scenarios", "paged", "mutants", "dummy-reads-row.json")))
    del s["expect"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(s))
    with pytest.raises(slotguard.Failure) as e:
        slotguard.check([str(bad)], binary=binary)
    text = str(e.value)
    # The first line says what failed in one line: the dummy request 1 maps
    # positions 0 and 1 through its zero row to slots 0 and 1 (block 0).
    assert text.splitlines()[0] == ("slotguard check: 1 of 1 scenario runs fail: %s: group attn: request 1 (dummy) "
                                    "wrote slots 0-1 of block 0 (tokens 3-4); reference PAD" % bad)
    assert "FAIL" in text and "1 fail" in text
    assert e.value.returncode == 1 and e.value.result.finding_lines
    assert isinstance(e.value, AssertionError)
    r = slotguard.check([str(bad)], binary=binary, raise_on_failure=False)
    assert r.returncode == 1


def test_usage_and_input_errors(binary, tmp_path):
    with pytest.raises(slotguard.UsageError) as e:
        slotguard.check([str(tmp_path / "missing.json")], binary=binary)
    assert "slotguard: error:" in str(e.value) and "missing.json" in str(e.value)
    with pytest.raises(slotguard.UsageError):
        slotguard.check([], binary=binary, extra_args=["--no-such-flag"])


def test_fuzz_keep_going_lists_every_reproducer_and_suppressions_hold(binary, tmp_path):
    # "prefix" on kpool_tail and qsa_ring: two bugs, one reproducer each.
    with pytest.raises(slotguard.Failure) as e:
        slotguard.fuzz(runs=3000, seed=7, binary=binary, out=str(tmp_path / "f"), keep_going=True,
                       families=["kpool_tail", "qsa_ring"], extra_args=["--variant", "prefix"])
    f = e.value
    assert len(f.reproducers) == 2 and all(os.path.exists(p) for p in f.reproducers)
    assert f.result.report["distinct_findings"] == 2
    known = tmp_path / "known.json"
    known.write_text(json.dumps({"slotguard_suppressions": 1, "suppressions": [
        {"id": "prefix", "reason": "both still ship the prefix kernels", "variants": ["prefix"]}]}))
    r = slotguard.fuzz(runs=3000, seed=7, binary=binary, keep_going=True, suppressions=known,
                       families=["kpool_tail", "qsa_ring"], extra_args=["--variant", "prefix"])
    assert r.returncode == 0 and r.reproducers == [] and r.report["suppressed_findings"] > 0
    assert r.report["suppressions"][0]["stale"] is False


def test_environment_error_is_exit_3(binary, tmp_path):
    with pytest.raises(slotguard.EnvironmentError) as e:
        slotguard.check([os.path.join(ROOT, "scenarios", "paged", "decode.json")], binary=binary,
                        extra_args=["--json", "/proc/version"])  # a regular file whose write fails
    assert e.value.returncode == 3 and isinstance(e.value, OSError)
    assert "cannot write the JSON report" in str(e.value)


def test_fuzz_holds_then_finds_a_variant_with_its_reproducer(binary, tmp_path):
    r = slotguard.fuzz(runs=500, seed=1, binary=binary, families=["kpool_tail"])
    assert r.returncode == 0 and r.report["scenarios"] == 500 and "no finding" in r.summary
    out = tmp_path / "findings"
    with pytest.raises(slotguard.Failure) as e:
        slotguard.fuzz(runs=2000, seed=1, binary=binary, out=str(out), extra_args=["--variant", "prefix"],
                       families=["kpool_tail"])
    f = e.value
    assert f.reproducer and os.path.exists(f.reproducer) and f.reproducer.startswith(str(out))
    assert "null_block" in str(f) and f.reproducer in str(f)
    with pytest.raises(slotguard.Failure):
        slotguard.replay(f.reproducer, binary=binary, extra_args=["--variant", "prefix"])


# The wrapper reads back only a regular file this run wrote: a report path
# that is a device or a directory is slotguard's usage error (it read
# /dev/zero until memory ran out, and raised IsADirectoryError for a folder).
def test_a_report_path_that_is_not_a_regular_file_is_a_usage_error(binary, tmp_path):
    scenario = os.path.join(ROOT, "scenarios", "paged", "decode.json")
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(tmp_path), fifo):
        with pytest.raises(slotguard.UsageError) as e:
            slotguard.check([scenario], binary=binary, extra_args=["--json", path], timeout=120)
        assert "--json %s: " % path in str(e.value)
        assert e.value.result.report is None


def test_a_report_this_run_did_not_write_is_not_read_back(binary, tmp_path):
    stale = tmp_path / "r.json"
    stale.write_text('{"all_hold": true}')
    scenario = os.path.join(ROOT, "scenarios", "paged", "decode.json")
    r = slotguard.check([scenario], binary=binary, raise_on_failure=False,
                        extra_args=["--json", str(stale), "--suppressions", str(stale)])
    assert r.returncode == 2 and r.report is None
    r = slotguard.check([scenario], binary=binary, extra_args=["--json", str(stale)])
    assert r.report["scenarios"][0]["outcome"] == "pass"
