#!/usr/bin/env bash
# `slotguard prove` per preset scope (docs/prove.md): its batch count, its
# reduction (batches before and after), and the time to check it on the
# host backend and, when a GPU is usable, on the GPU backend, for
# slotguard's own kernels and for a plugin (--kernel-lib); then the check
# that every historical variant of every built-in family is found at
# `small`. A benchmark, not a test: it prints Markdown tables for
# docs/benchmarks.md ("Bounded proofs").
#
# A preset that would run past its budget is run with --time and the table
# gives the batches it checked, its rate and the projected time of the
# whole scope (batches / rate), marked "projected".
#   BUILD (build), JOBS (nproc), PLUGINS (BUILD/examples/libsg_rings.so and
#   BUILD/examples/libsg_mamba_states.so: slot mappings and per-request kinds),
#   HOST_SECONDS (60: the most one host run takes), GPU_SECONDS (60: the
#   most one GPU run takes; at most 12 runs, so BACKENDS=gpu stays within
#   about 7 minutes),
#   PRESETS ("small medium large"), BACKENDS ("host gpu": gpu is skipped,
#   saying so, without a usable device), SKIP_VARIANTS (set: no variant check)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc)}
PLUGINS=${PLUGINS:-$BUILD/examples/libsg_rings.so $BUILD/examples/libsg_mamba_states.so}
HOST_SECONDS=${HOST_SECONDS:-60}
GPU_SECONDS=${GPU_SECONDS:-60}
PRESETS=${PRESETS:-small medium large}
BACKENDS=${BACKENDS:-host gpu}
sg=$BUILD/slotguard
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! "$sg" --version > /dev/null 2>&1; then
  echo "bench-prove: $sg does not run; build first (make build)" >&2
  exit 2
fi

# Whether the GPU backend runs here: a one-second proof (exit 3: no device).
gpu_ok=0
if [[ " $BACKENDS " == *" gpu "* ]]; then
  "$sg" prove --scope small --family kpool_tail --backend gpu --time 1 --out "$work/probe" > "$work/probe.log" 2>&1
  if [ $? -ne 3 ]; then gpu_ok=1; else echo "bench-prove: no usable GPU ($(tail -1 "$work/probe.log")); host only" >&2; fi
fi

echo "$("$sg" --version 2>&1 | head -1), $(nproc) cores, --jobs $JOBS, $(date -u +%Y-%m-%dT%H:%MZ)"
if command -v nvidia-smi > /dev/null 2>&1 && [ "$gpu_ok" = 1 ]; then
  echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
fi
echo

# The scope's size: "batches before configurations" from --count (for the
# families the run checks).
count() {  # count PRESET ARGS...
  "$sg" prove --scope "$1" --count --out "$work/count" "${@:2}" 2> /dev/null | tail -1 |
    sed -nE 's/.*: ([0-9]+) batches \(([^ ]+) before reduction\).*, ([0-9]+) configurations.*/\1 \2 \3/p'
}

# One run: "batches checked, seconds, batches/s, complete, findings" from its JSON.
run() {  # run LABEL BACKEND SECONDS PRESET ARGS...
  local label=$1 backend=$2 seconds=$3 preset=$4
  "$sg" prove --scope "$preset" --backend "$backend" --jobs "$JOBS" --time "$seconds" --out "$work/out-$label" \
    --json "$work/$label.json" "${@:5}" > "$work/$label.log" 2>&1
  local rc=$?
  if [ $rc -ge 2 ] || [ ! -s "$work/$label.json" ]; then
    echo "bench-prove: $label: exit $rc: $(tail -1 "$work/$label.log")" >&2
    echo "- - - - -"
    return
  fi
  python3 - "$work/$label.json" << 'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["scope"]
print(s["checked"], "%.2f" % d["seconds"], "%.0f" % d["batches_per_second"], "yes" if s["complete"] else "no",
      d["distinct_findings"])
EOF
}

row() {  # row KERNELS PRESET BACKEND SECONDS ARGS...
  local kernels=$1 preset=$2 backend=$3 seconds=$4
  read -r after before configs <<< "$(count "$preset" "${@:5}")"
  read -r checked secs rate complete found <<< "$(run "$preset-$backend-${kernels// /_}" "$backend" "$seconds" \
    "$preset" "${@:5}")"
  python3 - "$kernels" "$preset" "$backend" "${after:-0}" "${before:-?}" "${configs:-0}" "$checked" "$secs" "$rate" \
    "$complete" "$found" << 'EOF'
import sys
from decimal import Decimal, InvalidOperation
kernels, preset, backend, after, before, configs, checked, secs, rate, complete, found = sys.argv[1:]
after = int(after)
def n(x):
    try:
        return "{:,}".format(int(x))
    except ValueError:
        return x
try:
    reduction = "{:.3g}".format(Decimal(after) / Decimal(before))
except (InvalidOperation, ZeroDivisionError):
    reduction = "uncounted"
if checked == "-":
    time = "failed"
elif complete == "yes":
    time = secs + " s"
else:
    r = float(rate)
    time = "%s s for %s batches; projected %s s" % (secs, n(checked), "%.0f" % (after / r) if r > 0 else "?")
print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
    kernels, preset, configs, n(after), before, reduction, backend, time, n(rate), found))
EOF
}

echo "| kernels | scope | configurations | batches | before reduction | after / before | backend | time | batches/s | distinct findings |"
echo "|---|---|---:|---:|---:|---:|---|---|---:|---:|"
for preset in $PRESETS; do
  for backend in $BACKENDS; do
    if [ "$backend" = gpu ] && [ "$gpu_ok" != 1 ]; then continue; fi
    seconds=$HOST_SECONDS
    [ "$backend" = gpu ] && seconds=$GPU_SECONDS
    row "slotguard's own" "$preset" "$backend" "$seconds"
    for plugin in $PLUGINS; do
      [ -f "$plugin" ] && row "plugin $(basename "$plugin")" "$preset" "$backend" "$seconds" --kernel-lib "$plugin"
    done
  done
done
for plugin in $PLUGINS; do
  [ -f "$plugin" ] || echo "(no plugin at $plugin: build the examples, or set PLUGINS)"
done
echo

[ -n "${SKIP_VARIANTS:-}" ] && exit 0
# Every historical variant of every built-in family at small: a distinct
# finding each (the host backend, slotguard's own kernel or the described
# engine's variant).
echo "| family | variant | batches at small | distinct findings | time |"
echo "|---|---|---:|---:|---:|"
missed=0
while read -r family variant; do
  "$sg" prove --scope small --backend host --jobs "$JOBS" --family "$family" --variant "$variant" \
    --out "$work/var-$family-$variant" --json "$work/var.json" > "$work/var.log" 2>&1
  line=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(d["scope"]["checked"], d["distinct_findings"], "%.2f" % d["seconds"])' "$work/var.json" 2>/dev/null)
  read -r checked found secs <<< "${line:-- 0 -}"
  [ "$found" = 0 ] && missed=$((missed + 1))
  echo "| $family | $variant | $checked | $found$([ "$found" = 0 ] && echo " MISSED") | $secs s |"
done < <("$sg" list --json | python3 -c 'import json,sys
for f in json.load(sys.stdin)["families"]:
    if f["builtin"]:
        for v in f["variants"]:
            if v["name"] != "fixed": print(f["name"], v["name"])')
echo
echo "variants missed at small: $missed"
[ "$missed" = 0 ]
