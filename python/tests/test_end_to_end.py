"""The real binary with --kernel-cmd (docs/provider-protocol.md): the example
providers on scenarios/, the planted bug found and minimized by fuzz, every
status as slotguard reports it. Skipped, saying why, while the binary has no
--kernel-cmd."""
import json
import os
import sys

import pytest

import slotguard
from conftest import ROOT, example

SCENARIOS = os.path.join(ROOT, "scenarios")
pytestmark = pytest.mark.usefixtures("kernel_cmd_binary")


def test_kpool_tail_provider_holds_scenarios_on_host(kernel_cmd_binary):
    r = slotguard.check([SCENARIOS], kernel_cmd=example("kpool_tail_provider.py"), backend="host",
                        binary=kernel_cmd_binary, extra_args=["-q"])
    assert " 0 fail" in r.summary and "python-kpool-tail" in r.stdout + r.stderr


def test_multigroup_provider_holds_scenarios_on_host(kernel_cmd_binary, tmp_path):
    report = str(tmp_path / "r.json")
    r = slotguard.check([SCENARIOS], kernel_cmd=example("multigroup_v2_provider.py"), backend="host",
                        binary=kernel_cmd_binary, extra_args=["-q", "--json", report, "--jobs", "2"])
    assert " 0 fail" in r.summary and r.report["all_hold"] is True
    assert "python-multigroup-v2" in json.dumps(r.report.get("implementation", "")) + r.summary


def test_fuzz_campaign_on_the_correct_providers_finds_nothing(kernel_cmd_binary):
    for name in ("kpool_tail_provider.py", "multigroup_v2_provider.py"):
        r = slotguard.fuzz(kernel_cmd=example(name), backend="host", runs=3000, seed=7, binary=kernel_cmd_binary,
                           extra_args=["--jobs", "2"])
        assert "no finding" in r.summary
        rate = r.report.get("scenarios_per_second") if isinstance(r.report, dict) else None
        sys.stderr.write("%s: %s (%s scenarios/s)\n" % (name, r.summary, rate))


def test_planted_bug_holds_scenarios_but_fuzz_finds_and_minimizes_it(kernel_cmd_binary, tmp_path):
    planted = example("planted_bug_provider.py")
    r = slotguard.check([SCENARIOS], kernel_cmd=planted, backend="host", binary=kernel_cmd_binary, extra_args=["-q"])
    assert " 0 fail" in r.summary
    with pytest.raises(slotguard.Failure) as e:
        slotguard.fuzz(kernel_cmd=planted, backend="host", runs=5000, seed=1, out=str(tmp_path),
                       binary=kernel_cmd_binary)
    f = e.value
    assert f.reproducer and os.path.exists(f.reproducer), str(f)
    assert f.reproducer in str(f) and ("own_block" in str(f) or "differential" in str(f))
    s = json.load(open(f.reproducer))
    qsl = s["batch"]["query_start_loc"]
    assert len(qsl) - 1 <= 3, "minimized to a couple of requests: %s" % qsl
    assert qsl[-1] == qsl[-2] and s["batch"]["num_actual_tokens"] > qsl[-1], "the planted bug's shape: %s" % s
    # The reproducer fails with the planted provider, holds with the correct one.
    with pytest.raises(slotguard.Failure):
        slotguard.check([f.reproducer], kernel_cmd=planted, backend="host", binary=kernel_cmd_binary)
    slotguard.check([f.reproducer], kernel_cmd=example("kpool_tail_provider.py"), backend="host",
                    binary=kernel_cmd_binary)


# The reproducer of a provider's bug reproduces as its hint says, and stays
# green once the provider is fixed (docs/fuzzing.md, Reproducers).
def test_a_providers_reproducer_replays_as_its_hint_says_and_stays_green_once_fixed(kernel_cmd_binary, tmp_path):
    import shlex
    import subprocess
    planted = example("planted_bug_provider.py")
    with pytest.raises(slotguard.Failure) as e:
        slotguard.fuzz(kernel_cmd=planted, backend="host", runs=5000, seed=1, out=str(tmp_path / "found"),
                       binary=kernel_cmd_binary)
    f = e.value
    text = str(f)
    # One line first: the bug, by whom; then the command that reproduces it.
    assert text.splitlines()[0].startswith("slotguard fuzz found a bug: group kpool_tail: "), text
    hint = [l for l in text.splitlines() if l.startswith("reproduce it with: ")]
    assert hint and "--kernel-cmd" in hint[0] and "planted_bug_provider.py" in hint[0], text
    # The command names the binary as it was run (here by find_binary()'s path).
    assert f.result.replay_command.startswith(shlex.quote(kernel_cmd_binary) + " replay --backend host --kernel-cmd "), \
        f.result.replay_command
    # The minimized batch, small, in the failure itself.
    assert "minimized batch (" in text and '"query_start_loc": [' in text, text
    # The hint, run as printed: it reproduces (exit 1), with the provider.
    done = subprocess.run(shlex.split(hint[0][len("reproduce it with: "):]), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)
    assert done.returncode == 1 and "provider planted-bug-kpool-tail" in done.stdout, done.stdout
    # replay FILE alone runs what the file records, and says so.
    r = slotguard.replay(f.reproducer, backend=None, binary=kernel_cmd_binary, raise_on_failure=False)
    assert r.returncode == 1 and "note: replaying %s as it was found: --backend host --kernel-cmd" % f.reproducer \
        in r.stdout, r.stdout
    # The provider fixed (the correct one): the file as it is holds. Its
    # description says to keep it so, never to expect a finding.
    fixed = example("kpool_tail_provider.py")
    r = slotguard.replay(f.reproducer, kernel_cmd=fixed, binary=kernel_cmd_binary)
    assert r.returncode == 0 and "was found with --kernel-cmd" in r.stdout, r.stdout
    slotguard.check([f.reproducer], kernel_cmd=fixed, backend="host", binary=kernel_cmd_binary)
    description = json.load(open(f.reproducer))["description"]
    assert "keep this file as it is" in description and "Do not add \"verdict\": \"finding\"" in description


def write_provider(tmp_path, body):
    path = tmp_path / "prov.py"
    path.write_text("import os, sys\nsys.path.insert(0, %r)\nimport slotguard\n"
                    "p = slotguard.Provider('tmp-provider')\n%s\np.serve()\n"
                    % (os.path.join(ROOT, "python"), body))
    return "%s %s" % (sys.executable, path)


def test_an_exception_is_a_no_fault_finding_naming_it(kernel_cmd_binary, tmp_path):
    cmd = write_provider(tmp_path, "@p.family('kpool_tail')\ndef run(call):\n    raise KeyError('no ring here')\n")
    with pytest.raises(slotguard.Failure) as e:
        slotguard.check([os.path.join(SCENARIOS, "rings", "speculative-step.json")], kernel_cmd=cmd,
                        backend="host", binary=kernel_cmd_binary)
    assert "no_fault" in str(e.value) and "KeyError" in str(e.value)


def test_skip_is_reported_as_skipped(kernel_cmd_binary, tmp_path):
    cmd = write_provider(tmp_path, "@p.family('kpool_tail')\ndef run(call):\n"
                                   "    raise slotguard.Skip('needs num_reqs >= 1')\n")
    r = slotguard.check([os.path.join(SCENARIOS, "rings", "speculative-step.json")], kernel_cmd=cmd,
                        backend="host", binary=kernel_cmd_binary, raise_on_failure=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "skip" in (r.stdout + r.stderr).lower()


def test_a_crash_costs_only_its_scenario(kernel_cmd_binary, tmp_path):
    cmd = write_provider(tmp_path, "@p.family('kpool_tail')\ndef run(call):\n"
                                   "    if call.num_reqs == 4:\n        os._exit(9)\n"
                                   "    call.slot_mapping[:] = 0\n    raise slotguard.Skip('only the crash matters')\n")
    r = slotguard.check([os.path.join(SCENARIOS, "rings")], kernel_cmd=cmd, backend="host",
                        binary=kernel_cmd_binary, raise_on_failure=False)
    assert r.returncode == 1
    assert "speculative-step" in "\n".join(r.finding_lines) and "no_fault" in r.stdout


def test_an_unknown_family_fails_the_handshake_with_exit_2(kernel_cmd_binary, tmp_path):
    cmd = write_provider(tmp_path, "@p.family('kpool_tale')\ndef run(call):\n    pass\n")
    with pytest.raises(slotguard.UsageError) as e:
        slotguard.check([SCENARIOS], kernel_cmd=cmd, backend="host", binary=kernel_cmd_binary)
    assert "kpool_tale" in str(e.value)


# A provider's log holding bytes that are not UTF-8: the result is decoded
# with replacement characters (it raised UnicodeDecodeError and was lost).
def test_bytes_that_are_not_utf8_on_stderr_are_replaced(kernel_cmd_binary, tmp_path):
    cmd = write_provider(tmp_path, "os.write(2, b'loading \\xff\\xfe weights\\n')\n"
                                   "@p.family('kpool_tail')\ndef run(call):\n"
                                   "    raise slotguard.Skip('not this one')\n")
    r = slotguard.check([os.path.join(SCENARIOS, "rings", "speculative-step.json")], kernel_cmd=cmd,
                        backend="host", binary=kernel_cmd_binary, timeout=120)
    assert r.returncode == 0 and "loading \ufffd\ufffd weights" in r.stderr


# A child the provider started keeps slotguard's output open: check() does
# not wait for it (15 s for a 0.35 s run, forever if it never exits), and
# it does not outlive the run (slotguard kills the provider's process group).
def test_a_providers_child_holding_the_output_does_not_keep_check_waiting(kernel_cmd_binary, tmp_path):
    pid_file = tmp_path / "child.pid"
    cmd = write_provider(tmp_path, "import subprocess\n"
                                   "child = subprocess.Popen(['sleep', '600'])\n"
                                   "open(%r, 'w').write(str(child.pid))\n"
                                   "@p.family('kpool_tail')\ndef run(call):\n"
                                   "    raise slotguard.Skip('not this one')\n" % str(pid_file))
    r = slotguard.check([os.path.join(SCENARIOS, "rings", "speculative-step.json")], kernel_cmd=cmd,
                        backend="host", binary=kernel_cmd_binary, timeout=120)
    assert r.returncode == 0
    pid = int(pid_file.read_text())
    state = ""
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        pass
    assert state in ("", "Z"), "the provider's child %d outlived the run" % pid


def kpool_provider(tmp_path, body, name="prov.py"):
    """A provider over the example's host kpool_tail (its numpy path), with
    `body` registering it; each start appends a line to starts.log."""
    starts = tmp_path / "starts.log"
    path = tmp_path / name
    path.write_text("import os, sys\nsys.path.insert(0, %r)\nsys.path.insert(0, %r)\nimport slotguard\n"
                    "import kpool_tail_provider as k\nopen(%r, 'a').write('start\\n')\n"
                    "p = slotguard.Provider('tmp-kpool')\n%s\np.serve()\n"
                    % (os.path.join(ROOT, "python"), os.path.join(ROOT, "examples", "python"), str(starts), body))
    return "%s %s" % (sys.executable, path), starts


# A Python exception in a call is that scenario's no_fault, naming the
# exception, and the provider keeps serving: no process is started but the
# first and its warm spare, however many calls raise.
def test_exceptions_cost_their_scenarios_and_no_provider_restart(kernel_cmd_binary, tmp_path):
    cmd, starts = kpool_provider(tmp_path, "@p.family('kpool_tail')\ndef run(call):\n"
                                           "    if call.num_tokens % 7 == 3:\n"
                                           "        raise IndexError('index %d is out of bounds' % call.num_tokens)\n"
                                           "    k.kpool_tail_host(call)\n")
    report = str(tmp_path / "f.json")
    r = slotguard.fuzz(kernel_cmd=cmd, backend="host", runs=2000, seed=3, families=["kpool_tail"],
                       out=str(tmp_path / "out"), keep_going=True, binary=kernel_cmd_binary, raise_on_failure=False,
                       extra_args=["--jobs", "1", "--json", report])
    assert r.returncode == 1, r.stdout + r.stderr
    rep = json.load(open(report))
    assert rep["finding_scenarios"] >= 10, rep["finding_scenarios"]
    assert all(f["invariants"] == ["no_fault"] for f in rep["findings"]), rep["findings"]
    assert "IndexError: index" in r.stdout
    assert starts.read_text().count("start") <= 2, "the first process and its warm spare: %s" % starts.read_text()


# Preconditions said up front: the batches they reject are counted as
# skipped, never run and never a finding.
def test_requires_is_counted_as_skipped_not_as_a_finding(kernel_cmd_binary, tmp_path):
    cmd, _ = kpool_provider(tmp_path, "@p.family('kpool_tail', requires='num_reqs >= 2')\ndef run(call):\n"
                                      "    assert call.num_reqs >= 2\n    k.kpool_tail_host(call)\n")
    report = str(tmp_path / "f.json")
    r = slotguard.fuzz(kernel_cmd=cmd, backend="host", runs=2000, seed=3, families=["kpool_tail"],
                       binary=kernel_cmd_binary, extra_args=["--json", report])
    assert "no finding" in r.summary
    rep = json.load(open(report))
    assert 0 < rep["skipped"] < 2000, rep["skipped"]
    assert "requires num_reqs >= 2" in r.stdout + r.stderr


# The crashing benchmark provider on the host: a crash on its scenarios'
# hash recurs (a no_fault finding, shrunk); one on the process's 25th call
# does not (kept unshrunk, said); the campaign runs its budget either way
# (a scenario a crash class deferred is of the budget, not checked).
def test_the_crashing_bench_provider_on_the_host(kernel_cmd_binary, tmp_path):
    bench = os.path.join(ROOT, "examples", "python", "bench", "crashing_kpool_provider.py")
    for args, recurs in (("--crash-percent 3", True), ("--crash-every 25", False)):
        report = str(tmp_path / "f.json")
        r = slotguard.fuzz(kernel_cmd="%s %s %s" % (sys.executable, bench, args), backend="host", runs=300, seed=2,
                           families=["kpool_tail"], out=str(tmp_path / "out"), keep_going=True,
                           binary=kernel_cmd_binary, raise_on_failure=False, timeout=300,
                           extra_args=["--jobs", "1", "--json", report])
        assert r.returncode == 1, r.stdout + r.stderr
        rep = json.load(open(report))
        assert rep["scenarios"] + rep.get("deferred", 0) == 300
        assert all(f["invariants"] == ["no_fault"] for f in rep["findings"]), rep["findings"]
        assert "killed by SIGSEGV" in r.stdout + r.stderr
        if recurs:
            assert all(f["recurred"] for f in rep["findings"]), (args, rep["findings"])
        else:  # (a run again may land on a 25th call too)
            assert any(not f["recurred"] for f in rep["findings"]), (args, rep["findings"])
            assert "did not recur when its scenario ran again" in r.stdout + r.stderr


# On the host the package answers from forked children: a provider that
# kills its process costs a fork, not a start (its module's code runs once,
# in the process slotguard started and its warm spare); each death is the
# no_fault of the call it died in; with SLOTGUARD_FORK_STANDBYS=1 (cuda's
# way: a child forked ahead waits for its turn) the standby takes over.
# SLOTGUARD_FORK_SERVER=0 serves without: each death is a provider start.
def test_a_crash_costs_a_fork_not_a_provider_start(kernel_cmd_binary, tmp_path):
    cmd, starts = kpool_provider(tmp_path, "calls = [0]\n@p.family('kpool_tail')\ndef run(call):\n"
                                           "    calls[0] += 1\n"
                                           "    if calls[0] % 10 == 0:\n"
                                           "        import signal\n        os.kill(os.getpid(), signal.SIGSEGV)\n"
                                           "    k.kpool_tail_host(call)\n")
    for fork, standbys, most_starts in (("1", "0", 2), ("1", "1", 2), ("0", "0", None)):
        starts.write_text("")
        report = str(tmp_path / ("f%s%s.json" % (fork, standbys)))
        env = dict(os.environ, SLOTGUARD_FORK_SERVER=fork, SLOTGUARD_FORK_STANDBYS=standbys)
        r = slotguard.fuzz(kernel_cmd=cmd, backend="host", runs=200, seed=4, families=["kpool_tail"],
                           out=str(tmp_path / "out"), keep_going=True, binary=kernel_cmd_binary,
                           raise_on_failure=False, timeout=300, env=env,
                           extra_args=["--jobs", "1", "--json", report])
        assert r.returncode == 1, r.stdout + r.stderr
        rep = json.load(open(report))
        assert rep["scenarios"] == 200 and rep["finding_scenarios"] >= 10, rep
        assert all(f["invariants"] == ["no_fault"] for f in rep["findings"]), (fork, standbys, rep["findings"])
        n = starts.read_text().count("start")
        if most_starts is not None:
            assert n <= most_starts, "a fork per crash, not a start: %d starts" % n
            assert "was killed by SIGSEGV (Segmentation fault) while running record" in r.stderr
            assert "the fork server answers the message" in r.stderr
            taken_over = "the fork server answers the message and its standby takes over" in r.stderr
            assert taken_over == (standbys == "1"), r.stderr
        else:
            assert n >= 10, "without the fork server each crash is a start: %d starts" % n


ZERO_PROVIDER = '''
import sys
sys.path.insert(0, %r)
import slotguard

p = slotguard.Provider("zero-kpool-tail")

@p.family("kpool_tail")
def run(call):
    for i in range(len(call.slot_mapping)):
        call.slot_mapping[i] = 0     # every token into block 0

if __name__ == "__main__":
    p.serve()
''' % os.path.join(ROOT, "python")


def test_a_proofs_reproducer_records_the_provider_and_its_hint_reproduces(kernel_cmd_binary, tmp_path):
    """prove's reproducers record their implementation as fuzz's do
    (found_by): the replay command names the provider, and `replay FILE`
    alone runs it (not slotguard's own kernels, which hold)."""
    import shlex
    import subprocess
    provider = tmp_path / "zero_provider.py"
    provider.write_text(ZERO_PROVIDER)
    kernel_cmd = "%s %s" % (sys.executable, provider)
    out = tmp_path / "found"
    done = subprocess.run([kernel_cmd_binary, "prove", "--scope",
                           os.path.join(ROOT, "scopes", "mutants", "rings-kpool-prefix-nearest.json"),
                           "--family", "kpool_tail", "--backend", "host", "--kernel-cmd", kernel_cmd,
                           "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, cwd=str(tmp_path))
    assert done.returncode == 1, done.stdout
    hint = done.stdout.splitlines()[-1].split("; replay one with: ")[1]
    assert "--kernel-cmd " + shlex.quote(kernel_cmd) in hint, hint
    [name] = os.listdir(str(out))
    found_by = json.load(open(str(out / name)))["found_by"]
    assert found_by["kernel_cmd"] == kernel_cmd and found_by["backend"] == "host", found_by
    replayed = subprocess.run(hint, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, cwd=str(tmp_path))
    assert replayed.returncode == 1 and "zero-kpool-tail" in replayed.stdout, replayed.stdout
    alone = subprocess.run([kernel_cmd_binary, "replay", str(out / name)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True, cwd=str(tmp_path))
    assert alone.returncode == 1 and "as it was found: --backend host --kernel-cmd" in alone.stdout, alone.stdout
