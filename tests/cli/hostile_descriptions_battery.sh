#!/usr/bin/env bash
# What a hostile user tries against the surfaces of family descriptions,
# scope files, per-request kinds and prove (issue 35): description files
# with thousands of lets, ranges that hold no value, formulas that fail on
# a scenario, texts that would forge console lines, paths that are not
# UTF-8, a family path of thousands of files, scopes that ask for 2^28
# tokens, reports written over the inputs, symbolic links and long names,
# and signals during a proof or a replay. Each case checks the exit code
# and the first line, under 60 s and (the memory cases) under a memory
# limit: never a crash, a hang, a lost or forged report, or a silent pass.
#
# Usage: hostile_descriptions_battery.sh SLOTGUARD [FIXTURE_PROVIDER]
# FIXTURE_PROVIDER is tests/backend/fixtures' provider (the replay-stop
# case skips without it); the per-request provider needs python3 and numpy.
set -uo pipefail
SG=$1
PROVIDER=${2:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
failures=0
export MALLOC_ARENA_MAX=2
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# expect CODE FIRST-LINE-PART -- COMMAND...: as hostile_battery.sh's.
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

must() {
  if ! eval "$1"; then
    echo "FAIL: $2"
    failures=$((failures + 1))
  fi
}

decode="$ROOT/scenarios/paged/decode.json"

# family NAME [JSON-FRAGMENT]: a slot-mapping description w with one
# parameter, block_size, and the fragment's keys added (or replacing).
family() {
  $PY - "$work/$1.json" "${2:-{\}}" <<'EOF'
import json, sys
d = {"slotguard_family": 1, "name": "w", "meaning": "a test family",
     "params": [{"name": "block_size", "meaning": "tokens per block", "min": 1, "example": 16}],
     "column": "pos / block_size", "offset": "pos % block_size", "page": "block_size"}
d.update(json.loads(sys.argv[2]))
json.dump(d, open(sys.argv[1], "w"))
EOF
}
# scenario FILE GROUP-JSON: one request of 3 tokens, one group.
scenario() {
  printf '{"slotguard": 1, "name": "s", "num_blocks": 8, "batch": {"query_start_loc": [0, 3]}, "groups": [%s]}\n' \
    "$2" > "$1"
}

# --- 2. Thousands of lets: linear memory and time (12,000: 3 GB and an
# abort before), under 1 GiB of address space.
$PY - "$work/lets.json" <<'EOF'
import json, sys
n = 12000
lets = {"l%05d" % i: ("pos" if i == 0 else "l%05d + 1" % (i - 1)) for i in range(n)}
json.dump({"slotguard_family": 1, "name": "many_lets", "meaning": "a chain of lets",
           "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 16}],
           "let": lets, "column": "(l%05d - %d) / block_size" % (n - 1, n - 1), "offset": "pos % block_size",
           "page": "block_size"},
          open(sys.argv[1], "w"))
EOF
scenario "$work/lets-s.json" '{"name": "g", "kernel": "many_lets", "block_size": 16, "block_table": [[1]]}'
(
  failures=0
  ulimit -v $((1024 * 1024)) || { echo "skipped: no ulimit -v"; exit 0; }
  expect 0 "ok    $work/lets-s.json" -- "$SG" check --backend host --family-file "$work/lets.json" "$work/lets-s.json"
  exit $failures
) || failures=$((failures + 1))

# --- 3. A family path that is not UTF-8: list --json escapes it (was exit 3).
odd="$work/bad"$'\xff'
mkdir "$odd"
family w
cp "$work/w.json" "$odd/w.json"
expect 0 "{" -- "$SG" list --json --family-file "$odd/w.json"
must "$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any(f[\"file\"].endswith(\"bad\\\\xff/w.json\") for f in d[\"families\"])' $work/out" \
  "list --json of a non-UTF-8 family path"

# --- 9. A range that holds no value is the description's error (fuzz
# checked nothing and exited 0).
family empty-range '{"params": [{"name": "block_size", "meaning": "b", "min": 4, "max": 2, "example": 4}]}'
expect 2 "empty-range.json:/params/0/max: max 2 below min 4: no value is in range; expected max >= min, got 2" -- \
  "$SG" list --family-file "$work/empty-range.json"
expect 2 "empty-range.json:/params/0/max: max 2 below min 4" -- \
  "$SG" fuzz --backend host --runs 50 --family-file "$work/empty-range.json" --family w --out "$work/f9"

# --- 19. Integers up to INT64_MAX are numbers (the last eight were "too large").
family int-max '{"params": [{"name": "block_size", "meaning": "b", "type": "i64", "min": 1, "max": 9223372036854775807, "example": 16}],
                 "select": ["pos < 9223372036854775800"]}'
expect 0 "families, their parameters and variants" -- "$SG" list --family-file "$work/int-max.json"
must "grep -q 'param block_size (i64, 1 .. 9223372036854775807' $work/out" "the max of INT64_MAX"

# --- 10, 11. A formula without a value on a scenario is that scenario's
# bad input (exit 2), never the kernel's no_fault, a stand-in default or max.
family divides '{"params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 16},
                             {"name": "shift", "meaning": "s", "min": 0, "example": 1}],
                 "column": "pos / block_size / shift"}'
scenario "$work/div0.json" '{"name": "g", "kernel": "w", "block_size": 16, "shift": 0, "block_table": [[1]]}'
expect 2 "" -- "$SG" check --backend host --family-file "$work/divides.json" "$work/div0.json"
must "grep -q \"division by zero\" $work/out && ! grep -q no_fault $work/out" "a formula's division by zero was the kernel's"
family bad-default '{"params": [{"name": "n", "meaning": "n", "min": 1, "example": 4},
                                {"name": "block_size", "meaning": "b", "min": 1, "default": "64 / (n - 1)"}]}'
scenario "$work/default.json" '{"name": "g", "kernel": "w", "n": 1, "block_table": [[1]]}'
expect 2 "default.json:/groups/0/block_size: default '64 / (n - 1)' of family w has no value: division by zero; expected parameters for which the family's formulas have values" -- \
  "$SG" check --backend host --family-file "$work/bad-default.json" "$work/default.json"
family bad-max '{"params": [{"name": "n", "meaning": "n", "min": 1, "example": 4},
                            {"name": "block_size", "meaning": "b", "min": 1, "max": "64 / (n - 1)", "example": 1}]}'
scenario "$work/max.json" '{"name": "g", "kernel": "w", "n": 1, "block_size": 16, "block_table": [[1]]}'
expect 2 "max.json:/groups/0/block_size: max '64 / (n - 1)' of family w has no value: division by zero" -- \
  "$SG" check --backend host --family-file "$work/bad-max.json" "$work/max.json"
family bad-example '{"params": [{"name": "n", "meaning": "n", "min": 1, "example": 1},
                                {"name": "block_size", "meaning": "b", "min": 1, "default": "64 / (n - 1)"}]}'
expect 2 "bad-example.json:/params/1/default: default '64 / (n - 1)' has no value (division by zero) for the example values" -- \
  "$SG" list --family-file "$work/bad-example.json"

# --- 14. Texts of a description, a constraint or a scope never forge a
# console line: escaped, one line each.
family forged '{"meaning": "m \u001b[2J",
                "params": [{"name": "block_size", "meaning": "b\nFAIL  forged param", "min": 1, "example": 16}],
                "constraints": [{"holds": "block_size % 2 == 0", "at": "block_size", "expected": "even\nFAIL  forged \u001b[31m"}],
                "variants": [{"name": "v", "meaning": "v\nFAIL  forged variant", "set": {"offset": "0"}}]}'
expect 0 "families, their parameters and variants" -- "$SG" list --family-file "$work/forged.json"
must "! grep -q '^FAIL  forged' $work/out && ! grep -q \$'\\x1b' $work/out" "list: a meaning forged a console line"
scenario "$work/odd.json" '{"name": "g", "kernel": "w", "block_size": 3, "block_table": [[1]]}'
expect 2 "odd.json:/groups/0/block_size: violates block_size % 2 == 0; expected even\\nFAIL  forged \\x1b[31m" -- \
  "$SG" check --backend host --family-file "$work/forged.json" "$work/odd.json"
must "! grep -q '^FAIL  forged' $work/out && ! grep -q \$'\\x1b' $work/out" "check: a constraint's expected forged a line"
printf '{"slotguard_scope": 1, "name": "x\\nslotguard: prove: no finding \\u001b[2J", "requests": [1], "tokens": [1]}\n' \
  > "$work/forged-scope.json"
expect 0 "prove: scope x\\nslotguard: prove: no finding \\x1b[2J" -- \
  "$SG" prove --backend host --count --scope "$work/forged-scope.json"
must "[ \$(grep -c '^slotguard: prove: ' $work/out) = 1 ] && ! grep -q \$'\\x1b' $work/out" "prove: the scope's name split a line"

# --- 13. A report is never written over an input: the family files, the
# family path's, the scope file, a regression reproducer.
family fam13
cp "$work/fam13.json" "$work/fam13.keep"
expect 2 "slotguard: error: --json $work/fam13.json: the same file as the family file $work/fam13.json" -- \
  "$SG" check --backend host --family-file "$work/fam13.json" --json "$work/fam13.json" "$decode"
mkdir "$work/path13"
cp "$work/fam13.json" "$work/path13/w.json"
expect 2 "slotguard: error: --sarif $work/path13/w.json: the same file as the family file $work/path13/w.json" -- \
  env SLOTGUARD_FAMILY_PATH="$work/path13" "$SG" check --backend host --sarif "$work/path13/w.json" "$decode"
cp "$work/forged-scope.json" "$work/scope13.json"
expect 2 "slotguard: error: --json $work/scope13.json: the same file as --scope $work/scope13.json" -- \
  "$SG" prove --backend host --scope "$work/scope13.json" --json "$work/scope13.json" --out "$work/p13"
mkdir "$work/reg13"
cp "$decode" "$work/reg13/r.json"
expect 2 "slotguard: error: --sarif $work/reg13/r.json: the same file as the regression $work/reg13/r.json" -- \
  "$SG" fuzz --backend host --runs 10 --regressions "$work/reg13" --sarif "$work/reg13/r.json" --out "$work/f13"
must "cmp -s $work/fam13.json $work/fam13.keep && cmp -s $work/path13/w.json $work/fam13.keep && cmp -s $work/reg13/r.json $decode" \
  "an input was written over"

# --- 16, 17. A report of a 250-255 byte name is written (its temporary
# name is cut to fit); a report that is a symbolic link writes its target.
long="$work/$(printf 'r%.0s' $(seq 1 250)).json"
expect 0 "ok    $decode" -- "$SG" check --backend host --json "$long" "$decode"
must "[ -s '$long' ] && [ -z \"\$(ls $work | grep '\\.tmp-')\" ]" "a long report name was not written, or left a temporary file"
echo old > "$work/target.json"
ln -s "$work/target.json" "$work/link.json"
expect 0 "ok    $decode" -- "$SG" check --backend host --json "$work/link.json" "$decode"
must "[ -L $work/link.json ] && grep -q '\"slotguard_report\"' $work/target.json" "the symbolic link was replaced, its target kept the old report"

# --- 18. A family path directory that cannot be listed is named (exit 2),
# never skipped. Root lists every directory: then run as nobody (setpriv).
as_user=()
if [ "$(id -u)" = 0 ]; then
  command -v setpriv > /dev/null && as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
if [ "$(id -u)" != 0 ] || [ ${#as_user[@]} -gt 0 ]; then
  mkdir -m 755 "$work/pub"
  chmod 755 "$work"
  mkdir "$work/pub/closed"
  cp "$work/fam13.json" "$work/pub/closed/w.json"
  chmod 000 "$work/pub/closed"
  expect 2 "slotguard: error: SLOTGUARD_FAMILY_PATH: $work/pub/closed: cannot list the directory: Permission denied" -- \
    env SLOTGUARD_FAMILY_PATH="$work/pub/closed" "${as_user[@]}" "$SG" list
  chmod 700 "$work/pub/closed" "$work"
else
  echo "skipped: the unreadable family path (root, and no setpriv)"
fi

# --- 4. Thousands of family files: registered once each, in the isolated
# worker too (5,000 ran past 10 minutes).
mkdir "$work/many"
$PY - "$work/many" <<'EOF'
import json, os, sys
for i in range(5000):
    json.dump({"slotguard_family": 1, "name": "f%04d" % i, "meaning": "m",
               "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 16}],
               "column": "pos / block_size", "offset": "pos % block_size", "page": "block_size"},
              open(os.path.join(sys.argv[1], "f%04d.json" % i), "w"))
EOF
expect 0 "ok    $decode" -- env SLOTGUARD_FAMILY_PATH="$work/many" "$SG" check --backend host --isolate "$decode"

# --- 6, 7, 8. The one budget before anything is built: block operations
# (requests x operations), a scope's largest batch, replay's parse.
$PY - "$work/ops.json" "$work/ops-s.json" <<'EOF'
import json, sys
json.dump({"slotguard_family": 1, "kind": "block_op", "name": "many_ops", "meaning": "n copies per request",
           "params": [{"name": "n", "meaning": "operations per request", "min": 1, "example": 1}],
           "op": "copy", "ops": "n", "src": "0", "dst": "0", "dummy": "pad", "range": "pad",
           "null_index": "index == 0"}, open(sys.argv[1], "w"))
R = 64  # 64 requests of a million operations: 64M elements an output
json.dump({"slotguard": 1, "name": "ops", "num_blocks": 8, "batch": {"query_start_loc": list(range(R + 1))},
           "groups": [{"name": "g", "kernel": "many_ops", "n": 1000000, "block_table": [[1]] * R}]},
          open(sys.argv[2], "w"))
EOF
printf '{"slotguard_scope": 1, "name": "huge", "requests": [4096], "tokens": [65536]}\n' > "$work/huge-scope.json"
$PY -c "
import sys
n = 20000000
sys.stdout.write('{\"slotguard\": 1, \"name\": \"pos\", \"num_blocks\": 8, \"batch\": {\"query_start_loc\": [0, 1], \"positions\": [')
sys.stdout.write(','.join(['0'] * n))
sys.stdout.write(']}, \"groups\": [{\"name\": \"p\", \"kernel\": \"paged\", \"block_size\": 16, \"block_table\": [[1]]}]}')
" > "$work/positions.json"
(
  failures=0
  ulimit -v $((768 * 1024)) || { echo "skipped: no ulimit -v"; exit 0; }
  expect 2 "ops-s.json:/groups/0/block_table: checking this scenario would take at least" -- \
    "$SG" check --backend host --max-memory-mib 64 --family-file "$work/ops.json" "$work/ops-s.json"
  must "grep -q 'the outputs of group .g. (64000000 elements' $work/out" "the operations' term is not named"
  expect 2 "slotguard: error: --scope: $work/huge-scope.json:/tokens: its largest batch has 268435456 tokens (4096 requests of 65536 tokens); expected at most 67108864 tokens a batch" -- \
    "$SG" prove --backend host --scope "$work/huge-scope.json" --out "$work/p7"
  expect 2 "positions.json: parsing it would take about" -- \
    "$SG" replay --backend host --max-memory-mib 256 "$work/positions.json"
  exit $failures
) || failures=$((failures + 1))
rm -f "$work/positions.json"

# --- 1. A per-request implementation that reads the poison id past a row:
# a finding (no crash at 0 tokens, no overflow with fewer tokens than
# requests), its reproducer written by fuzz and prove.
if $PY -c 'import numpy' 2> /dev/null; then
  cat > "$work/past_row.py" <<EOF
import sys
sys.path.insert(0, "$ROOT/python")
import numpy as np
import slotguard
provider = slotguard.Provider("past-row", arrays="numpy")

@provider.family("vllm_mamba")
def run(call):
    r = np.arange(call.num_reqs)
    row = np.maximum(call.idx_mapping[:call.num_reqs].astype(np.int64), 0) if call.rows_by_idx_mapping else r
    call.slot_mapping[:call.num_reqs] = call.block_table[row * call.block_table_row_stride + call.block_table_width]

provider.serve()
EOF
  # 0 tokens of 2 requests (a segfault before); 1 token of 3 (a heap overflow).
  printf '{"slotguard": 1, "name": "z", "num_blocks": 16, "batch": {"query_start_loc": [0, 0, 0], "seq_lens": [5, 7]}, "groups": [{"name": "m", "kernel": "vllm_mamba", "block_size": 16, "block_table": [[7], [3]]}]}\n' \
    > "$work/zero.json"
  printf '{"slotguard": 1, "name": "o", "num_blocks": 16, "batch": {"query_start_loc": [0, 1, 1, 1], "seq_lens": [5, 7, 9]}, "groups": [{"name": "m", "kernel": "vllm_mamba", "block_size": 16, "block_table": [[7], [3], [12]]}]}\n' \
    > "$work/one.json"
  for f in zero one; do
    expect 1 "FAIL  $work/$f.json" -- "$SG" check --backend host --kernel-cmd "$PY $work/past_row.py" "$work/$f.json"
  done
  expect 1 "" -- "$SG" fuzz --backend host --family vllm_mamba --runs 200 --kernel-cmd "$PY $work/past_row.py" --out "$work/f1"
  must "ls $work/f1/*.json > /dev/null 2>&1" "fuzz wrote no reproducer of the per-request finding"
  expect 1 "" -- "$SG" prove --backend host --family vllm_mamba --scope small --kernel-cmd "$PY $work/past_row.py" --out "$work/p1"
  must "ls $work/p1/*.json > /dev/null 2>&1" "prove wrote no reproducer of the per-request finding"
else
  echo "skipped: the per-request provider (no numpy)"
fi

# --- 15. prove stops on SIGTERM as fuzz does: the claim of what it
# checked, the JSON, the SARIF and the summary, exit 143.
"$SG" prove --backend host --scope medium --json "$work/p15.json" --sarif "$work/p15.sarif" --out "$work/p15" \
  > "$work/out" 2>&1 &
pid=$!
sleep 3
kill -TERM $pid
( sleep 50; kill -KILL $pid 2> /dev/null ) &
watchdog=$!
wait $pid
rc=$?
kill $watchdog 2> /dev/null
must "[ $rc = 143 ]" "prove stopped by SIGTERM exited $rc, not 143"
must "grep -q '^prove: incomplete: checked ' $work/out && grep -q '^slotguard: prove: no finding in the first ' $work/out" \
  "prove stopped by SIGTERM printed no claim"
must "grep -q '\"first_unchecked\"' $work/p15.json && [ -s $work/p15.sarif ]" "prove stopped by SIGTERM wrote no JSON or SARIF"
echo "ok    prove SIGTERM: exit $rc"

# --- 5. SIGTERM during fuzz's --regressions replay stops at the next file
# (each file here takes its --timeout: 30 files, 90 s, past this case's 60).
if [ -n "$PROVIDER" ] && [ -x "$PROVIDER" ]; then
  mkdir "$work/reg5"
  for i in $(seq -w 1 30); do cp "$ROOT/scenarios/rings/fused-1-of-1.json" "$work/reg5/r$i.json"; done
  "$SG" fuzz --backend host --runs 10 --timeout 3 --kernel-cmd "$PROVIDER hang 1" \
    --regressions "$work/reg5" --out "$work/f5" > "$work/out" 2>&1 &
  pid=$!
  ( sleep 50; kill -KILL $pid 2> /dev/null ) &
  watchdog=$!
  sleep 2
  kill -TERM $pid
  wait $pid
  rc=$?
  kill $watchdog 2> /dev/null
  # The file in flight ends at its --timeout (a no_fault: exit 1), the rest are not begun.
  must "[ $rc = 1 ] && grep -q '^fuzz: stopped by SIGTERM during the regressions: 1 of 30 replayed' $work/out" \
    "fuzz stopped during its regressions exited $rc (137: the stop waited for every file)"
  echo "ok    fuzz --regressions SIGTERM: exit $rc"
else
  echo "skipped: the regressions stop (no fixture provider given)"
fi

echo "hostile descriptions battery: $failures failures"
[ "$failures" = 0 ]
