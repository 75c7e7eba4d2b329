#!/usr/bin/env bash
# `slotguard fuzz` throughput by batch size: scenarios/s of a fixed campaign
# on the host backend and (when usable) the batched GPU backend, for each
# --max-requests, with the mean size of a scenario and, for the GPU, each
# stage's busy seconds (they overlap). A benchmark, not a test.
#   BUILD (build), JOBS (nproc), SECONDS_EACH (10), MAX_REQUESTS ("64 16 8 4")
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc)}
SECONDS_EACH=${SECONDS_EACH:-10}
MAX_REQUESTS=${MAX_REQUESTS:-64 16 8 4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
backends="host"
"$BUILD/slotguard" fuzz --backend gpu --runs 1 --out "$work/out" > /dev/null 2>&1 && backends="host gpu"
echo "slotguard fuzz, fixed kernels, seed 1, --jobs $JOBS, ${SECONDS_EACH} s each"
echo
echo "| --max-requests | backend | scenarios/s | token-groups per scenario | generate / kernels / check busy s |"
echo "|---:|---|---:|---:|---|"
for mr in $MAX_REQUESTS; do
  for backend in $backends; do
    "$BUILD/slotguard" fuzz --backend "$backend" --jobs "$JOBS" --time "$SECONDS_EACH" --seed 1 \
      --max-requests "$mr" --out "$work/out" --json "$work/f.json" > /dev/null 2>&1
    python3 - "$work/f.json" "$mr" "$backend" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
phases = j.get("phase_seconds")
split = " / ".join("%.2f" % phases[k] for k in ("generate", "kernels", "check")) if phases else "-"
print("| %s | %s | %.0f | %.0f | %s |" % (sys.argv[2], sys.argv[3], j["scenarios_per_second"],
      j["token_groups"] / max(j["scenarios"], 1), split))
PY
  done
done
