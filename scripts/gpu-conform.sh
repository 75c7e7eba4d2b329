#!/usr/bin/env bash
# Conformance of every shipped vLLM family (docs/conformance.md) on a machine
# with a GPU, torch and Triton but no vLLM: `fuzz --conform` of each family's
# engine variant against vLLM's own code, loaded from ENGINE_DIR (a folder
# holding only the files the bindings read, at their paths under vllm/, and
# the commit in ENGINE_DIR/COMMIT). Each family's log and reproducers go to
# OUT (default $OUT, else ./gpu-logs), and its summary lines to OUT/summary.txt.
#
#   scripts/gpu-conform.sh ENGINE_DIR [OUT] [FAMILY...]   run (every family without FAMILY)
#   scripts/gpu-conform.sh --files                         the files to carry, one a line
#   scripts/gpu-conform.sh --carry SRC DEST COMMIT         copy them from the checkout SRC into DEST
#   DRY_RUN=1 scripts/gpu-conform.sh ...                   print the commands instead of running them
#
# RUNS (default 100000) scenarios each, --seed SEED (default 1), -j JOBS
# (default 8), TIME (default 0: none; --time S caps each campaign), BACKEND
# (default gpu), SLOTGUARD (default build/slotguard);
# then CHECK (default 1; 0: not) runs the family's curated scenarios
# (scenarios/engines/FAMILY/: the runner's dummy run, a batch near
# max_model_len, ...) through the engine's code against the description.
# dsv4_compressed also runs against engine_<commit>_indexer with --option
# caller=indexer when its description declares that variant.
# Exit 0 when every family ran with no disagreement, 1 when one disagreed
# (a description bug: its reproducer is under OUT/conform-FAMILY/), 2 on bad
# use, 3 when a run failed otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"

bindings() {  # family<TAB>path<TAB>functions<TAB>needs, from the package's own table
  "$PY" -m slotguard.engines vllm --list
}

case "${1:-}" in
  --files)
    bindings | cut -f2 | tr , '\n' | sort -u
    exit 0 ;;
  --carry)
    [ $# -eq 4 ] || { echo "usage: $0 --carry SRC DEST COMMIT" >&2; exit 2; }
    src=$2; dest=$3; commit=$4
    bindings | cut -f2 | tr , '\n' | sort -u | while read -r f; do
      [ -f "$src/$f" ] || { echo "$0: $src/$f: no such file; expected a checkout of vLLM" >&2; exit 2; }
      mkdir -p "$dest/$(dirname "$f")" && cp "$src/$f" "$dest/$f" || exit 3
    done || exit $?
    printf '%s\n' "$commit" >"$dest/COMMIT"
    echo "$0: carried $(bindings | cut -f2 | tr , '\n' | sort -u | wc -l) files into $dest (commit $commit)"
    exit 0 ;;
  ""|-h|--help)
    sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
    [ -n "${1:-}" ] && exit 0 || exit 2 ;;
esac

engine=$(cd "$1" 2>/dev/null && pwd) || { echo "$0: $1: no such directory; expected the carried engine files" >&2; exit 2; }
out=${2:-${OUT:-$PWD/gpu-logs}}
shift $(( $# >= 2 ? 2 : 1 ))
mkdir -p "$out" || exit 3
out=$(cd "$out" && pwd)
families=("$@")
[ ${#families[@]} -gt 0 ] || mapfile -t families < <(bindings | cut -f1)
sg=${SLOTGUARD:-build/slotguard}
runs=${RUNS:-100000}
summary="$out/summary.txt"
status=0
# A family with a second caller: its variant for that caller, when the description declares it, runs as
# one more campaign ("FAMILY:OPTION:VARIANT"): DeepSeek-V4's indexer calls the same launcher unclamped.
runs_of() {
  echo "$1::"
  if [ "$1" = dsv4_compressed ] && "$sg" list --json 2>/dev/null | "$PY" -c '
import json, sys
f = [x for x in json.load(sys.stdin)["families"] if x["name"] == "dsv4_compressed"][0]
sys.exit(0 if any(v["name"] == "engine_%s_indexer" % f["engine"]["commit"][:8] for v in f["variants"]) else 1)'; then
    commit=$("$sg" list --json | "$PY" -c 'import json,sys; print([x for x in json.load(sys.stdin)["families"] if x["name"] == "dsv4_compressed"][0]["engine"]["commit"][:8])')
    echo "dsv4_compressed:caller=indexer:engine_${commit}_indexer"
  fi
}
for run in $(for f in "${families[@]}"; do runs_of "$f"; done); do
  IFS=: read -r family option variant <<<"$run"
  extra=(); name=$family
  if [ -n "$option" ]; then extra=(--variant "$variant"); name="$family-${option#*=}"; fi
  provider="$PY -m slotguard.engines vllm --family $family --source $engine${option:+ --option $option}"
  # Bind first: a missing function is its own one line, not a failed handshake.
  bind=("$PY" -m slotguard.engines vllm --family "$family" --source "$engine" --check)
  cmd=("$sg" fuzz --backend "${BACKEND:-gpu}" --family "$family" --conform "${extra[@]}" --keep-going --runs "$runs"
       --time "${TIME:-0}" --seed "${SEED:-1}" -j "${JOBS:-8}" --out "$out/conform-$name" --kernel-cmd "$provider")
  if [ -n "${DRY_RUN:-}" ]; then
    printf '%q ' "${bind[@]}"; echo
    printf '%q ' "${cmd[@]}"; echo
    continue
  fi
  if ! line=$("${bind[@]}" 2>&1); then
    echo "$name: $line" | tee -a "$summary"
    status=3
    continue
  fi
  echo "=== $name: $line"
  start=$(date +%s)
  "${cmd[@]}" >"$out/conform-$name.log" 2>&1
  rc=$?
  {
    echo "$name ($(( $(date +%s) - start )) s, exit $rc${variant:+, against $variant}): $line"
    grep -E '^(fuzz: conform:|fuzz: [0-9]+ scenarios skipped|slotguard: fuzz:|fuzz: finding [0-9]+ of)' \
      "$out/conform-$name.log" | sed 's/^/  /'
  } | tee -a "$summary"
  compared=$(sed -n 's/^fuzz: conform: \([0-9]*\) scenarios compared.*/\1/p' "$out/conform-$name.log")
  if [ "${compared:-0}" -lt "$runs" ]; then
    echo "  note: ${compared:-0} of $runs scenarios compared (the rest skipped, or the campaign stopped)" | tee -a "$summary"
  fi
  if [ $rc -eq 1 ]; then status=$(( status > 1 ? status : 1 )); elif [ $rc -ne 0 ]; then status=3; fi
  # The curated scenarios (a dummy run, a batch near max_model_len, ...) through the engine's code, judged
  # against the description itself: what the engine does on them, as kernel findings (informative).
  if [ -z "$option" ] && [ "${CHECK:-1}" != 0 ] && [ -d "scenarios/engines/$family" ]; then
    "$sg" check --backend "${BACKEND:-gpu}" --kernel-cmd "$provider" "scenarios/engines/$family/" \
      >"$out/check-$family.log" 2>&1
    echo "  check scenarios/engines/$family/ through the engine's code (exit $?): $(tail -n 1 "$out/check-$family.log")" \
      | tee -a "$summary"
  fi
done
exit $status
