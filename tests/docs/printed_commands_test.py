#!/usr/bin/env python3
"""Every command the README and the tool print for a user to copy runs as
printed.

1. The README: every line of its ```sh blocks that runs build/slotguard or
   compiles a plugin with cc (a `\\` continues it), run with bash, a block's
   lines in order, in a scratch folder laid out as a checkout
   (build/slotguard, scenarios/, examples/, include/, python/, and the built
   example plugins when this build has them). It must exit 0, or 1 where it
   runs a planted bug on purpose (`--variant`, a `mutants/` scenario,
   `--planted`): never 2 (bad input or usage), 3, 126 or 127. A line that
   needs what this machine lacks (an example plugin this build did not
   make, numpy for the family examples) is skipped, saying so. What this
   machine cannot run is replaced, and only that (said per line):
     --backend gpu -> --backend host   (no GPU here; the same kernel source)
     --time N      -> --time 2
   `make` lines are not run (the build is this one).
2. The hints: the replay command of a fuzz finding (its last line) and of a
   proof's (its last line and each finding's), with the binary run as
   build/slotguard, by its absolute path and as `slotguard` found on PATH:
   each names that path and, run as printed from the same folder, replays
   the finding (exit 1, the finding's group line).
3. A long replay folds its repeated rows: a scenario of 324 requests with
   one failing group replays in fewer than 120 lines.

Usage: printed_commands_test.py SLOTGUARD_BINARY WORK_DIR"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
passed = failed = 0
NUMPY = subprocess.run(["python3", "-c", "import numpy"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL).returncode == 0
VLLM = subprocess.run(["python3", "-c", "import vllm"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode == 0


def ok(what):
    global passed
    passed += 1
    print("ok    " + what)


def fail(what):
    global failed
    failed += 1
    print("FAIL  " + what)


def layout(work, binary):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "build"))
    os.symlink(binary, os.path.join(work, "build", "slotguard"))
    examples = os.path.join(os.path.dirname(binary), "examples")
    if os.path.isdir(examples):
        os.symlink(examples, os.path.join(work, "build", "examples"))
    for name in ("scenarios", "examples", "include", "python", "families", "scopes"):
        if os.path.exists(os.path.join(ROOT, name)):
            os.symlink(os.path.join(ROOT, name), os.path.join(work, name))


def readme_blocks():
    """Per ```sh block of the README: [(line number, command)] of its lines
    that run build/slotguard or compile a plugin (cc), in order."""
    text = open(os.path.join(ROOT, "README.md")).read()
    blocks = []
    for m in re.finditer(r"^```sh\n(.*?)^```", text, re.S | re.M):
        first = text[:m.start()].count("\n") + 2
        lines = m.group(1).splitlines()
        out = []
        i = 0
        while i < len(lines):
            start = i
            command = lines[i]
            while command.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command.rstrip()[:-1] + " " + lines[i].strip()
            i += 1
            if re.match(r"^(build/slotguard|cc) ", command.strip()):
                out.append((first + start, command.strip()))
        if out:
            blocks.append(out)
    return blocks


def run(command, cwd, env=None, timeout=300):
    return subprocess.run(["bash", "--noprofile", "--norc", "-o", "pipefail", "-c", command], cwd=cwd,
                          env=env or os.environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=timeout)


def check_readme(binary, work_root):
    blocks = readme_blocks()
    if sum(len(b) for b in blocks) < 8:
        fail("README: only %d build/slotguard lines found: the extraction is broken" % sum(len(b) for b in blocks))
    for block in blocks:
        work = os.path.join(work_root, "readme-%d" % block[0][0])
        layout(work, binary)
        for n, command in block:  # in order, in one folder: a compile line, then the check of what it built
            adapted, changes = command, []
            for pattern, repl, what in ((r"--backend gpu\b", "--backend host", "--backend gpu -> host"),
                                        (r"--time \d+", "--time 2", "--time -> 2")):
                adapted, k = re.subn(pattern, repl, adapted)
                if k:
                    changes.append(what)
            where = "README.md:%d: %s (%s)" % (n, command, ", ".join(changes) or "as printed")
            built = re.findall(r"build/(examples/\S+)", command)
            if built and not all(os.path.exists(os.path.join(os.path.dirname(binary), b)) for b in built):
                print("skip  %s: this build has no %s (the example plugins need CUDA and `make build`)"
                      % (where, ", ".join(built)))
                continue
            if "examples/python/families/" in command and not NUMPY:
                print("skip  %s: python3 has no numpy, which the family examples need" % where)
                continue
            if "slotguard.engines vllm" in command and "--source" not in command and not VLLM:
                print("skip  %s: no vllm installed, whose kernels the command runs (docs/conformance.md; "
                      "tests/python's test_conform runs the bindings on stand-in engine trees)" % where)
                continue
            done = run(adapted, work)
            planted = re.search(r"--variant|/mutants/|--planted", command) is not None
            allowed = (0, 1) if planted else (0,)
            if done.returncode in allowed:
                ok("%s: exit %d" % (where, done.returncode))
            else:
                fail("%s: exit %d (expected %s)\n%s" % (where, done.returncode, " or ".join(map(str, allowed)),
                                                         "\n".join(done.stdout.splitlines()[-6:])))


def hint_of(output, prefix):
    for line in reversed(output.splitlines()):
        m = re.search(prefix + r"(.*)$", line)
        if m:
            return m.group(1)
    return None


def check_hints(binary, work_root):
    work = os.path.join(work_root, "hints")
    layout(work, binary)
    os.makedirs(os.path.join(work, "bin"))
    os.symlink(binary, os.path.join(work, "bin", "slotguard"))
    path_env = dict(os.environ, PATH=os.path.join(work, "bin") + os.pathsep + os.environ.get("PATH", ""))
    for invoked, env in (("build/slotguard", None), (os.path.join(work, "build", "slotguard"), None),
                         ("slotguard", path_env)):
        tag = re.sub(r"\W", "_", invoked)
        jobs = [("fuzz", "%s fuzz --backend host --family kpool_tail --variant prefix --runs 300 --seed 1 --out f-%s"
                 % (shlex.quote(invoked), tag), r"; replay it with: "),
                ("prove", "%s prove --scope small --backend host --family kpool_tail --variant prefix --out p-%s"
                 % (shlex.quote(invoked), tag), r"; replay one with: ")]
        for what, command, prefix in jobs:
            done = run(command, work, env)
            hint = hint_of(done.stdout, prefix)
            if done.returncode != 1 or not hint:
                fail("%s run as %s: exit %d, no replay hint\n%s" % (what, invoked, done.returncode,
                                                                    "\n".join(done.stdout.splitlines()[-4:])))
                continue
            if not hint.startswith(shlex.quote(invoked) + " replay "):
                fail("%s run as %s prints %r: not the path it was run by" % (what, invoked, hint))
                continue
            replayed = run(hint, work, env)
            if replayed.returncode == 1 and "group kpool_tail: " in replayed.stdout:
                ok("%s run as %s: its hint runs as printed and reproduces (%s)" % (what, invoked, hint))
            else:
                fail("%s run as %s: its hint %r exits %d\n%s" % (what, invoked, hint, replayed.returncode,
                                                                 "\n".join(replayed.stdout.splitlines()[-4:])))


def long_scenario(path, requests=324):
    """A kpool_tail scenario of `requests` one-token requests, the last a
    dummy whose token the prefix variant sends into block 0."""
    qsl = list(range(requests + 1))
    doc = {
        "slotguard": 1,
        "name": "long-replay",
        "num_blocks": requests + 2,
        "batch": {"query_start_loc": qsl, "seq_lens": [1] * requests, "positions": [0] * requests,
                  "idx_mapping": list(range(requests - 1)) + [-1], "num_actual_tokens": requests,
                  "num_tokens": requests},
        "groups": [{"name": "tail", "kernel": "kpool_tail", "variant": "prefix", "kpool": 4,
                    "block_table": [[r + 1] for r in range(requests - 1)] + [[0]]}],
    }
    with open(path, "w") as f:
        json.dump(doc, f)


def check_long_replay(binary, work_root):
    work = os.path.join(work_root, "long")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    path = os.path.join(work, "long.json")
    long_scenario(path)
    done = run("%s replay --backend host %s" % (shlex.quote(binary), shlex.quote(path)), work)
    lines = done.stdout.splitlines()
    if done.returncode not in (0, 1):
        fail("replay of 324 requests: exit %d\n%s" % (done.returncode, "\n".join(lines[-4:])))
    elif len(lines) < 120:
        ok("replay of 324 requests: %d lines" % len(lines))
    else:
        fail("replay of 324 requests: %d lines, not folded" % len(lines))


def main():
    if len(sys.argv) != 3:
        print("usage: %s SLOTGUARD_BINARY WORK_DIR" % sys.argv[0], file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    work_root = os.path.abspath(sys.argv[2])
    check_readme(binary, work_root)
    check_hints(binary, work_root)
    check_long_replay(binary, work_root)
    print("printed_commands_test: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
