#!/usr/bin/env bash
# The described families on a machine with a GPU, from a build made
# elsewhere (build/ carried along): every engine family (slot mappings,
# state indices, block operations) through the GPU backend, the description
# itself and through its numpy provider (examples/python/families/), a short
# GPU fuzz campaign through each provider, the lightning mismatch found from
# nothing on the GPU, a user family (--family-file), and the curated
# scenarios under each table layout and CUDA graphs. Logs go to $OUT
# (default ./gpu-logs). Needs numpy for the providers.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-logs}
RUNS=${RUNS:-2000}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
status=0
step() {  # step NAME COMMAND...: runs, logs to $OUT/NAME.log, prints the tail
  echo "=== $1: ${*:2}"
  "${@:2}" >"$OUT/$1.log" 2>&1
  local rc=$?
  tail -n "${TAIL:-1}" "$OUT/$1.log"
  echo "=== $1: exit $rc"
  [ $rc -eq "${EXPECT_RC:-0}" ] || status=1
}
sg=build/slotguard
step engines_described_gpu $sg check --backend gpu --writers --quiet scenarios/engines/
step engines_described_graph $sg check --backend gpu --writers --cuda-graph --quiet scenarios/engines/
for layout in padded tight strided; do
  step "scenarios_${layout}_gpu" $sg check --backend gpu --writers --quiet --table-layout "$layout" scenarios/
  step "scenarios_${layout}_rings_plugin" $sg check --backend gpu --quiet --table-layout "$layout" \
    --kernel-lib build/examples/libsg_rings.so scenarios/
done
# Every engine family with curated scenarios and a numpy provider (the sliding_window example family is below).
for dir in scenarios/engines/*/; do
  family=$(basename "$dir")
  provider="$PY examples/python/families/${family}_provider.py"
  [ -f "examples/python/families/${family}_provider.py" ] || { echo "=== $family: no numpy provider"; status=1; continue; }
  step "${family}_check_gpu" $sg check --backend gpu --writers --quiet --kernel-cmd "$provider" "scenarios/engines/$family/"
  step "${family}_fuzz_gpu" $sg fuzz --backend gpu --family "$family" --kernel-cmd "$provider" --runs "$RUNS" \
    --seed 1 --out "$OUT/fuzz-$family"
done
step mamba_states_plugin_check_gpu $sg check --backend gpu --writers --quiet --kernel-lib build/examples/libsg_mamba_states.so \
  scenarios/engines/vllm_mamba/ scenarios/engines/vllm_gdn/ scenarios/engines/vllm_lightning/ scenarios/engines/vllm_mamba_copy/
step mamba_states_plugin_fuzz_gpu $sg fuzz --backend gpu --kernel-lib build/examples/libsg_mamba_states.so --runs 50000 \
  --seed 1 --out "$OUT/fuzz-mamba-states"
EXPECT_RC=1 TAIL=3 step lightning_variant_fuzz_gpu $sg fuzz --backend gpu --family vllm_lightning \
  --variant engine_81be2e09 --runs 20000 --seed 1 --out "$OUT/fuzz-lightning"
fam=(--family-file examples/families/sliding_window.json)
step sliding_window_check_gpu $sg check --backend gpu --writers "${fam[@]}" \
  --kernel-cmd "$PY examples/python/families/sliding_window_provider.py" examples/families/scenarios/
EXPECT_RC=1 TAIL=3 step sliding_window_planted_fuzz_gpu $sg fuzz --backend gpu "${fam[@]}" --family sliding_window \
  --kernel-cmd "$PY examples/python/families/sliding_window_provider.py --planted" --runs 2000 --seed 1 \
  --out "$OUT/fuzz-sliding-window"
step minus_one_fuzz_gpu $sg fuzz --backend gpu --family-file tests/families/minus_one/minus_one_state.json \
  --family test_minus_one_state --runs 20000 --seed 1 --out "$OUT/fuzz-minus-one"
exit $status
