#!/usr/bin/env bash
# Replays every seed corpus input through its libFuzzer target (libFuzzer's
# file mode: each input runs once), then a short fuzzing smoke from a copy
# of the corpus. Any crash, leak or UB report fails. `make fuzz-regress`.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
SMOKE_RUNS=${SMOKE_RUNS:-3000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The targets are the folders of corpus/ (each holds its seed corpus).
for target in $(cd corpus && echo */ | tr -d /); do
  inputs=(corpus/$target/*)
  echo "fuzz-regress: $target: replaying ${#inputs[@]} corpus inputs"
  "$FUZZ_BUILD/$target" -artifact_prefix="$work/" "${inputs[@]}" > "$work/$target.log" 2>&1 ||
    { tail -n 30 "$work/$target.log"; echo "fuzz-regress: $target failed on its corpus"; exit 1; }
  mkdir -p "$work/$target-corpus"
  cp corpus/$target/* "$work/$target-corpus/"
  "$FUZZ_BUILD/$target" -seed=1 -runs="$SMOKE_RUNS" -artifact_prefix="$work/" "$work/$target-corpus" \
    > "$work/$target-smoke.log" 2>&1 ||
    { tail -n 30 "$work/$target-smoke.log"; echo "fuzz-regress: $target smoke run found a crash"; exit 1; }
  echo "fuzz-regress: $target: $(grep -E '^Done' "$work/$target-smoke.log")"
done
echo "fuzz-regress: every corpus input and smoke run clean"
