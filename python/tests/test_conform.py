"""`fuzz --conform` through the real binary (docs/conformance.md): the reference is each family's engine
variant, only differential is judged, and a disagreement is written as a bug of the description.

The implementations here are the numpy providers of examples/python/families/, written from the
descriptions' own (fixed) knobs, and the vLLM binding over a stand-in engine tree: they exercise the
campaign's judging and blame, not any engine's conformance."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, example

pytestmark = pytest.mark.usefixtures("kernel_cmd_binary")
np = pytest.importorskip("numpy")


def fuzz(binary, *args):
    return subprocess.run([binary, "fuzz", "--backend", "host", "--seed", "1"] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=600)


def test_conform_judges_against_the_engine_variant_and_blames_the_description(kernel_cmd_binary, tmp_path):
    provider = example(os.path.join("families", "dflash_provider.py"))
    # Against the description itself the numpy provider (written from its fixed knobs) holds ...
    plain = fuzz(kernel_cmd_binary, "--family", "dflash", "--runs", "500", "--out", str(tmp_path / "plain"),
                 "--kernel-cmd", provider)
    assert plain.returncode == 0 and "no finding" in plain.stdout, plain.stdout + plain.stderr
    # ... and the engine variant (engine_81be2e09: the column clamped, null entries written) disagrees with it.
    r = fuzz(kernel_cmd_binary, "--family", "dflash", "--conform", "--runs", "500", "--out", str(tmp_path / "c"),
             "--kernel-cmd", provider)
    assert r.returncode == 1, r.stdout + r.stderr
    line = [l for l in r.stdout.splitlines() if l.startswith("fuzz: conform: ")]
    assert len(line) == 1 and "(bugs of the description, not of the kernel)" in line[0], r.stdout
    assert "differential" in r.stdout and "dflash/fixed: differential (description)" in r.stdout
    (reproducer,) = [p for p in os.listdir(str(tmp_path / "c")) if p.endswith(".json")]
    text = json.load(open(str(tmp_path / "c" / reproducer)))["description"]
    assert "A bug of the description, not of the kernel" in text and "dflash's engine_81be2e09" in text, text
    assert "--conform" in text  # its found-by command


def test_conform_of_an_implementation_that_matches_finds_nothing(kernel_cmd_binary, tmp_path):
    # vllm_lightning's engine variant changes only its consumers' skip tests, which are no output: the
    # numpy producer agrees with it element by element, while the variant's hazards are not judged.
    r = fuzz(kernel_cmd_binary, "--family", "vllm_lightning", "--conform", "--runs", "500", "--out",
             str(tmp_path), "--kernel-cmd", example(os.path.join("families", "vllm_lightning_provider.py")))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "fuzz: conform: 500 scenarios compared with the engine variants, 0 skipped, 0 disagreeing" in r.stdout


def test_conform_needs_an_implementation(kernel_cmd_binary, tmp_path):
    r = fuzz(kernel_cmd_binary, "--family", "dflash", "--conform", "--runs", "10", "--out", str(tmp_path))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--conform: no implementation to judge" in r.stderr


@pytest.mark.parametrize("variant,disagree", [("fixed", False), ("engine_81be2e09", True)])
def test_conform_variant_names_the_reference_and_forces_nothing(kernel_cmd_binary, tmp_path, variant, disagree):
    # The numpy provider implements dflash's fixed knobs. Compared with `fixed` it agrees; compared with
    # engine_81be2e09 it disagrees, which it would not if the variant ran instead of the provider.
    r = fuzz(kernel_cmd_binary, "--family", "dflash", "--conform", "--variant", variant, "--runs", "400", "--out",
             str(tmp_path), "--kernel-cmd", example(os.path.join("families", "dflash_provider.py")))
    assert r.returncode == (1 if disagree else 0), r.stdout + r.stderr
    assert ("0 disagreeing" in r.stdout) != disagree and "provider numpy-dflash" in r.stdout


def test_the_engine_binding_serves_a_conform_campaign(kernel_cmd_binary, tmp_path):
    # The binding as the provider, over a stand-in tree (test_engine_bindings' offload store): the wiring
    # from `python -m slotguard.engines` to the campaign's summary, whatever the stand-in's verdict.
    from test_engine_bindings import OFFLOAD, write_tree
    root = write_tree(tmp_path / "tree", OFFLOAD)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    provider = "%s -m slotguard.engines vllm --family vllm_offload_store --source %s" % (sys.executable, root)
    r = subprocess.run([kernel_cmd_binary, "fuzz", "--backend", "host", "--seed", "1", "--family",
                        "vllm_offload_store", "--conform", "--keep-going", "--runs", "500", "--out",
                        str(tmp_path / "out"), "--kernel-cmd", provider], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, env=env, timeout=600)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    assert "fuzz: conform: 500 scenarios compared with the engine variants, 0 skipped" in r.stdout, r.stdout
    assert "provider vllm-vllm_offload_store (tree)" in r.stdout


def test_gpu_conform_script_on_the_host(kernel_cmd_binary, tmp_path):
    # scripts/gpu-conform.sh's host-side logic: the files it carries are the bindings' files, --carry copies
    # them with COMMIT, and a run (BACKEND=host, a stand-in tree) writes each family's summary lines.
    from test_engine_bindings import OFFLOAD, write_tree
    from slotguard.engines.vllm import BINDINGS
    script = os.path.join(ROOT, "scripts", "gpu-conform.sh")
    env = dict(os.environ, PYTHON=sys.executable, SLOTGUARD=kernel_cmd_binary, BACKEND="host", RUNS="300",
               CHECK="0", JOBS="2")
    files = subprocess.run([script, "--files"], stdout=subprocess.PIPE, universal_newlines=True, env=env, check=True)
    paths = sorted({path for b in BINDINGS.values() for path in b.paths})
    assert files.stdout.split() == paths and "vllm/v1/attention/backends/mamba_attn.py" in paths
    src = write_tree(tmp_path / "checkout", dict((path, "X = 1\n") for path in paths))
    carried = subprocess.run([script, "--carry", src, str(tmp_path / "carried"), "81be2e09"], stdout=subprocess.PIPE,
                             universal_newlines=True, env=env)
    assert carried.returncode == 0
    assert open(str(tmp_path / "carried" / "COMMIT")).read() == "81be2e09\n"
    for path in paths:
        assert os.path.isfile(str(tmp_path / "carried" / path))
    dry = subprocess.run([script, str(tmp_path / "carried"), str(tmp_path / "dry")], stdout=subprocess.PIPE,
                         universal_newlines=True, env=dict(env, DRY_RUN="1"))
    # one campaign per binding, and dsv4_compressed's indexer caller against its variant when declared
    indexer = "--variant engine_81be2e09_indexer --keep-going" in dry.stdout
    campaigns = len(BINDINGS) + indexer
    assert dry.returncode == 0 and dry.stdout.count(" fuzz --backend host --family ") == campaigns
    assert dry.stdout.count("--keep-going --runs 300 ") == campaigns
    assert indexer == ("--option\\ caller=indexer" in dry.stdout)
    tree = write_tree(tmp_path / "tree", OFFLOAD)
    out = tmp_path / "out"
    r = subprocess.run([script, tree, str(out), "vllm_offload_store", "dflash"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, env=env, timeout=600)
    summary = open(str(out / "summary.txt")).read()
    # dflash is missing from the stand-in tree: its binding's one line, and exit 3; the offload store ran.
    assert r.returncode == 3, r.stdout + r.stderr
    assert "fuzz: conform: 300 scenarios compared with the engine variants" in summary
    assert ("dflash: slotguard.engines: prepare_dflash_inputs: cannot read "
            "vllm/v1/worker/gpu/spec_decode/dflash/speculator.py in tree (checkout, %s)" % tree) in summary
