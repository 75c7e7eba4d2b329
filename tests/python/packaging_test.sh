#!/usr/bin/env bash
# The Python package installs as docs/python.md says, from the source tree,
# with no package index: `pip install ./python` and `pip install -e
# ./python` in fresh virtual environments (Debian's setuptools, so
# --no-build-isolation), then
#   - `python -m slotguard --version` runs the binary;
#   - the pytest plugin is found by its pytest11 entry point: a test file
#     with the slotguard_scenarios marker gets one test per scenario,
#     without -p;
#   - the editable install imports the source tree's package;
#   - pyproject.toml's version is CMake's project version.
# Usage: tests/python/packaging_test.sh SLOTGUARD_BINARY WORK_DIR
# Exit 77 (skipped) without Debian's python3-venv, setuptools or pytest.
set -uo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 SLOTGUARD_BINARY WORK_DIR" >&2
  exit 2
fi
sg=$1 work=$2
case $sg in /*) ;; *) sg=$PWD/$sg ;; esac
cd "$(dirname "$0")/../.." || exit 2
root=$PWD
py=/usr/bin/python3
for module in venv setuptools pytest; do
  if ! "$py" -c "import $module" 2> /dev/null; then
    echo "packaging_test skipped: $py has no $module (apt-get install python3-venv python3-setuptools python3-pytest)"
    exit 77
  fi
done
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
fail() { failed=$((failed + 1)); echo "FAIL  $*"; }

rm -rf "$work"
mkdir -p "$work"
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1

# --- pip install ./python ---------------------------------------------------
# From a copy: a build leaves build/ and *.egg-info beside the sources.
venv=$work/venv
cp -r python "$work/python"
rm -rf "$work/python/build" "$work/python"/*.egg-info "$work/python/tests"
if "$py" -m venv --system-site-packages "$venv" > "$work/venv.log" 2>&1 &&
   (cd "$work" && "$venv/bin/pip" install --no-build-isolation --no-deps ./python) > "$work/pip.log" 2>&1; then
  ok "pip install ./python"
else
  fail "pip install ./python: $(tail -n 3 "$work/venv.log" "$work/pip.log" 2> /dev/null | tr '\n' ' ')"
fi
where=$(cd "$work" && "$venv/bin/python" -c "import slotguard; print(slotguard.__file__)" 2>&1)
case $where in
  "$venv"/*) ok "the installed package is imported ($where)" ;;
  *) fail "the installed package is not the one imported: $where" ;;
esac
version=$(cd "$work" && SLOTGUARD=$sg "$venv/bin/python" -m slotguard --version 2>&1)
if [ "$version" = "$("$sg" --version)" ]; then
  ok "python -m slotguard --version: $version"
else
  fail "python -m slotguard --version printed '$version', the binary '$("$sg" --version)'"
fi
# The plugin by its entry point: no -p, no conftest.
mkdir -p "$work/project/cases"
cp scenarios/paged/decode.json scenarios/paged/dummy-request.json "$work/project/cases/"
cat > "$work/project/test_cases.py" << 'PY'
import pytest

@pytest.mark.slotguard_scenarios("cases", backend="host")
def test_case(slotguard_scenario):
    slotguard_scenario.check()
PY
if out=$(cd "$work/project" && SLOTGUARD=$sg "$venv/bin/python" -m pytest -q -p no:cacheprovider 2>&1) &&
   grep -q "2 passed" <<< "$out"; then
  ok "the pytest plugin is registered by its entry point: one test per scenario (2 passed)"
else
  fail "the pytest plugin by its entry point: $(tail -n 5 <<< "$out" | tr '\n' ' ')"
fi

# --- pip install -e ./python ------------------------------------------------
edit=$work/editable
if "$py" -m venv --system-site-packages "$edit" > "$work/venv-e.log" 2>&1 &&
   "$edit/bin/pip" install --no-build-isolation --no-deps -e ./python > "$work/pip-e.log" 2>&1; then
  ok "pip install -e ./python"
else
  fail "pip install -e ./python: $(tail -n 3 "$work/pip-e.log" 2> /dev/null | tr '\n' ' ')"
fi
where=$(cd "$work" && "$edit/bin/python" -c "import slotguard; print(slotguard.__file__)" 2>&1)
if [ "$where" = "$root/python/slotguard/__init__.py" ]; then
  ok "the editable install imports the source tree ($where)"
else
  fail "the editable install imports $where, not $root/python/slotguard/__init__.py"
fi

# --- one version -------------------------------------------------------------
pyproject=$(sed -nE 's/^version = "([^"]+)"/\1/p' python/pyproject.toml)
cmake=$(sed -nE 's/^project\(slotguard VERSION ([0-9.]+).*/\1/p' CMakeLists.txt)
if [ -n "$pyproject" ] && [ "$pyproject" = "$cmake" ]; then
  ok "python/pyproject.toml's version is CMakeLists.txt's ($cmake)"
else
  fail "python/pyproject.toml says version '$pyproject', CMakeLists.txt '$cmake'"
fi

echo "packaging_test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
