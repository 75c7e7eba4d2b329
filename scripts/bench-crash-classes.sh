#!/usr/bin/env bash
# The host benchmark of crash classes (docs/benchmarks.md, "Crash classes";
# docs/fuzzing.md#crash-classes), in one run: a Python provider
# (examples/python/bench/crashing_kpool_provider.py, python/slotguard's
# serve(), numpy on the host) that crashes (SIGSEGV) on every batch with no
# requests (about 4% of a kpool_tail campaign's stream) and sleeps 250 ms
# at each start, standing for a CUDA context. The fork server is off
# (SLOTGUARD_FORK_SERVER=0), so each crash costs a provider start, as a
# crash that loses its CUDA context does on the GPU.
#
#   clean    the same provider without the crash: the crash-free rate
#   classes  the crashing provider, crash classes on (fuzz's default
#            --crash-sample): target >= 0.5 of the crash-free rate
#   off      the crashing provider with --crash-sample 0 (every scenario
#            runs): what the classes save
#
# Prints one line starting "BENCH crash-classes:". Logs and reports go to
# $OUT (default ./bench-logs/crash-classes). Environment:
#   SLOTGUARD      the binary (default build/slotguard)
#   PYTHON         the interpreter (default /usr/bin/python3, Debian's)
#   JOBS           --jobs (default 2)
#   SECONDS_EACH   the classes campaign's seconds (default 120)
#   CLEAN_SECONDS  the crash-free campaign's (default 60)
#   OFF_SECONDS    the campaign without classes (default 60; 0: skipped)
#   START_SECONDS  the provider's sleep at each start (default 0.25)
#   SEED           campaign seed (default 1)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/bench-logs/crash-classes}
SG=${SLOTGUARD:-build/slotguard}
PY=${PYTHON:-/usr/bin/python3}
JOBS=${JOBS:-2}
SECONDS_EACH=${SECONDS_EACH:-120}
CLEAN_SECONDS=${CLEAN_SECONDS:-60}
OFF_SECONDS=${OFF_SECONDS:-60}
START_SECONDS=${START_SECONDS:-0.25}
SEED=${SEED:-1}
export SLOTGUARD_FORK_SERVER=0
mkdir -p "$OUT"
rm -f "$OUT/clean.json" "$OUT/classes.json" "$OUT/off.json"
P="$PY examples/python/bench/crashing_kpool_provider.py --start-seconds $START_SECONDS"

# campaign NAME SECONDS PROVIDER_ARGS [fuzz arguments...]
campaign() {
  local name=$1 seconds=$2 args=$3
  shift 3
  rm -rf "$OUT/$name-findings" "$OUT/$name.json" "$OUT/$name.provider.log"
  echo "=== $name: $SG fuzz --backend host --family kpool_tail --keep-going --jobs $JOBS --time $seconds --seed $SEED --kernel-cmd \"$P $args --log $OUT/$name.provider.log\" $*" >&2
  "$SG" fuzz --backend host --family kpool_tail --keep-going --jobs "$JOBS" --time "$seconds" --seed "$SEED" \
    --json "$OUT/$name.json" --out "$OUT/$name-findings" --kernel-cmd "$P $args --log $OUT/$name.provider.log" "$@" \
    >"$OUT/$name.log" 2>&1
  grep -E '^(slotguard: fuzz:|fuzz: deferred:)' "$OUT/$name.log" | cut -c1-400 >&2
}

campaign clean "$CLEAN_SECONDS" "--crash-percent 0"
campaign classes "$SECONDS_EACH" "--crash-on-no-requests"
[ "$OFF_SECONDS" != 0 ] && campaign off "$OFF_SECONDS" "--crash-on-no-requests" --crash-sample 0

"$PY" - "$OUT" "$START_SECONDS" "$SECONDS_EACH" <<'PYEOF'
import json, os, sys
out, start, seconds = sys.argv[1], sys.argv[2], sys.argv[3]
def load(name):
    try:
        return json.load(open(os.path.join(out, name + ".json")))
    except (OSError, ValueError):
        return None
def rate(r):
    return r["scenarios"] / r["seconds"] if r and r["seconds"] else 0.0
def lines(name, word):
    try:
        return sum(1 for l in open(os.path.join(out, name + ".provider.log")) if l.strip() == word)
    except OSError:
        return 0
clean, classes, off = load("clean"), load("classes"), load("off")
base = rate(clean)
r = rate(classes)
x = r / base if base else 0.0
text = "BENCH crash-classes: %.0f scenarios/s = %.2f of the crash-free %.0f/s (target >= 0.50: %s)" % (
    r, x, base, "PASS" if x >= 0.5 else "FAIL")
if classes:
    cls = classes.get("crash_classes", [])
    text += "; %d scenarios checked, %d deferred in %.0f s (--time %s), %d crashes, %d provider starts (%s s each)" % (
        classes["scenarios"], classes.get("deferred", 0), classes["seconds"], seconds, lines("classes", "crash"),
        lines("classes", "start"), start)
    for c in cls:
        text += "; class %s (%s): %d deferred, %d sampled%s" % (c["signature"], c["shape"], c["deferred"], c["sampled"],
                                                               ", retired" if c["retired"] else "")
    findings = classes.get("findings", [])
    if findings:
        text += "; reproducer %s (from %s)" % (findings[0]["shape"], findings[0]["original_shape"])
if off:
    share = off["finding_scenarios"] / off["scenarios"] if off["scenarios"] else 0
    text += "; without classes (--crash-sample 0): %.0f scenarios/s = %.2f of crash-free, %.1f%% of its scenarios crashed, %d provider starts" % (
        rate(off), rate(off) / base if base else 0, 100 * share, lines("off", "start"))
print(text)
PYEOF
echo "logs: $OUT" >&2
