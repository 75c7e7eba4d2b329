#!/usr/bin/env python3
"""The CI recipes' slotguard commands, run as written (docs/ci-recipes.md,
examples/ci/github-actions/*.yml): every `run:` step and every ```sh/```bash
block that runs build/slotguard, in a scratch folder laid out as a
repository (build/slotguard, scenarios/), with bash -eo pipefail as GitHub
Actions runs a step. Each runs twice: in a repository with no
.slotguard/suppressions.json (as copied into one that has none), and with
one (an empty list). Each must exit 0 (the curated scenarios hold, the fixed
kernels' campaign finds nothing) and write every report it names.

A block that merges shards' reports (`slotguard merge`, the final job of
the nightly workflow, and the merge scripts of ci-recipes.md's Kubernetes
and Slurm recipes) runs after its shards: the blocks of the same workflow or
section that run one shard by its index (`$SHARD`, `$JOB_COMPLETION_INDEX`,
`$SLURM_ARRAY_TASK_ID`) run four times first, in the same folder, as shards
0/4 to 3/4 (the index variables set as each engine sets them, 1 s each), and
the merge, with a suppressions file, must exit 0, write its reports and merge
four reports of one campaign. The
scripts inside ci-recipes.md's ```yaml blocks (a Kubernetes Job's args) run
as the ```sh blocks do.

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
  GitHub's ${{ ... }}    -> the job's env given here: SEED, SHARD, BUDGET (and SHARDS,
                            JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT:
                            what a Kubernetes Job's env and Slurm set)
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
ENV = {"SEED": "20250101", "SHARD": "0", "BUDGET": "2", "SHARDS": "4",
       "JOB_COMPLETION_INDEX": "0", "SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "4"}
# The shards a merge block's producers run as.
MERGED_SHARDS = 4
INDEX_VARS = ("SHARD", "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID")
NVIDIA_SMI = "#!/bin/sh\necho 'GPU 0: stand-in'\necho 'GPU 1: stand-in'\n"


def workflow_blocks(path):
    """(where, text, group): each step that runs build/slotguard; a workflow is one group."""
    doc = yaml.safe_load(open(path))
    for job_name, job in (doc.get("jobs") or {}).items():
        for step in job.get("steps") or []:
            text = step.get("run") or ""
            if "build/slotguard" in text:
                yield ("%s: job %s, step %r" % (os.path.relpath(path, ROOT), job_name, step.get("name", "")), text,
                       path)


def yaml_scripts(value):
    """Every string in a YAML document that runs build/slotguard (a container's args)."""
    if isinstance(value, str):
        if "build/slotguard" in value:
            yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from yaml_scripts(v)
    elif isinstance(value, list):
        for v in value:
            yield from yaml_scripts(v)


def markdown_blocks(path):
    """(where, text, group): each ```sh/```bash block that runs build/slotguard, and each script of a
    ```yaml block that does; a section (its ## heading) is one group."""
    text = open(path).read()
    for m in re.finditer(r"^```(sh|bash|yaml)\n(.*?)^```", text, re.S | re.M):
        if "build/slotguard" not in m.group(2):
            continue
        line = text[:m.start()].count("\n") + 1
        headings = re.findall(r"^## (.*)$", text[:m.start()], re.M)
        heading = headings[-1] if headings else ""
        where = "%s:%d (%s)" % (os.path.relpath(path, ROOT), line, heading)
        if m.group(1) != "yaml":
            yield where, m.group(2), (path, heading)
            continue
        for d, doc in enumerate(yaml.safe_load_all(m.group(2))):
            for script in yaml_scripts(doc):
                yield "%s, YAML document %d's script" % (where, d + 1), script, (path, heading)


def is_merge(text):
    return "build/slotguard merge" in text


def is_shard(text):
    """A block that runs one shard, by an index an engine sets."""
    return "slotguard fuzz" in text and "--shard" in text and any(
        re.search(r"\$\{?%s\b" % v, text) for v in INDEX_VARS)


def run_script(script, work, env):
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=work, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)


def merged_json(script):
    """The --json path of the block's slotguard merge."""
    joined = re.sub(r"\\\n\s*", " ", script)
    for line in joined.splitlines():
        if "build/slotguard merge" in line:
            m = re.search(r"--json\s+(\"[^\"]+\"|\S+)", line)
            if m:
                return m.group(1).strip('"')
    return None


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
    own = merges = 0
    for i, (where, text, group) in enumerate(blocks):
        if is_merge(text) and "slotguard fuzz" not in text:
            # The final job after the shards: they run first, in the same folder.
            merges += 1
            producers = [(w, t) for (w, t, g) in blocks if g == group and is_shard(t)]
            if not producers:
                failed += 1
                print("FAIL  %s: merges shards' reports, but no block of its workflow or section runs a shard" % where)
                continue
            script, changes = adapt(text)
            # With a suppressions file only (the shard blocks run without one on their own): a
            # merge of four shards per recipe, each shard 1 s, keeps the test short.
            for suppressions in (True,):
                work = os.path.join(work_root, "%d-%s" % (i, "known" if suppressions else "none"))
                layout(work, binary, suppressions)
                problems = []
                for shard in range(MERGED_SHARDS):
                    env = dict(os.environ, **ENV)
                    env.update({v: str(shard) for v in INDEX_VARS})
                    env["PATH"] = os.path.join(work, "bin") + os.pathsep + env.get("PATH", "")
                    env.pop("CUDA_VISIBLE_DEVICES", None)
                    for pw, pt in producers:
                        done = run_script(adapt(pt)[0].replace("--time 2", "--time 1"), work, env)
                        if done.returncode != 0:
                            problems.append("shard %d/%d (%s): exit %d\n%s" % (
                                shard, MERGED_SHARDS, pw, done.returncode, "\n".join(done.stdout.splitlines()[-8:])))
                env = dict(os.environ, **ENV)
                env["PATH"] = os.path.join(work, "bin") + os.pathsep + env.get("PATH", "")
                done = run_script(script, work, env)
                what = "%s (after %d shards of %s; %s; %s)" % (
                    where, MERGED_SHARDS, ", ".join(w for w, _ in producers),
                    "with .slotguard/suppressions.json" if suppressions else "no .slotguard/suppressions.json",
                    ", ".join(changes) or "as written")
                if not problems and done.returncode != 0:
                    problems.append("merge: exit %d\n%s" % (done.returncode, "\n".join(done.stdout.splitlines()[-8:])))
                missing = [p for p in reports(script) if not glob.glob(os.path.join(work, p))]
                if not problems and missing:
                    problems.append("no report %s" % ", ".join(missing))
                out = merged_json(script)
                if not problems and out:
                    merged = json.load(open(os.path.join(work, out)))
                    shards = [c["shards"] for c in merged["campaigns"]]
                    expected = ["%d/%d" % (k, MERGED_SHARDS) for k in range(MERGED_SHARDS)]
                    if len(merged["reports"]) != MERGED_SHARDS or shards != [expected]:
                        problems.append("the merged report has %d reports, campaigns' shards %s; expected %d reports "
                                        "of one campaign, shards %s" % (len(merged["reports"]), shards,
                                                                         MERGED_SHARDS, expected))
                if problems:
                    failed += 1
                    print("FAIL  %s: %s" % (what, "\n".join(problems)))
                else:
                    passed += 1
                    print("ok    %s" % what)
            continue
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
    if merges < 3:
        print("FAIL  only %d blocks merge shards after they ran (the workflow, Kubernetes, Slurm): the merge "
              "recipes are missing" % merges)
        failed += 1
    print("recipes_run_test: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
