#!/usr/bin/env bash
# Time for `slotguard fuzz` to find every historical (non-fixed) variant,
# median over SEEDS seeds, on each BACKENDS backend with --jobs JOBS: the
# detection half of a fuzzing benchmark (a benchmark, not a test). The
# variants come from `slotguard list`. Prints a markdown table.
#   BUILD (build), BACKENDS ("host gpu" when a GPU is usable, else "host"),
#   JOBS (nproc), SEEDS (5), LIMIT seconds per try (60)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc)}
SEEDS=${SEEDS:-5}
LIMIT=${LIMIT:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "${BACKENDS:-}" ]; then
  BACKENDS="host"
  "$BUILD/slotguard" fuzz --backend gpu --runs 1 --out "$work/out" > /dev/null 2>&1 && BACKENDS="host gpu"
fi
median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "n/a"; else if (NR % 2) printf "%.3f", v[(NR+1)/2]; else printf "%.3f", (v[NR/2]+v[NR/2+1])/2}'; }
json() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
# "family/variant" for every variant but fixed, from the registry listing.
variants=$("$BUILD/slotguard" list | awk '
  /^  [a-z_]+: / { family = substr($1, 1, length($1) - 1); next }
  /^    [a-z_]+: / { v = substr($1, 1, length($1) - 1); if (v != "fixed" && v != "param") print family "/" v }')
echo "slotguard fuzz --jobs $JOBS, $SEEDS seeds, at most $LIMIT s each"
echo
header="| variant |" rule="|---|"
for b in $BACKENDS; do header="$header $b median s | $b found |"; rule="$rule---:|---:|"; done
echo "$header"
echo "$rule"
for fv in $variants; do
  row="| $fv |"
  for backend in $BACKENDS; do
    times=() found=0
    for seed in $(seq 1 "$SEEDS"); do
      "$BUILD/slotguard" fuzz --backend "$backend" --jobs "$JOBS" --family "${fv%/*}" --variant "${fv#*/}" --seed "$seed" \
        --time "$LIMIT" --out "$work/out" --json "$work/f.json" > /dev/null 2>&1
      if [ "$(json "$work/f.json" found)" = True ]; then
        found=$((found + 1))
        times+=("$(json "$work/f.json" seconds)")
      fi
    done
    row="$row $(printf '%s\n' "${times[@]}" | grep . | median) | $found/$SEEDS |"
  done
  echo "$row"
done
