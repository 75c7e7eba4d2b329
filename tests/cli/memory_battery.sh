#!/usr/bin/env bash
# Malformed and oversized inputs under a memory limit (ulimit -v): each is
# one error line with its exit code, never an abort, a hang or the machine's
# memory. And the memory estimate (--max-memory-mib) is an upper bound:
# scenarios run within their own estimate plus a fixed allowance for the
# binary. Usage: memory_battery.sh SLOTGUARD
set -uo pipefail
SG=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect CODE FIRST-LINE-PART -- COMMAND...: runs it (stdout and stderr
# together), checks the exit code and that the first line holds the text.
expect() {
  local code=$1 text=$2
  shift 3
  local out rc
  out=$(timeout 120 "$@" 2>&1)
  rc=$?
  local first=${out%%$'\n'*}
  if [ "$rc" != "$code" ] || [[ "$first" != *"$text"* ]]; then
    echo "FAIL: $* -> exit $rc (expected $code), first line: ${first:0:300}"
    echo "      expected it to hold: $text"
    failures=$((failures + 1))
  else
    echo "ok    exit $rc: ${first:0:160}"
  fi
}

scenario() {  # scenario NAME BATCH GROUPS [NUM_BLOCKS]
  printf '{"slotguard": 1, "name": "%s", "num_blocks": %s, "batch": %s, "groups": %s}\n' \
    "$1" "${4:-8}" "$2" "$3" > "$work/$1.json"
}
paged='[{"name": "p", "kernel": "paged", "block_size": 16, "block_table": [[1]]}]'
paged4='[{"name": "a", "kernel": "paged", "block_size": 16, "block_table": [[1]]},
         {"name": "b", "kernel": "paged", "block_size": 16, "block_table": [[1]]},
         {"name": "c", "kernel": "paged", "block_size": 16, "block_table": [[1]]},
         {"name": "d", "kernel": "paged", "block_size": 16, "block_table": [[1]]}]'

# Everything below runs with at most 1.5 GiB of address space (per
# process: ulimit -v limits each one, a worker process included). Few
# malloc arenas, so that the address space a thread reserves stays small.
export MALLOC_ARENA_MAX=2
if ! ulimit -v $((1536 * 1024)) 2>/dev/null; then
  echo "memory battery skipped: ulimit -v is not available here"
  exit 77
fi

# A 200-byte file asking for 2^26 tokens: 2^26 * 64 bytes = 4096 MiB to
# check, plus 16 MiB for the process and its few KiB of document; refused up front.
scenario huge-tokens '{"query_start_loc": [0, 1], "num_tokens": 67108864}' "$paged"
expect 2 "huge-tokens.json:/batch/num_tokens: checking this scenario would take at least 4113 MiB" -- \
  "$SG" check --backend host "$work/huge-tokens.json"
expect 2 "/batch/num_tokens: checking this scenario would take at least" -- \
  "$SG" replay --backend host "$work/huge-tokens.json"
# The same with -j 2 beside a good file: the good one still runs, JSON written.
scenario small '{"query_start_loc": [0, 1]}' "$paged"
expect 2 "ok    $work/small.json" -- \
  "$SG" check --backend host -j 2 --json "$work/mixed.json" "$work/small.json" "$work/huge-tokens.json"
grep -q '"bad_input": 1' "$work/mixed.json" || { echo "FAIL: mixed.json lacks bad_input 1"; failures=$((failures + 1)); }

# 10 MB of '[': refused at the 33rd level, before any document is built.
python3 -c "import sys; sys.stdout.write('[' * 10000000)" > "$work/brackets.json"
expect 2 "brackets.json: line 1, column 33: arrays and objects nested deeper than 32 levels" -- \
  "$SG" check --backend host "$work/brackets.json"

# 6M explicit positions (12 MB): the parsed document would pass 256 MiB.
python3 -c "
import sys
n = 6000000
sys.stdout.write('{\"slotguard\": 1, \"name\": \"pos\", \"num_blocks\": 8, \"batch\": {\"query_start_loc\": [0, 1], \"positions\": [')
sys.stdout.write(','.join(['0'] * n))
sys.stdout.write(']}, \"groups\": [{\"name\": \"p\", \"kernel\": \"paged\", \"block_size\": 16, \"block_table\": [[1]]}]}')
" > "$work/positions.json"
expect 2 "positions.json: parsing it would take about" -- \
  "$SG" check --backend host --max-memory-mib 256 "$work/positions.json"
expect 2 "positions.json: file too large" -- \
  "$SG" check --backend host --max-file-mib 4 "$work/positions.json"

# Special files: never read, never waited on.
mkfifo "$work/fifo.json"
expect 2 "not a regular file (a FIFO)" -- "$SG" check --backend host "$work/fifo.json"
expect 2 "not a regular file (a FIFO)" -- "$SG" replay --backend host "$work/fifo.json"
expect 2 "/dev/zero: not a regular file (a character device)" -- "$SG" replay --backend host /dev/zero
mkdir "$work/dir"
expect 2 "is a directory" -- "$SG" replay --backend host "$work/dir"

# 100,000 groups load in linear time and hold.
python3 -c "
import json
groups = [{'name': 'g%d' % i, 'kernel': 'paged', 'block_size': 16, 'block_table': [[1]]} for i in range(100000)]
json.dump({'slotguard': 1, 'name': 'many', 'num_blocks': 8, 'batch': {'query_start_loc': [0, 1]}, 'groups': groups},
          open('$work/many-groups.json', 'w'))
"
expect 0 "ok    $work/many-groups.json" -- "$SG" check --backend host "$work/many-groups.json"

# Past the estimate's own check, the machine runs out: 8M tokens in 4 groups
# (about 1.3 GiB) under 1 GiB. Exit 3 naming the scenario, the other file
# still checked and the JSON report written.
scenario oom '{"query_start_loc": [0, 1], "num_tokens": 8388608}' "$paged4"
(
  failures=0
  ulimit -v $((1024 * 1024))
  expect 3 "oom.json (scenario 'oom'): out of memory" -- \
    "$SG" check --backend host -j 2 --max-memory-mib 100000 --json "$work/oom-report.json" \
    "$work/oom.json" "$work/small.json"
  exit $failures
) || failures=$((failures + 1))
grep -q '"environment_error": 1' "$work/oom-report.json" && grep -q '"hold": 1' "$work/oom-report.json" ||
  { echo "FAIL: oom-report.json lacks environment_error 1 and hold 1"; failures=$((failures + 1)); }
# ... and in a worker process (--isolate) the same, not a kernel fault;
# the worker goes on serving, so the next file holds (no no_fault).
(
  failures=0
  ulimit -v $((1024 * 1024))
  expect 3 "oom.json: oom: host backend: worker: out of memory" -- \
    "$SG" check --backend host --isolate --max-memory-mib 100000 "$work/oom.json"
  out=$("$SG" check --backend host --isolate --max-memory-mib 100000 "$work/oom.json" "$work/small.json" 2>&1)
  if [[ "$out" != *"ok    $work/small.json"* || "$out" == *no_fault* ]]; then
    echo "FAIL: after a worker ran out of memory the next file did not hold: $out"
    failures=$((failures + 1))
  fi
  exit $failures
) || failures=$((failures + 1))

# The estimate covers what checking takes: each scenario runs under its own
# estimate (printed by --max-memory-mib 1) plus 128 MiB for the binary.
scenario tokens '{"query_start_loc": [0, 1], "num_tokens": 4194304}' "$paged"
scenario ring '{"query_start_loc": [0, 1], "num_tokens": 4194304}' \
  '[{"name": "c", "kernel": "compressor_ring", "capacity": 4, "ring_block_size": 4, "block_table": [[1, 2, 3, 4]]}]'
scenario pool '{"query_start_loc": [0, 1], "num_tokens": 1048576}' "$paged" 200000
for run in "tokens" "tokens --isolate" "ring" "pool --writers" "pool --writers --isolate"; do
  set -- $run
  file=$1
  shift
  estimate=$("$SG" check --backend host --max-memory-mib 1 "$@" "$work/$file.json" 2>&1 |
             sed -n 's/.*would take at least \([0-9]*\) MiB.*/\1/p' | head -n 1)
  if [ -z "$estimate" ]; then
    echo "FAIL: no estimate in the error of --max-memory-mib 1 for $run"
    failures=$((failures + 1))
    continue
  fi
  # The error stops at the first term over the budget: the smallest budget
  # that loads is the whole estimate (bisected, in MiB).
  lo=$((estimate - 1)) hi=$estimate
  while ! "$SG" check --backend host --max-memory-mib "$hi" "$@" "$work/$file.json" > /dev/null 2>&1; do
    lo=$hi hi=$((hi * 2))
    [ "$hi" -lt $((1 << 20)) ] || { echo "FAIL: $run does not load at any budget"; failures=$((failures + 1)); continue 2; }
  done
  while [ $((hi - lo)) -gt 1 ]; do
    mid=$(((lo + hi) / 2))
    if "$SG" check --backend host --max-memory-mib "$mid" "$@" "$work/$file.json" > /dev/null 2>&1; then hi=$mid; else lo=$mid; fi
  done
  estimate=$hi
  (
    failures=0
    ulimit -v $(((estimate + 128) * 1024))
    expect 0 "ok    $work/$file.json" -- "$SG" check --backend host "$@" --max-memory-mib "$estimate" "$work/$file.json"
    echo "      (estimate $estimate MiB: ${run})"
    exit $failures
  ) || failures=$((failures + 1))
done

echo "memory battery: $failures failures"
[ "$failures" = 0 ]
