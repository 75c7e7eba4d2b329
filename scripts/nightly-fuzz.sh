#!/usr/bin/env bash
# Nightly fuzzing: each libFuzzer target with -fork for a time budget, the
# corpus merged back into corpus/, every crash turned into a scenario file,
# then a `slotguard fuzz --keep-going` campaign (every distinct finding,
# one reproducer each; SARIF beside its JSON), and a summary. `make nightly`.
# The targets are the folders of corpus/ (each holds its seed corpus).
#   NIGHTLY_SECONDS (default 3600): budget per target
#   NIGHTLY_RUNS: a number of executions per target instead of a time budget
#     (one process per target, no -fork; e.g. 10000000)
#   NIGHTLY_TARGETS (default every folder of corpus/): the targets to run
#   NIGHTLY_JOBS (default nproc): libFuzzer -fork workers
#   NIGHTLY_DIR (default nightly/): artifacts, new corpus, findings, logs
#   NIGHTLY_SUPPRESSIONS (default .slotguard/suppressions.json when it
#     exists): the campaign's known differences (docs/suppressions.md)
set -uo pipefail
cd "$(dirname "$0")/.."
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
BUILD=${BUILD:-build}
SECONDS_PER_TARGET=${NIGHTLY_SECONDS:-3600}
JOBS=${NIGHTLY_JOBS:-$(nproc)}
OUT=${NIGHTLY_DIR:-nightly}
mkdir -p "$OUT/findings" "$OUT/logs"
RUNS=${NIGHTLY_RUNS:-}
TARGETS=${NIGHTLY_TARGETS:-$(cd corpus && echo */ | tr -d /)}
status=0
for target in $TARGETS; do
  mkdir -p "$OUT/artifacts/$target" "$OUT/corpus/$target"
  if [ -n "$RUNS" ]; then
    echo "nightly: $target for $RUNS executions"
    "$FUZZ_BUILD/$target" -runs="$RUNS" -print_final_stats=1 \
      -artifact_prefix="$OUT/artifacts/$target/" "$OUT/corpus/$target" corpus/$target \
      > "$OUT/logs/$target.log" 2>&1 || status=1
  else
    echo "nightly: $target for ${SECONDS_PER_TARGET}s with $JOBS workers"
    "$FUZZ_BUILD/$target" -fork="$JOBS" -ignore_crashes=1 -max_total_time="$SECONDS_PER_TARGET" \
      -artifact_prefix="$OUT/artifacts/$target/" "$OUT/corpus/$target" corpus/$target \
      > "$OUT/logs/$target.log" 2>&1
  fi
  # Keep only inputs that add coverage, in the committed seed corpus.
  "$FUZZ_BUILD/$target" -merge=1 corpus/$target "$OUT/corpus/$target" > "$OUT/logs/$target-merge.log" 2>&1
  for crash in "$OUT"/artifacts/$target/crash-* "$OUT"/artifacts/$target/leak-* "$OUT"/artifacts/$target/timeout-*; do
    [ -f "$crash" ] || continue
    case "$crash" in *.json) continue ;; esac
    status=1
    if [ "$target" = fuzz_mapping ]; then
      "$BUILD/slotguard" import "$crash" --out "$OUT/findings/$(basename "$crash").json" || true
    else
      cp "$crash" "$OUT/findings/"  # the input that broke the loader, as is
    fi
  done
done
SUPPRESSIONS=${NIGHTLY_SUPPRESSIONS:-}
[ -n "$SUPPRESSIONS" ] || { [ -f .slotguard/suppressions.json ] && SUPPRESSIONS=.slotguard/suppressions.json; }
"$BUILD/slotguard" fuzz --backend auto --time "$SECONDS_PER_TARGET" --seed "$(date +%Y%m%d)" --keep-going \
  ${SUPPRESSIONS:+--suppressions "$SUPPRESSIONS"} --jobs "$JOBS" --out "$OUT/findings" --json "$OUT/fuzz.json" \
  --sarif "$OUT/fuzz.sarif" > "$OUT/logs/slotguard-fuzz.log" 2>&1 || status=1
echo "nightly: summary"
for target in $TARGETS; do
  echo "  $target: $(grep -E '^Done|INFO: fuzzed for|ERROR' "$OUT/logs/$target.log" | tail -n 1)"
  [ -z "$RUNS" ] || echo "  $target: $(grep -E 'stat::average_exec_per_sec|stat::peak_rss_mb' "$OUT/logs/$target.log" | tr -s ' ' | tr '\n' ' ')"
  echo "  $target corpus: $(ls corpus/$target | wc -l) inputs after merge"
done
echo "  slotguard fuzz: $(tail -n 1 "$OUT/logs/slotguard-fuzz.log")"
# The campaign's distinct findings, suppressions and stale entries, one line each.
campaign_lines() { grep -E '^fuzz: (finding [0-9]+ of [0-9]+, signature|suppressed |stale suppression )' "$OUT/logs/slotguard-fuzz.log"; }
campaign_lines | sed 's/^/  /'
findings=$(ls "$OUT/findings" | wc -l)
echo "  findings: $findings scenario files in $OUT/findings (replay each with: slotguard replay FILE)"
# The same as Markdown, for a CI job to post ($OUT/summary.md).
{
  echo "## slotguard nightly $(date -u +%Y-%m-%d) — $([ $status = 0 ] && echo 'clean' || echo 'FINDINGS')"
  echo
  echo "| target | result | corpus after merge |"
  echo "|---|---|---|"
  for target in $TARGETS; do
    result=$(grep -E '^Done|INFO: fuzzed for|ERROR' "$OUT/logs/$target.log" | tail -n 1 | tr '|' '/')
    echo "| \`$target\` | ${result:-no result} | $(ls corpus/$target | wc -l) inputs |"
  done
  echo
  echo "slotguard fuzz: \`$(tail -n 1 "$OUT/logs/slotguard-fuzz.log")\`"
  echo
  campaign_lines | sed 's/^fuzz: \(.*\)$/- \1/'
  echo
  if [ "$findings" -gt 0 ]; then
    echo "Findings ($findings), each replayed with \`slotguard replay FILE\`:"
    echo
    for f in "$OUT"/findings/*; do echo "- \`$(basename "$f")\`"; done
  else
    echo "No findings."
  fi
} > "$OUT/summary.md"
echo "  markdown: $OUT/summary.md"
exit $status
