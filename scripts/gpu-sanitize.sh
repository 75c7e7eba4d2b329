#!/usr/bin/env bash
# `make gpu-sanitize`: compute-sanitizer memcheck and initcheck over
# scenarios/ and the seed corpus, on a machine with a CUDA device. The
# kernels run in-process (--no-isolate) so the sanitizer sees every launch,
# with the writers and the CUDA-graph replays on. The fuzz_mapping corpus is
# bytes: each input becomes its scenario with `slotguard import` first.
# Exit 0 when the sanitizer reports no error; logs under $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OUT=${OUT:-$PWD/sanitize-logs}
SANITIZER=${SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
if [ ! -x "$SANITIZER" ]; then
  echo "gpu-sanitize: compute-sanitizer not found (CUDA toolkit); it needs a GPU machine" >&2
  exit 3
fi
mkdir -p "$OUT/corpus"
for f in corpus/fuzz_mapping/*; do
  "$BUILD/slotguard" import "$f" -o "$OUT/corpus/mapping-$(basename "$f").json" >/dev/null || exit 3
done
for f in corpus/fuzz_scenario_json/*; do  # only the ones that load: the rest are bad-input seeds
  "$BUILD/slotguard" check --backend host --quiet "$f" >/dev/null 2>&1
  [ $? -eq 2 ] || cp "$f" "$OUT/corpus/json-$(basename "$f" .json).json"
done
status=0
for tool in memcheck initcheck; do
  for mode in --writers --cuda-graph; do
    log="$OUT/$tool${mode}.log"
    "$SANITIZER" --tool "$tool" --error-exitcode 99 "$BUILD/slotguard" check --backend gpu --no-isolate \
      $mode --quiet scenarios/ "$OUT/corpus" >"$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY" "$log" | tail -n 1)
    echo "$tool $mode: ${summary:-no summary} (check exit $rc)"
    # 99: the sanitizer found errors; 3: no GPU or a CUDA error. 0/1 are the
    # check's own verdicts (corpus inputs carry no expect).
    if [ $rc -eq 99 ] || [ $rc -eq 3 ] || [ -z "$summary" ]; then status=1; fi
  done
done
exit $status
