#!/usr/bin/env bash
# The CI recipes (docs/ci-recipes.md, examples/ci/github-actions/*.yml,
# .clusterfuzzlite/) checked against the binary and the Makefile, so that
# they cannot drift from the CLI:
#   - every flag of every `slotguard <command> ...` they run is in
#     `slotguard <command> --help`;
#   - every `make TARGET` they run is a rule of the Makefile;
#   - `make build` and `make gate` install only what slotguard needs (no
#     test-only package), and it configures without GoogleTest or
#     RapidCheck, the tests left out;
#   - .clusterfuzzlite/build.sh passes `bash -n`, project.yaml says
#     `language: c++`, the Dockerfile's FROM tag matches base_os_version, and
#     every folder of corpus/ (build.sh's list of targets) is a fuzz/<target>.cc;
#   - the files docs/ci-recipes.md links to exist;
#   - the YAML files parse, when /usr/bin/python3 has PyYAML (python3-yaml;
#     otherwise that check is skipped and says so).
# Usage: tests/docs/ci_recipes_test.sh SLOTGUARD_BINARY
set -uo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 SLOTGUARD_BINARY" >&2
  exit 2
fi
sg=$1
case $sg in /*) ;; *) sg=$PWD/$sg ;; esac
if ! "$sg" --version > /dev/null 2>&1; then
  echo "ci_recipes_test: $1 does not run ($1 --version failed)" >&2
  exit 2
fi
cd "$(dirname "$0")/../.." || exit 2

doc=docs/ci-recipes.md
workflows=(examples/ci/github-actions/*.yml)
recipes=("$doc" "${workflows[@]}")
passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
fail() { failed=$((failed + 1)); echo "FAIL  $*"; }

# The shell text of a recipe file, one command per line: in Markdown the
# fenced code blocks and every inline code span; in YAML every line but
# comments and `name:`/`description:` values. Trailing comments are cut and
# backslash continuations joined.
code_of() {
  case $1 in
    *.md) awk '
      /^[[:space:]]*```/ { fence = !fence; next }
      fence { print; next }
      { line = $0
        while (match(line, /`[^`]+`/)) { print substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, RSTART + RLENGTH) } }' "$1" ;;
    *) grep -vE '^[[:space:]]*(#|(- )?(name|description):)' "$1" ;;
  esac | sed -e 's/[[:space:]]#.*$//' | sed -e ':a' -e '/\\$/N' -e 's/\\\n[[:space:]]*/ /' -e 'ta'
}

# --- every slotguard flag the recipes use is in that command's --help ------
# The `slotguard <command> ...` of each file, the command ending at ; | & or
# a backtick: "command file", and "command flag file" for each of its flags.
invocations() {
  for f in "${recipes[@]}"; do
    code_of "$f" | grep -oE 'slotguard[[:space:]]+[a-z][a-z0-9-]*([[:space:]][^;|&`]*)?' |
      sed "s|\$| @FILE $f|"
  done
}
commands=$(invocations | awk '{ print $2, $NF }' | sort -u)
uses=$(invocations | while read -r _ cmd rest; do
  f=${rest##* @FILE }
  # shellcheck disable=SC2013 # one flag per word
  for flag in $(grep -oE '(^|[[:space:]])--?[A-Za-z][A-Za-z0-9-]*' <<< " ${rest% @FILE *}"); do
    echo "$cmd $flag $f"
  done
done | sort -u)
if [ -z "$uses" ]; then
  fail "no slotguard command with a flag found in ${recipes[*]} (the extraction is broken)"
fi
declare -A help
while read -r cmd; do
  where=$(awk -v c="$cmd" '$1 == c { print $2 }' <<< "$commands" | paste -sd, -)
  if help[$cmd]=$("$sg" "$cmd" --help 2>&1); then
    ok "slotguard $cmd --help ($where)"
  else
    fail "slotguard $cmd: not a command of $1 (used in $where)"
  fi
done < <(awk '{ print $1 }' <<< "$commands" | sort -u)
while read -r cmd flag; do
  [ -n "$cmd" ] || continue
  where=$(awk -v c="$cmd" -v g="$flag" '$1 == c && $2 == g { print $3 }' <<< "$uses" | paste -sd, -)
  # An option line of CLI11's help: "  --out TEXT", "  -o,--out TEXT", "  -h,--help".
  if grep -qE -- "^[[:space:]]*(-[A-Za-z],)?${flag}([[:space:],=]|$)" <<< "${help[$cmd]}"; then
    ok "slotguard $cmd $flag ($where)"
  else
    fail "slotguard $cmd $flag: not in 'slotguard $cmd --help' (used in $where)"
  fi
done < <(awk '{ print $1, $2 }' <<< "$uses" | sort -u)

# --- every make target the recipes run is a rule of the Makefile -----------
targets=$(for f in "${recipes[@]}"; do
  code_of "$f" |
    grep -oE '(^|[;&|(]|sudo|run:)[[:space:]]*make([[:space:]]+[A-Z_][A-Z0-9_]*=[^[:space:]]*)*[[:space:]]+[a-z][a-z0-9-]*' |
    awk '{ print $NF }'
done | sort -u)
for t in $targets; do
  if grep -qE "^([^:=#]*[[:space:]])?${t}([[:space:]][^:=]*)?:([^=]|$)" Makefile; then
    ok "make $t"
  else
    fail "make $t: no such rule in the Makefile"
  fi
done

# --- make build and make gate set up only what slotguard needs ---------------
# The packages each target installs (its install-deps.sh line under make -n):
# the gate's and the build's are the test's less what only the tests need.
packages_of() {
  make -n "$1" BUILD=/nonexistent-build 2> /dev/null | sed -n 's|^scripts/install-deps.sh ||p' | tr ' ' '\n' | sort -u
}
test_packages=$(packages_of test)
test_only="libgtest-dev librapidcheck-dev python3-pytest python3-numpy python3-venv python3-yaml chromium"
for t in build gate; do
  pkgs=$(packages_of "$t")
  extra=$(comm -13 <(echo "$test_packages") <(echo "$pkgs") | paste -sd' ' -)
  leaked=$(for p in $test_only; do grep -qx "$p" <<< "$pkgs" && echo "$p"; done | paste -sd' ' -)
  if [ -z "$pkgs" ]; then
    fail "make $t installs nothing at all? (no install-deps.sh line under make -n)"
  elif [ -n "$leaked" ]; then
    fail "make $t installs test-only packages: $leaked"
  elif [ -n "$extra" ]; then
    fail "make $t installs what make test does not: $extra"
  else
    ok "make $t installs only slotguard's packages: $(paste -sd' ' - <<< "$pkgs")"
  fi
done
for p in $test_only; do
  grep -qx "$p" <<< "$test_packages" || fail "make test does not install $p"
done
# Without GoogleTest and RapidCheck (what make gate installs), slotguard
# configures and the tests are not part of the build.
scratch=$(mktemp -d)
if out=$(cmake -S . -B "$scratch" -G Ninja -DSLOTGUARD_CUDA=OFF -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON \
           -DCMAKE_DISABLE_FIND_PACKAGE_rapidcheck=ON 2>&1); then
  targets=$(ninja -C "$scratch" -t targets all 2> /dev/null | sed 's/:.*//')
  if grep -qx slotguard <<< "$targets" && ! grep -q slotguard_tests <<< "$targets"; then
    ok "configures without GoogleTest and RapidCheck: slotguard, no test targets"
  else
    fail "without GoogleTest and RapidCheck: slotguard $(grep -qx slotguard <<< "$targets" || echo missing), test targets $(grep -c slotguard_tests <<< "$targets")"
  fi
else
  fail "does not configure without GoogleTest and RapidCheck: $(tail -n 3 <<< "$out" | tr '\n' ' ')"
fi
rm -rf "$scratch"

# --- the ClusterFuzzLite build integration ---------------------------------
if err=$(bash -n .clusterfuzzlite/build.sh 2>&1); then
  ok "bash -n .clusterfuzzlite/build.sh"
else
  fail "bash -n .clusterfuzzlite/build.sh: $err"
fi
if grep -qE "^language:[[:space:]]*[\"']?c\+\+[\"']?[[:space:]]*(#.*)?$" .clusterfuzzlite/project.yaml; then
  ok ".clusterfuzzlite/project.yaml: language: c++"
else
  fail ".clusterfuzzlite/project.yaml: no 'language: c++'"
fi
os=$(sed -nE "s/^base_os_version:[[:space:]]*[\"']?([^\"'[:space:]#]+).*/\1/p" .clusterfuzzlite/project.yaml)
case ${os:-legacy} in legacy) want=latest ;; *) want=$os ;; esac
from=$(sed -nE 's|^FROM[[:space:]]+gcr\.io/oss-fuzz-base/base-builder(:([^[:space:]]+))?.*|\2|p' .clusterfuzzlite/Dockerfile)
if [ "${from:-latest}" = "$want" ]; then
  ok ".clusterfuzzlite/Dockerfile: FROM base-builder:${from:-latest} matches base_os_version ${os:-legacy}"
else
  fail ".clusterfuzzlite/Dockerfile: FROM base-builder:${from:-latest (or not base-builder)}, project.yaml base_os_version ${os:-legacy} wants :$want"
fi
for dir in corpus/*/; do
  target=$(basename "$dir")
  if [ -f "fuzz/$target.cc" ]; then
    ok "corpus/$target is a target (fuzz/$target.cc)"
  else
    fail "corpus/$target: no fuzz/$target.cc, so build.sh would build no such target"
  fi
done

# --- the files docs/ci-recipes.md links to exist ---------------------------
# shellcheck disable=SC2013 # one link per word
for link in $(grep -oE '\]\([^)#[:space:]]+' "$doc" | sed 's/^](//' | grep -vE '^[a-z]+:' | sort -u); do
  if [ -e "docs/$link" ]; then
    ok "$doc links $link"
  else
    fail "$doc links $link, which does not exist"
  fi
done

# --- the YAML parses ---------------------------------------------------------
yamls=("${workflows[@]}" .clusterfuzzlite/project.yaml)
if /usr/bin/python3 -c 'import yaml' 2> /dev/null; then
  for y in "${yamls[@]}"; do
    # A workflow is a mapping with jobs; PyYAML (YAML 1.1) reads its `on` key as True.
    if err=$(/usr/bin/python3 - "$y" 2>&1 <<'EOF'
import sys, yaml
path = sys.argv[1]
data = yaml.safe_load(open(path))
assert isinstance(data, dict), "not a mapping"
if path.endswith(".yml"):
    assert isinstance(data.get("jobs"), dict) and data["jobs"], "no jobs"
    assert "on" in data or True in data, "no 'on'"
EOF
    ); then
      ok "$y parses"
    else
      fail "$y: $(tail -n 1 <<< "$err")"
    fi
  done
else
  skipped=$((skipped + 1))
  echo "skip  YAML not parsed: /usr/bin/python3 has no yaml module (apt-get install python3-yaml)"
fi

echo "ci_recipes_test: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
