#!/usr/bin/env bash
# Fuzzing speed and detection, measured in one run (a benchmark, not a test):
#   - time to first finding for every non-fixed variant from an empty corpus,
#     median over SEEDS seeds, with `slotguard fuzz --backend host` and with
#     the fuzz_mapping libFuzzer target;
#   - fuzz_mapping exec/s on one core beside an empty libFuzzer target's, for
#     the ASan+UBSan build and (UBSAN_BUILD) the UBSan-only build;
#   - `slotguard fuzz` scenarios/s by batch size on the host backend, and on
#     the batched GPU backend when usable (scripts/fuzz-throughput.sh).
# Prints a markdown table. `make fuzz-bench`. SEEDS (10), LIMIT seconds per try (120).
set -uo pipefail
cd "$(dirname "$0")/.."
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
BUILD=${BUILD:-build}
SEEDS=${SEEDS:-10}
LIMIT=${LIMIT:-120}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "n/a"; else if (NR % 2) printf "%.3f", v[(NR+1)/2]; else printf "%.3f", (v[NR/2]+v[NR/2+1])/2}'; }
json() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

variants="paged/unguarded paged/dummy_reads_row paged/pad_from_n kpool_tail/prefix qsa_ring/prefix
qsa_compressed/no_common_guard compressor_ring/prefix compressor_ring/clamp"
echo "| variant | slotguard fuzz (host) median s | found | fuzz_mapping median s | found |"
echo "|---|---:|---:|---:|---:|"
for fv in $variants; do
  family=${fv%/*}
  variant=${fv#*/}
  host_times=() lib_times=()
  host_found=0 lib_found=0
  for seed in $(seq 1 "$SEEDS"); do
    "$BUILD/slotguard" fuzz --backend host --family "$family" --variant "$variant" --seed "$seed" \
      --time "$LIMIT" --out "$work/out" --json "$work/f.json" > /dev/null 2>&1
    if [ "$(json "$work/f.json" found)" = True ]; then
      host_found=$((host_found + 1))
      host_times+=("$(json "$work/f.json" seconds)")
    fi
    rm -rf "$work/corpus" && mkdir -p "$work/corpus" "$work/art"
    start=$(now)
    SLOTGUARD_FUZZ_VARIANT="$fv" "$FUZZ_BUILD/fuzz_mapping" -seed="$seed" -max_total_time="$LIMIT" \
      -artifact_prefix="$work/art/" "$work/corpus" > "$work/lib.log" 2>&1
    rc=$?
    end=$(now)
    if [ $rc -ne 0 ] && grep -q "slotguard: scenario written" "$work/lib.log"; then
      lib_found=$((lib_found + 1))
      lib_times+=("$(echo "$end - $start" | bc -l)")
    fi
  done
  h=$(printf '%s\n' "${host_times[@]}" | grep . | median)
  l=$(printf '%s\n' "${lib_times[@]}" | grep . | median)
  echo "| $fv | $h | $host_found/$SEEDS | $l | $lib_found/$SEEDS |"
done

# exec/s from the wall time of a fixed number of runs from an empty corpus
# (libFuzzer's own figure counts whole seconds).
rate() {  # BINARY RUNS
  rm -rf "$work/corpus" && mkdir -p "$work/corpus"
  local start end
  start=$(now)
  "$1" -seed=1 -runs="$2" "$work/corpus" > "$work/exec.log" 2>&1
  end=$(now)
  echo "$2 / ($end - $start)" | bc -l | cut -d. -f1
}
echo
echo "fuzz_mapping: $(rate "$FUZZ_BUILD/fuzz_mapping" 200000) exec/s on one core (ASan+UBSan); empty target: $(rate "$FUZZ_BUILD/fuzz_empty" 20000000) exec/s"
if [ -n "${UBSAN_BUILD:-}" ] && [ -x "$UBSAN_BUILD/fuzz_mapping" ]; then
  echo "fuzz_mapping: $(rate "$UBSAN_BUILD/fuzz_mapping" 500000) exec/s on one core (UBSan only); empty target: $(rate "$UBSAN_BUILD/fuzz_empty" 20000000) exec/s"
fi
echo
# slotguard fuzz scenarios/s by batch size, host and (when usable) the batched GPU backend.
BUILD="$BUILD" SECONDS_EACH="${SECONDS_EACH:-10}" scripts/fuzz-throughput.sh
