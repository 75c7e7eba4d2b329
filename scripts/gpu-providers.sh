#!/usr/bin/env bash
# The Python kernel providers (examples/python) on a machine with a GPU,
# torch and Triton, from a build made elsewhere (build/ carried along):
# check scenarios/ on host and gpu for the kpool-tail and the multi-group
# providers, a GPU fuzz campaign on each (CAMPAIGN_SECONDS, default 300),
# and the planted bug found. Logs go to $OUT (default ./gpu-logs).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-logs}
SECONDS_EACH=${CAMPAIGN_SECONDS:-300}
JOBS=${JOBS:-8}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
status=0
step() {  # step NAME COMMAND...: runs, logs to $OUT/NAME.log, prints the tail
  echo "=== $1: ${*:2}"
  "${@:2}" >"$OUT/$1.log" 2>&1
  local rc=$?
  tail -n "${TAIL:-2}" "$OUT/$1.log"
  echo "=== $1: exit $rc"
  [ $rc -eq "${EXPECT_RC:-0}" ] || status=1
}
K="$PY examples/python/kpool_tail_provider.py"
M="$PY examples/python/multigroup_v2_provider.py"
P="$PY examples/python/planted_bug_provider.py"
$PY -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, torch.cuda.get_device_name())'
step kpool_check_host build/slotguard check --backend host --quiet --kernel-cmd "$K" scenarios/
step kpool_check_gpu build/slotguard check --backend gpu --quiet --kernel-cmd "$K" scenarios/
step multigroup_check_host build/slotguard check --backend host --quiet --kernel-cmd "$M" scenarios/
step multigroup_check_gpu build/slotguard check --backend gpu --quiet --kernel-cmd "$M" scenarios/
TAIL=1 step kpool_fuzz_gpu build/slotguard fuzz --backend gpu --kernel-cmd "$K" --time "$SECONDS_EACH" --jobs "$JOBS" \
  --json "$OUT/kpool_fuzz_gpu.json" --out "$OUT/kpool-fuzz"
TAIL=1 step multigroup_fuzz_gpu build/slotguard fuzz --backend gpu --kernel-cmd "$M" --time "$SECONDS_EACH" --jobs "$JOBS" \
  --json "$OUT/multigroup_fuzz_gpu.json" --out "$OUT/multigroup-fuzz"
step planted_check_gpu build/slotguard check --backend gpu --quiet --kernel-cmd "$P" scenarios/
EXPECT_RC=1 TAIL=2 step planted_fuzz_gpu build/slotguard fuzz --backend gpu --kernel-cmd "$P" --runs 100000 --seed 1 \
  --jobs "$JOBS" --out "$OUT/planted"
exit $status
