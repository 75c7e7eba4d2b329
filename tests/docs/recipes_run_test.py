#!/usr/bin/env python3
"""The CI recipes' slotguard commands, run as written (docs/ci-recipes.md,
examples/ci/github-actions/*.yml): every `run:` step and every ```sh/```bash
block that runs build/slotguard, in a scratch folder laid out as a
repository (build/slotguard, scenarios/), with bash -eo pipefail as GitHub
Actions runs a step. Each runs twice: in a repository with no
.slotguard/suppressions.json (as copied into one that has none), and with
one (an empty list). Each must exit 0 (the curated scenarios hold, the fixed
kernels' campaign finds nothing) and write every report it names.

A block that checks the regressions folder (.slotguard/regressions) runs a
third time with one there that fails (a planted bug's scenario without its
expect): it must exit 1, so the folder is checked. A block that gates the
user's own kernel (the slotguard-gate-own-kernel workflow, ci-recipes.md's
section 4) names the implementation in every slotguard command.

What this machine cannot run is replaced, and only that (printed per block):
  --backend gpu          -> --backend host   (no GPU here; the same kernel source)
  a --time budget        -> 2 s              ($BUDGET, 3600)
  nvidia-smi             -> a stand-in listing two GPUs
  `make build` lines     -> skipped (the build is this one; ci_recipes_test checks the targets)
  GitHub's ${{ ... }}    -> the job's env given here: SEED, SHARD, BUDGET
  --kernel-cubin         -> the block is not run (a compiled kernel needs the GPU backend and nvcc)
Usage: recipes_run_test.py SLOTGUARD_BINARY WORK_DIR (exit 77: no PyYAML)"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("skip  the YAML workflows are not read: /usr/bin/python3 has no yaml module (apt-get install python3-yaml)")
    sys.exit(77)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
ENV = {"SEED": "20250101", "SHARD": "0", "BUDGET": "2"}
NVIDIA_SMI = "#!/bin/sh\necho 'GPU 0: stand-in'\necho 'GPU 1: stand-in'\n"


def workflow_blocks(path):
    doc = yaml.safe_load(open(path))
    for job_name, job in (doc.get("jobs") or {}).items():
        for step in job.get("steps") or []:
            text = step.get("run") or ""
            if "build/slotguard" in text:
                yield "%s: job %s, step %r" % (os.path.relpath(path, ROOT), job_name, step.get("name", "")), text


def markdown_blocks(path):
    text = open(path).read()
    for m in re.finditer(r"^```(sh|bash)\n(.*?)^```", text, re.S | re.M):
        if "build/slotguard" in m.group(2):
            line = text[:m.start()].count("\n") + 1
            headings = re.findall(r"^## (.*)$", text[:m.start()], re.M)
            yield "%s:%d (%s)" % (os.path.relpath(path, ROOT), line, headings[-1] if headings else ""), m.group(2)


def adapt(text):
    """The block with what this machine cannot run replaced; the changes made."""
    changes = []
    out = []
    for line in text.splitlines():
        if re.match(r"^\s*make\s+build\s*$", line):
            changes.append("skipped `make build`")
            continue
        out.append(line)
    text = "\n".join(out) + "\n"
    rules = [(r"--backend gpu\b", "--backend host", "--backend gpu -> host"),
             (r"--time (3600|\"\$BUDGET\")", "--time 2", "--time -> 2")]
    for pattern, repl, what in rules:
        text, n = re.subn(pattern, repl, text)
        if n:
            changes.append(what)
    if "nvidia-smi" in text:
        changes.append("nvidia-smi: a stand-in listing 2 GPUs")
    return text, changes


def reports(text):
    """The report paths the block's commands name, as glob patterns."""
    pats = []
    for m in re.finditer(r"--(json|sarif|junit)\s+(\"[^\"]+\"|\S+)", text):
        p = m.group(2).strip('"')
        p = re.sub(r"\$\{?(SHARD)\}?", ENV["SHARD"], p)
        pats.append(re.sub(r"\$\{?\w+\}?", "*", p))
    return pats


def layout(work, binary, suppressions, regression=False):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "build"))
    os.makedirs(os.path.join(work, "bin"))
    os.symlink(binary, os.path.join(work, "build", "slotguard"))
    for name in ("scenarios", "examples", "include", "python"):
        os.symlink(os.path.join(ROOT, name), os.path.join(work, name))
    if regression:
        os.makedirs(os.path.join(work, ".slotguard", "regressions"))
        with open(os.path.join(ROOT, "scenarios", "rings", "mutants", "kpool-prefix.json")) as f:
            doc = json.load(f)
        del doc["expect"]  # a reproducer as fuzz writes it: it fails while the bug is there
        with open(os.path.join(work, ".slotguard", "regressions", "kpool-prefix.json"), "w") as f:
            json.dump(doc, f)
    with open(os.path.join(work, "bin", "nvidia-smi"), "w") as f:
        f.write(NVIDIA_SMI)
    os.chmod(os.path.join(work, "bin", "nvidia-smi"), 0o755)
    if suppressions:
        os.makedirs(os.path.join(work, ".slotguard"), exist_ok=True)
        with open(os.path.join(work, ".slotguard", "suppressions.json"), "w") as f:
            f.write('{"slotguard_suppressions": 1, "suppressions": []}\n')


def main():
    if len(sys.argv) != 3:
        print("usage: %s SLOTGUARD_BINARY WORK_DIR" % sys.argv[0], file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    work_root = os.path.abspath(sys.argv[2])
    blocks = []
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "ci", "github-actions", "*.yml"))):
        blocks += list(workflow_blocks(path))
    blocks += list(markdown_blocks(os.path.join(ROOT, "docs", "ci-recipes.md")))
    passed = failed = 0
    if len(blocks) < 6:
        print("FAIL  only %d recipe blocks run build/slotguard: the extraction is broken" % len(blocks))
        failed += 1
    own = 0
    for i, (where, text) in enumerate(blocks):
        if "--kernel-cubin" in text:
            print("skip  %s: --kernel-cubin needs the GPU backend and nvcc (the GPU machine runs it)" % where)
            continue
        script, changes = adapt(text)
        if "own-kernel" in where or "own kernel" in where:
            own += 1
            joined = re.sub(r"\\\n\s*", " ", script)
            commands = [l.strip() for l in joined.splitlines() if l.strip().startswith("build/slotguard ")]
            unnamed = [c for c in commands if not re.search(r"--kernel-(cmd|lib|cubin)\b", c)]
            if unnamed:
                failed += 1
                print("FAIL  %s: a command that does not name the implementation: %s" % (where, unnamed[0]))
        variants = [(False, False), (True, False)]
        if ".slotguard/regressions" in script:
            variants.append((False, True))
        for suppressions, regression in variants:
            work = os.path.join(work_root, "%d-%s" % (i, "regression" if regression else
                                                      "known" if suppressions else "none"))
            layout(work, binary, suppressions, regression)
            env = dict(os.environ, **ENV)
            env["PATH"] = os.path.join(work, "bin") + os.pathsep + env.get("PATH", "")
            env.pop("CUDA_VISIBLE_DEVICES", None)
            done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=work,
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  universal_newlines=True, timeout=600)
            what = "%s (%s; %s)" % (where, "a failing reproducer in .slotguard/regressions" if regression
                                    else "with .slotguard/suppressions.json" if suppressions
                                    else "no .slotguard/suppressions.json", ", ".join(changes) or "as written")
            missing = [p for p in reports(script) if not glob.glob(os.path.join(work, p))]
            if regression:
                if done.returncode == 1 and "kpool-prefix.json" in done.stdout:
                    passed += 1
                    print("ok    %s: exit 1, the reproducer fails the gate" % what)
                else:
                    failed += 1
                    print("FAIL  %s: exit %d, expected 1 with the regression named\n%s"
                          % (what, done.returncode, "\n".join(done.stdout.splitlines()[-8:])))
            elif done.returncode != 0:
                failed += 1
                print("FAIL  %s: exit %d\n%s" % (what, done.returncode, "\n".join(done.stdout.splitlines()[-8:])))
            elif missing:
                failed += 1
                print("FAIL  %s: no report %s" % (what, ", ".join(missing)))
            else:
                passed += 1
                print("ok    %s" % what)
    if own < 2:
        print("FAIL  only %d blocks gate the user's own kernel: the own-kernel recipes are missing" % own)
        failed += 1
    print("recipes_run_test: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
