#!/usr/bin/env bash
# The benchmark of shrinking within the budget (docs/benchmarks.md,
# "Shrinking within the budget"; docs/fuzzing.md#shrinking-within-the-budget),
# in one run on the host: the two-bug plugin (examples/plugins/rings_campaign.cu,
# its known difference suppressed) in a `fuzz --keep-going --time T`
# campaign, then a `--runs N` campaign of the same seed over the same
# scenarios (N: those the timed one checked). Prints each campaign's
# signatures with their reproducers' shapes, and one line "BENCH
# shrink-budget:" saying whether they are the same.
#   SLOTGUARD  the binary (default build/slotguard)
#   PLUGIN     the plugin (default build/examples/libsg_rings_campaign.so)
#   SECONDS_EACH  --time of the timed campaign (default 20)
#   JOBS       --jobs (default 2)
#   SEED       (default 1)
#   OUT        logs and reports (default ./bench-logs/shrink-budget)
set -uo pipefail
cd "$(dirname "$0")/.."
SG=${SLOTGUARD:-build/slotguard}
PLUGIN=${PLUGIN:-build/examples/libsg_rings_campaign.so}
SECONDS_EACH=${SECONDS_EACH:-20}
JOBS=${JOBS:-2}
SEED=${SEED:-1}
OUT=${OUT:-$PWD/bench-logs/shrink-budget}
mkdir -p "$OUT"
rm -rf "$OUT"/*.json "$OUT"/*-findings
common=(--kernel-lib "$PLUGIN" --keep-going --seed "$SEED" --jobs "$JOBS"
        --suppressions examples/plugins/rings_campaign.suppressions.json)
echo "=== timed: $SG fuzz ${common[*]} --time $SECONDS_EACH" >&2
"$SG" fuzz "${common[@]}" --time "$SECONDS_EACH" --json "$OUT/timed.json" --out "$OUT/timed-findings" >"$OUT/timed.log" 2>&1
runs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["scenarios"])' "$OUT/timed.json")
echo "=== runs: $SG fuzz ${common[*]} --runs $runs" >&2
"$SG" fuzz "${common[@]}" --runs "$runs" --json "$OUT/runs.json" --out "$OUT/runs-findings" >"$OUT/runs.log" 2>&1
echo "=== at-end: $SG fuzz ${common[*]} --time $SECONDS_EACH --shrink-share 0" >&2
"$SG" fuzz "${common[@]}" --time "$SECONDS_EACH" --shrink-share 0 --json "$OUT/at-end.json" --out "$OUT/at-end-findings" \
  >"$OUT/at-end.log" 2>&1
python3 - "$OUT" "$SECONDS_EACH" <<'PYEOF'
import json, os, sys
out, seconds = sys.argv[1], sys.argv[2]
def load(name):
    return json.load(open(os.path.join(out, name + ".json")))
def found(r):
    return {f["signature"]: (f["shape"], f["original_shape"], f["shrunk"]) for f in r["findings"] if f["suppressed_by"] is None}
timed, runs = load("timed"), load("runs")
t, r = found(timed), found(runs)
def text(fs):
    return "; ".join("%s: %s (from %s, %d shrunk)" % (s, v[0], v[1], v[2]) for s, v in sorted(fs.items()))
cut = sum(1 for l in open(os.path.join(out, "timed.log")) if "cut short" in l)
same = {s: v[0] for s, v in t.items()} == {s: v[0] for s, v in r.items()}
print("BENCH shrink-budget: --time %s: %d signatures in %d scenarios (%.1f s), %d shrinks cut short: %s" % (
    seconds, len(t), timed["scenarios"], timed["seconds"], cut, text(t)))
print("BENCH shrink-budget: --runs %d: %d signatures: %s" % (runs["scenarios"], len(r), text(r)))
print("BENCH shrink-budget: %s" % ("SAME signatures and reproducer shapes" if same else "DIFFERENT"))
e = found(load("at-end"))
print("BENCH shrink-budget: --time %s --shrink-share 0 (shrunk at the deadline): %d signatures: %s" % (seconds, len(e), text(e)))
PYEOF
