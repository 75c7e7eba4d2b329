#!/usr/bin/env bash
# Every planted bug at the smallest scope that holds its hand reproducer
# (docs/benchmarks.md, "Every mutant at the smallest scope that holds its
# reproducer"): for each row of scopes/mutants/mutants.tsv, the scope's size
# (--count), a `slotguard prove` of it with the planted bug (a historical
# variant, or a buggy example plugin), the same run without reduction, and
# the run with the correct kernel (variant fixed, or the correct plugin),
# which must find nothing. A benchmark, not a test (the ctest
# prove_mutant_scopes checks the same verdicts): it prints a Markdown table.
#
# A scope whose reproducer no scope can contain is a *nearest* scope (its
# `meaning` names the dimension the scope language lacks); its row says so.
#   BUILD (build), SG (BUILD/slotguard), EXAMPLES (BUILD/examples: the
#   plugins' folder; a plugin row is skipped, saying so, without them),
#   JOBS (nproc), BACKENDS ("host"; "host gpu" adds GPU rows where a device
#   is usable), MANIFEST (scopes/mutants/mutants.tsv)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SG=${SG:-$BUILD/slotguard}
EXAMPLES=${EXAMPLES:-$BUILD/examples}
JOBS=${JOBS:-$(nproc)}
BACKENDS=${BACKENDS:-host}
MANIFEST=${MANIFEST:-scopes/mutants/mutants.tsv}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! "$SG" --version > /dev/null 2>&1; then
  echo "bench-mutant-scopes: $SG does not run; build first (make build), or set SG" >&2
  exit 2
fi

gpu_ok=0
if [[ " $BACKENDS " == *" gpu "* ]]; then
  "$SG" prove --scope small --family kpool_tail --backend gpu --time 1 --out "$work/probe" > "$work/probe.log" 2>&1
  if [ $? -ne 3 ]; then gpu_ok=1; else echo "bench-mutant-scopes: no usable GPU ($(tail -1 "$work/probe.log")); host only" >&2; fi
fi

echo "$("$SG" --version 2>&1 | head -1), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores, --jobs $JOBS, $(date -u +%Y-%m-%dT%H:%MZ)"
echo

# One run's "checked seconds distinct_findings" from its JSON ("- - -" when it failed: exit 2 or 3).
run() {  # run LABEL ARGS...
  local label=$1
  "$SG" prove --jobs "$JOBS" --out "$work/out-$label" --json "$work/$label.json" "${@:2}" > "$work/$label.log" 2>&1
  local rc=$?
  if [ $rc -ge 2 ] || [ ! -s "$work/$label.json" ]; then
    echo "bench-mutant-scopes: $label: exit $rc: $(tail -1 "$work/$label.log")" >&2
    echo "- - -"
    return
  fi
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(d["scope"]["checked"], "%.2f" % d["seconds"], d["distinct_findings"])' "$work/$label.json"
}

echo "| reproducer | family | planted bug | scope (scopes/mutants/) | contains it | configurations | batches | before reduction | backend | time | distinct findings | without reduction: findings | correct kernel: findings |"
echo "|---|---|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|"
missed=0
n=0
while IFS=$'\t' read -r scope reproducer contains family kernel; do
  [[ -z "$scope" || "$scope" == \#* ]] && continue
  n=$((n + 1))
  file=scopes/mutants/$scope
  case $kernel in
    variant:*)
      bug=(--variant "${kernel#variant:}")
      good=(--variant fixed)
      what="variant ${kernel#variant:}"
      ;;
    plugin:*)
      IFS=: read -r _ buggy fixed <<< "$kernel"
      if [ ! -f "$EXAMPLES/$buggy" ] || [ ! -f "$EXAMPLES/$fixed" ]; then
        echo "| $reproducer | $family | plugin $buggy | $scope | $contains | not run: no $EXAMPLES/$buggy (a CUDA build's examples) |"
        continue
      fi
      bug=(--kernel-lib "$EXAMPLES/$buggy")
      good=(--kernel-lib "$EXAMPLES/$fixed")
      what="plugin $buggy"
      ;;
  esac
  read -r batches before configs <<< "$("$SG" prove --scope "$file" --family "$family" "${bug[@]}" --count 2> /dev/null |
    tail -1 | sed -nE 's/.*: ([0-9]+) batches \(([^ ]+) before reduction\).*, ([0-9]+) configurations.*/\1 \2 \3/p')"
  [ "$contains" = yes ] && holds=yes || holds="no (nearest)"
  for backend in $BACKENDS; do
    if [ "$backend" = gpu ] && [ "$gpu_ok" != 1 ]; then continue; fi
    read -r checked secs found <<< "$(run "$n-$backend-bug" --scope "$file" --backend "$backend" --family "$family" "${bug[@]}")"
    read -r _ _ full <<< "$(run "$n-$backend-full" --scope "$file" --backend "$backend" --family "$family" "${bug[@]}" --no-reduction)"
    read -r _ _ clean <<< "$(run "$n-$backend-good" --scope "$file" --backend "$backend" --family "$family" "${good[@]}")"
    if [ "$found" = 0 ] || [ "$found" = - ]; then missed=$((missed + 1)); found="$found MISSED"; fi
    if [ "$clean" != 0 ]; then missed=$((missed + 1)); clean="$clean (expected 0)"; fi
    echo "| $reproducer | $family | $what | $scope | $holds | ${configs:-?} | ${batches:-?} | ${before:-?} | $backend | $secs s | $found | $full | $clean |"
  done
done < "$MANIFEST"
echo
echo "rows: $n; planted bugs missed or correct kernels flagged: $missed"
[ "$missed" = 0 ]
