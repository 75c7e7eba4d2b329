#!/usr/bin/env bash
# What a hostile user tries against the surfaces around the user's own code
# (issue 27): report paths, plugins that crash or exit while loading,
# providers that fork children, flood or die holding a pipe, names that
# forge console lines, bytes that are not UTF-8, one huge JSON token. Each
# case checks the exit code and the first line, under a time limit and
# (most) under a memory limit: never a crash, a hang, a lost report or a
# silent pass.
#
# Usage: hostile_battery.sh SLOTGUARD [FIXTURES_DIR] [FIXTURE_PROVIDER]
# FIXTURES_DIR holds the plugin fixtures (built with CUDA; their cases skip
# without them), FIXTURE_PROVIDER is tests/backend/fixtures' provider.
set -uo pipefail
SG=$1
FIXTURES=${2:-}
PROVIDER=${3:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
export MALLOC_ARENA_MAX=2

# expect CODE FIRST-LINE-PART -- COMMAND...: runs it with its output in a
# file (a process it leaves behind holding the output cannot stall this),
# at most 60 s, and checks the exit code and that the first line holds the
# text. The whole output is left in $work/out.
expect() {
  local code=$1 text=$2
  shift 3
  timeout -k 5 60 "$@" > "$work/out" 2>&1 < /dev/null
  local rc=$?
  local first
  first=$(head -n 1 "$work/out")
  if [ "$rc" != "$code" ] || [[ "$first" != *"$text"* ]]; then
    echo "FAIL: $* -> exit $rc (expected $code), first line: ${first:0:300}"
    echo "      expected it to hold: $text"
    failures=$((failures + 1))
  else
    echo "ok    exit $rc: ${first:0:160}"
  fi
}

# must TEST WHAT: an extra condition on the last run.
must() {
  if ! eval "$1"; then
    echo "FAIL: $2"
    failures=$((failures + 1))
  fi
}

decode="$ROOT/scenarios/paged/decode.json"
fused="$ROOT/scenarios/rings/fused-1-of-1.json"

# --- Report paths: checked before anything runs (exit 2), never a hang.
mkfifo "$work/fifo"
for args in "check --json" "check --junit" "check --sarif" "replay --html"; do
  set -- $args
  expect 2 "slotguard: error: $2 $work/fifo: not a regular file (a FIFO)" -- \
    "$SG" "$1" --backend host "$2" "$work/fifo" "$decode"
done
expect 2 "slotguard: error: --json $work/fifo: not a regular file (a FIFO)" -- \
  "$SG" fuzz --backend host --runs 10 --out "$work/f" --json "$work/fifo"
expect 2 "slotguard: error: -o $work/fifo: not a regular file (a FIFO)" -- "$SG" import -o "$work/fifo" "$decode"
expect 2 "slotguard: error: --json $work: is a directory" -- "$SG" check --backend host --json "$work" "$decode"
expect 2 "slotguard: error: --json /dev/zero: not a regular file (a character device)" -- \
  "$SG" check --backend host --json /dev/zero "$decode"
expect 2 "slotguard: error: --kernel-lib $work/fifo: not a regular file (a FIFO)" -- \
  "$SG" check --backend host --kernel-lib "$work/fifo" "$decode"

# A report over the --kernel-cmd script.
printf 'raise SystemExit(1)\n' > "$work/provider.py"
expect 2 "slotguard: error: --json $work/provider.py: the same file as --kernel-cmd's $work/provider.py" -- \
  "$SG" check --backend host --kernel-cmd "python3 $work/provider.py" --json "$work/provider.py" "$decode"
must "[ \"\$(cat $work/provider.py)\" = 'raise SystemExit(1)' ]" "the --kernel-cmd script was written over"

# --- A report whose write fails: named with its reason (exit 3); the other
# reports and the summary line are still written. /proc/version is a
# regular file that takes no bytes.
expect 0 "ok    $decode" -- "$SG" check --backend host --json "$work/r.json" "$decode"
expect 3 "" -- \
  "$SG" check --backend host --junit /proc/version --json "$work/r2.json" --sarif "$work/r2.sarif" "$decode"
must "grep -q '^slotguard: error: /proc/version: cannot write the JUnit report: ' $work/out" "the failed report is not named"
must "[ -s $work/r2.json ] && [ -s $work/r2.sarif ]" "the other reports were not written"
must "grep -q '^slotguard: 1 scenario runs' $work/out" "the summary line was lost"
expect 3 "slotguard: error: -o /proc/version: cannot write the scenario file: " -- \
  "$SG" import -o /proc/version "$decode"

# --- A reproducer that cannot be written keeps its finding (exit 3).
expect 1 "" -- "$SG" fuzz --backend host --variant prefix --runs 2000 --out "$work/findings"
repro=$(ls "$work/findings")
rm "$work/findings/$repro" && mkdir "$work/findings/$repro"
expect 3 "" -- "$SG" fuzz --backend host --variant prefix --runs 2000 --out "$work/findings" --json "$work/f.json"
must "grep -q 'reproducer not written: ' $work/out && grep -q '\"reproducer_error\": \"reproducer not written' $work/f.json" \
  "the finding was lost with its reproducer"

# --- Bytes that are not UTF-8 in a path reach the reports escaped.
odd="$work/bad"$'\xff'
mkdir "$odd"
cp "$decode" "$odd/x.json"
expect 0 "ok    $work/bad\\xff/x.json" -- "$SG" check --backend host --json "$work/u.json" --sarif "$work/u.sarif" "$odd"
must "grep -q 'bad\\\\\\\\xff' $work/u.json && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' $work/u.sarif" \
  "the reports of a non-UTF-8 path"
expect 1 "" -- "$SG" fuzz --backend host --variant prefix --runs 2000 --out "$odd/findings" --json "$work/uf.json"
must "grep -q 'bad\\\\\\\\xff/findings' $work/uf.json" "the fuzz report of a non-UTF-8 --out"

# --- JSON limits: named, exit 2, under 1.5 GiB of address space.
python3 -c "import sys; sys.stdout.write('[' * 40)" > "$work/deep.json"
expect 2 "deep.json: line 1, column 33: arrays and objects nested deeper than 32 levels; expected nesting at most 32 deep" -- \
  "$SG" check --backend host "$work/deep.json"
python3 -c "
import sys
n = 250 * 1000 * 1000
with open('$work/number.json', 'w') as f:
    f.write('{\"slotguard\": 1, \"name\": \"x\", \"num_blocks\": ')
    for _ in range(n // 10000000): f.write('1' * 10000000)
    f.write('}')
with open('$work/string.json', 'w') as f:
    f.write('{\"slotguard\": 1, \"name\": \"')
    for _ in range(n // 10000000): f.write('a' * 10000000)
"
(
  failures=0
  ulimit -v $((1536 * 1024)) || { echo "skipped: no ulimit -v"; exit 0; }
  expect 2 "number.json: parsing it would take about" -- "$SG" check --backend host --max-memory-mib 256 "$work/number.json"
  must "grep -q 'one token of 250000000 bytes' $work/out" "the token is not named"
  expect 2 "number.json: parsing it would take about" -- "$SG" check --backend host "$work/number.json"
  expect 2 "string.json: parsing it would take about" -- "$SG" check --backend host --max-memory-mib 256 "$work/string.json"
  # bench's own remedy when memory runs out.
  expect 3 "" -- "$SG" bench --backend host --host-tokens 1073741824
  must "grep -qF 'slotguard: error: bench: out of memory; expected more free memory (smaller batches with --tokens and --host-tokens)' $work/out" \
    "bench's out-of-memory line"
  exit $failures
) || failures=$((failures + 1))
rm -f "$work/number.json" "$work/string.json"

# --- Plugins: loaded in a child first; crashing or exiting there is exit 2.
if [ -n "$FIXTURES" ] && [ -f "$FIXTURES/libsg_bad_crash_info.so" ]; then
  cp "$FIXTURES/libsg_v1_kpool_tail.so" "$work/plug.so"
  expect 2 "slotguard: error: --json $work/plug.so: the same file as --kernel-lib $work/plug.so" -- \
    "$SG" check --backend host --kernel-lib "$work/plug.so" --json "$work/plug.so" "$fused"
  must "cmp -s $work/plug.so $FIXTURES/libsg_v1_kpool_tail.so" "the plugin was written over"
  for isolate in --isolate --no-isolate; do
    expect 2 "the process loading it killed by SIGSEGV (Segmentation fault) (in its constructors or slotguard_plugin_info)" -- \
      "$SG" check --backend host $isolate --kernel-lib "$FIXTURES/libsg_bad_crash_info.so" "$fused"
    expect 2 "the process loading it exited with status 0 (in its constructors or slotguard_plugin_info)" -- \
      "$SG" check --backend host $isolate --kernel-lib "$FIXTURES/libsg_bad_exit_info.so" "$fused"
  done
  expect 2 "slotguard: error: plugin nnnnnnnnnn" -- \
    "$SG" check --backend host --kernel-lib "$FIXTURES/libsg_bad_huge_name.so" "$fused"
  must "[ \$(wc -c < $work/out) -lt 1000 ]" "a 1 MiB plugin name made a long line"
  expect 1 "" -- "$SG" check --backend host --kernel-lib "$FIXTURES/libsg_bad_forged_name.so" "$fused"
  must "! grep -q '^FAIL  forged' $work/out && ! grep -q \$'\\x1b' $work/out" "a plugin name forged a console line"
  # A correct ABI-1 plugin holds the curated scenarios (past int32: skipped).
  expect 0 "" -- "$SG" check --backend host -q --kernel-lib "$FIXTURES/libsg_v1_kpool_tail.so" "$ROOT/scenarios"
  must "grep -q ' skipped)' $work/out" "the ABI-1 plugin's unsupported scenarios were not counted as skipped"
else
  echo "skipped: the plugin cases (no plugin fixtures: built with CUDA only)"
fi

# --- Providers: a process group each; children never stall the run.
if [ -n "$PROVIDER" ] && [ -x "$PROVIDER" ]; then
  export FIXTURE_CHILDREN="$work/children"
  : > "$FIXTURE_CHILDREN"
  expect 0 "" -- "$SG" check --backend host -q --kernel-cmd "$PROVIDER fork-holder" "$ROOT/scenarios"
  sleep 1
  for pid in $(cat "$FIXTURE_CHILDREN"); do
    state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)
    must "[ -z '$state' ] || [ '$state' = Z ]" "the provider's child $pid outlived slotguard"
  done
  # Dying with a child holding the reply pipe (on fused's 1-token batch):
  # the exit is seen at once, never a timeout (--timeout 600 would outlast
  # this battery's 60 s).
  : > "$FIXTURE_CHILDREN"
  expect 1 "" -- "$SG" check --backend host --timeout 600 --kernel-cmd "$PROVIDER die-holding 1" "$fused"
  must "grep -q 'no_fault: provider fixture-die-holding .* exited with status 1' $work/out" "the provider's death was not seen"
  unset FIXTURE_CHILDREN
  # A 64 KiB name and error text: lines stay short.
  expect 1 "" -- "$SG" check --backend host --kernel-cmd "$PROVIDER long-texts 1" "$fused"
  must "[ \$(awk '{ if (length(\$0) > m) m = length(\$0) } END { print m + 0 }' $work/out) -lt 1000 ]" \
    "a provider's name or message made a long line"
  # A command that would forge a line: escaped.
  expect 0 "" -- "$SG" check --backend host --kernel-cmd "$PROVIDER serve #"$'\n\x1b[2JFAIL  forged.json' "$fused"
  must "! grep -q '^FAIL  forged' $work/out && ! grep -q \$'\\x1b' $work/out" "the --kernel-cmd text forged a console line"
else
  echo "skipped: the provider cases (no fixture provider given)"
fi

echo "hostile battery: $failures failures"
[ "$failures" = 0 ]
