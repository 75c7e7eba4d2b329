#!/usr/bin/env bash
# Each planted bug is found at the scope of scopes/mutants/ derived from its
# hand reproducer, and the correct kernel is not (docs/benchmarks.md, "Every
# mutant at the smallest scope that holds its reproducer"):
#   slotguard prove --scope FILE --family F --variant V     exit 1 (a finding)
#   slotguard prove --scope FILE --family F --variant fixed exit 0
# (a plugin row: the buggy example plugin, then the correct one; skipped,
# saying so, where the examples were not built). And the manifest is whole:
# every file under scenarios/*/mutants/ has a row, each row's reproducer
# forces the variant the row runs, and each scope's meaning names its
# reproducer (and says NEAREST when it does not contain it).
#   usage: mutant_scopes_test.sh SLOTGUARD EXAMPLES_DIR
set -uo pipefail
sg=$1
examples=$2
cd "$(dirname "$0")/../.."
manifest=scopes/mutants/mutants.tsv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; row_fail=1; }

prove() {  # prove SCOPE FAMILY ARGS...: the exit status
  "$sg" prove --scope "scopes/mutants/$1" --backend host --family "$2" "${@:3}" --out "$work/out" > "$work/log" 2>&1
  local rc=$?
  [ $rc -le 1 ] || echo "  ($1: exit $rc: $(tail -1 "$work/log"))"
  return $rc
}

rows=0
skipped=0
while IFS=$'\t' read -r scope reproducer contains family kernel; do
  [[ -z "$scope" || "$scope" == \#* ]] && continue
  rows=$((rows + 1))
  row_fail=0
  [ -f "scopes/mutants/$scope" ] || { bad "$scope: no such scope file"; continue; }
  [ -f "$reproducer" ] || { bad "$scope: its reproducer $reproducer does not exist"; continue; }
  meaning=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["meaning"])' "scopes/mutants/$scope")
  [[ "$meaning" == *"$reproducer"* ]] || bad "$scope: its meaning does not name $reproducer"
  case $contains in
    yes) [[ "$meaning" == contains* ]] || bad "$scope: contains its reproducer, but its meaning does not say so" ;;
    no) [[ "$meaning" == NEAREST* ]] || bad "$scope: a nearest scope whose meaning does not say NEAREST" ;;
    *) bad "$scope: contains is '$contains', expected yes or no" ;;
  esac
  case $kernel in
    variant:*)
      variant=${kernel#variant:}
      grep -q "\"variant\": \"$variant\"" "$reproducer" || bad "$scope: $reproducer does not force variant $variant"
      prove "$scope" "$family" --variant "$variant"
      rc=$?
      [ $rc = 1 ] || bad "$scope: $family variant $variant: exit $rc, expected 1 (a finding)"
      prove "$scope" "$family" --variant fixed
      rc=$?
      [ $rc = 0 ] || bad "$scope: $family variant fixed: exit $rc, expected 0 (no finding)"
      [ $row_fail = 0 ] && echo "ok: $scope: $family variant $variant found, fixed clean"
      ;;
    plugin:*)
      IFS=: read -r _ buggy fixed <<< "$kernel"
      if [ ! -f "$examples/$buggy" ] || [ ! -f "$examples/$fixed" ]; then
        echo "skipped: $scope: no $examples/$buggy or $fixed (the example plugins are built with CUDA)"
        skipped=$((skipped + 1))
        continue
      fi
      prove "$scope" "$family" --kernel-lib "$examples/$buggy"
      rc=$?
      [ $rc = 1 ] || bad "$scope: plugin $buggy: exit $rc, expected 1 (a finding)"
      prove "$scope" "$family" --kernel-lib "$examples/$fixed"
      rc=$?
      [ $rc = 0 ] || bad "$scope: plugin $fixed: exit $rc, expected 0 (no finding)"
      [ $row_fail = 0 ] && echo "ok: $scope: plugin $buggy found, $fixed clean"
      ;;
    *) bad "$scope: kernel '$kernel', expected variant:NAME or plugin:BUGGY:FIXED" ;;
  esac
done < "$manifest"
[ "$rows" -gt 0 ] || bad "no row in $manifest"

# Every hand reproducer of a historical variant under scenarios/*/mutants/ has its scope.
for f in scenarios/*/mutants/*.json; do
  cut -f2 "$manifest" | grep -qxF "$f" || bad "$f has no row in $manifest"
done
[ $fail = 0 ] && echo "mutant scopes: $((rows - skipped)) of $rows rows hold, $skipped skipped"
exit $fail
