#!/usr/bin/env bash
# `slotguard fuzz` scenarios/s with each kind of user kernel beside
# slotguard's own kernels on the same families, in one run, on the gpu
# backend: a plugin (--kernel-lib), a compiled kernel (--kernel-cubin), a
# Python provider (--kernel-cmd, Triton) and a multi-group Python provider.
# A benchmark, not a test; the ratio is user kernel over slotguard's own.
#   BUILD (build), JOBS (16), SECONDS_EACH (20), PYTHON (python3), SKIP_PYTHON (set: only the compiled kinds)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
JOBS=${JOBS:-16}
SECONDS_EACH=${SECONDS_EACH:-20}
PY=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rate() {  # rate LABEL ARGS...: the campaign's scenarios/s
  "$BUILD/slotguard" fuzz --backend gpu --jobs "$JOBS" --time "$SECONDS_EACH" --seed 1 --out "$work/out" \
    --json "$work/$1.json" "${@:2}" > "$work/$1.log" 2>&1
  python3 -c 'import json,sys; print("%.0f" % json.load(open(sys.argv[1]))["scenarios_per_second"])' "$work/$1.json" \
    2>/dev/null || { echo "failed: $(tail -1 "$work/$1.log")" >&2; echo 0; }
}
row() {  # row WHAT FAMILIES OWN USER
  python3 -c 'import sys; w,f,o,u = sys.argv[1:]; o,u = float(o), float(u)
print("| %s | %s | %.0f | %.0f | %.3f |" % (w, f, o, u, u / o if o else 0))' "$@"
}
echo "slotguard fuzz --backend gpu, seed 1, --jobs $JOBS, ${SECONDS_EACH} s each"
echo
echo "| user kernel | families | slotguard's kernels, scenarios/s | user kernel, scenarios/s | ratio |"
echo "|---|---|---:|---:|---:|"
own_rings=$(rate own_rings --family kpool_tail --family qsa_ring)
plugin=$(rate plugin --kernel-lib "$BUILD/examples/libsg_rings.so")
row "plugin examples/plugins/rings.cu (--kernel-lib)" "kpool_tail, qsa_ring" "$own_rings" "$plugin"
plugin_in_process=$(rate plugin_in_process --kernel-lib "$BUILD/examples/libsg_rings.so" --no-isolate)
row "the same plugin, --no-isolate (no worker process)" "kpool_tail, qsa_ring" "$own_rings" "$plugin_in_process"
own_kpool=$(rate own_kpool --family kpool_tail)
cubin=$(rate cubin --kernel-cubin "$BUILD/examples/kpool_tail_kernel.fatbin" \
  --kernel-spec examples/cubin/kpool_tail_kernel.spec.json)
row "compiled kernel examples/cubin (--kernel-cubin)" "kpool_tail" "$own_kpool" "$cubin"
[ -n "${SKIP_PYTHON:-}" ] && exit 0
python=$(rate python --kernel-cmd "$PY examples/python/kpool_tail_provider.py")
row "Triton + torch fallback, examples/python/kpool_tail_provider.py (--kernel-cmd)" "kpool_tail" "$own_kpool" "$python"
own_paged=$(rate own_paged --family paged)
multi=$(rate multi --kernel-cmd "$PY examples/python/multigroup_v2_provider.py")
row "Triton, v2 shape, examples/python/multigroup_v2_provider.py (--kernel-cmd)" "paged" "$own_paged" "$multi"
