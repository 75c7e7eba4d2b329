#!/usr/bin/env bash
# The Python package installs as docs/python.md says, from the source tree,
# with no package index and no flags: `pip install ./python` and `pip
# install -e ./python` in fresh virtual environments, one with Debian's
# site packages and one without (pip and setuptools only, no wheel: what
# `python3 -m venv` gives anywhere), then
#   - `python -m slotguard --version` runs the binary, found through
#     SLOTGUARD, next to the venv's interpreter, and from the checkout the
#     current folder is in; with none, one line naming where it looked;
#   - the pytest plugin is found by its pytest11 entry point: a test file
#     with the slotguard_scenarios marker gets one test per scenario,
#     without -p, and with -p slotguard.pytest_plugin beside it too; a
#     missing binary is one error, once;
#   - an install from the checkout itself leaves nothing beside the sources
#     (no *.egg-info, no build/);
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
for module in venv ensurepip pytest; do
  if ! "$py" -c "import $module" 2> /dev/null; then
    echo "packaging_test skipped: $py has no $module (apt-get install python3-venv python3-pytest)"
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
# From a copy: the checkout's own install is below.
venv=$work/venv
cp -r python "$work/python"
rm -rf "$work/python/build" "$work/python"/*.egg-info "$work/python/tests"
if "$py" -m venv --system-site-packages "$venv" > "$work/venv.log" 2>&1 &&
   (cd "$work" && "$venv/bin/pip" install ./python) > "$work/pip.log" 2>&1; then
  ok "pip install ./python (no index, no flags)"
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
# Found without SLOTGUARD: from a folder inside a checkout with build/slotguard,
# then next to the interpreter; with neither, one line saying where it looked.
# The cases without a binary run in a folder outside this checkout (WORK_DIR
# may be inside it, under its build/).
bare_path=/usr/bin:/bin
away=$(mktemp -d /tmp/slotguard-packaging.XXXXXX) || exit 2
trap 'rm -rf "$away"' EXIT
mkdir -p "$work/checkout/build" "$work/checkout/docs/deep"
ln -s "$sg" "$work/checkout/build/slotguard"
version=$(cd "$work/checkout/docs/deep" && env -u SLOTGUARD PATH=$bare_path "$venv/bin/python" -m slotguard --version 2>&1)
if [ "$version" = "$("$sg" --version)" ]; then
  ok "python -m slotguard finds build/slotguard of the checkout it runs in"
else
  fail "python -m slotguard inside a checkout with build/slotguard printed '$version'"
fi
out=$(cd "$away" && env -u SLOTGUARD PATH=$bare_path "$venv/bin/python" -m slotguard --version 2>&1)
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <<< "$out")" -eq 1 ] &&
   grep -qF "no slotguard binary; looked at \$SLOTGUARD (not set), $venv/bin/slotguard, slotguard on PATH" <<< "$out"; then
  ok "no binary: exit 2, one line naming where it looked"
else
  fail "no binary: exit $rc, '$out'"
fi
ln -s "$sg" "$venv/bin/slotguard"
version=$(cd "$away" && env -u SLOTGUARD PATH=$bare_path "$venv/bin/python" -m slotguard --version 2>&1)
if [ "$version" = "$("$sg" --version)" ]; then
  ok "python -m slotguard finds slotguard next to the interpreter"
else
  fail "python -m slotguard with slotguard in $venv/bin printed '$version'"
fi
rm "$venv/bin/slotguard"
# The plugin by its entry point: no -p, no conftest; then -p beside it.
project=$away/project
mkdir -p "$project/cases"
cp scenarios/paged/decode.json scenarios/paged/dummy-request.json "$project/cases/"
cat > "$project/test_cases.py" << 'PY'
import pytest

@pytest.mark.slotguard_scenarios("cases", backend="host")
def test_case(slotguard_scenario):
    slotguard_scenario.check()
PY
if out=$(cd "$project" && SLOTGUARD=$sg "$venv/bin/python" -m pytest -q -p no:cacheprovider 2>&1) &&
   grep -q "2 passed" <<< "$out"; then
  ok "the pytest plugin is registered by its entry point: one test per scenario (2 passed)"
else
  fail "the pytest plugin by its entry point: $(tail -n 5 <<< "$out" | tr '\n' ' ')"
fi
if out=$(cd "$project" && SLOTGUARD=$sg "$venv/bin/python" -m pytest -q -p no:cacheprovider \
           -p slotguard.pytest_plugin 2>&1) && grep -q "2 passed" <<< "$out"; then
  ok "the entry point and -p slotguard.pytest_plugin together: registered once (2 passed)"
else
  fail "the entry point and -p together: $(tail -n 5 <<< "$out" | tr '\n' ' ')"
fi
out=$(cd "$project" && env -u SLOTGUARD PATH=$bare_path "$venv/bin/python" -m pytest -q -p no:cacheprovider 2>&1)
if grep -q "1 failed, 1 skipped" <<< "$out" && [ "$(grep -c "no slotguard binary" <<< "$out")" -eq 1 ] &&
   ! grep -q Traceback <<< "$out"; then
  ok "no binary under pytest: one error, once (1 failed, 1 skipped)"
else
  fail "no binary under pytest: $(tail -n 8 <<< "$out" | tr '\n' ' ')"
fi

# --- a venv without Debian's packages: pip and setuptools, no wheel ----------
plain=$work/plain
if "$py" -m venv "$plain" > "$work/venv-plain.log" 2>&1 &&
   (cd "$work" && "$plain/bin/pip" install ./python) > "$work/pip-plain.log" 2>&1 &&
   version=$(cd "$work" && SLOTGUARD=$sg "$plain/bin/python" -m slotguard --version 2>&1) &&
   [ "$version" = "$("$sg" --version)" ]; then
  ok "pip install ./python in a venv with no wheel package, no index"
else
  fail "pip install ./python in a plain venv: $(tail -n 3 "$work/venv-plain.log" "$work/pip-plain.log" 2> /dev/null | tr '\n' ' ')"
fi

# --- pip install ./python from the checkout itself ---------------------------
before=$(ls -A python)
if (cd "$root" && "$plain/bin/pip" install ./python) > "$work/pip-checkout.log" 2>&1; then
  ok "pip install ./python from the checkout"
else
  fail "pip install ./python from the checkout: $(tail -n 3 "$work/pip-checkout.log" | tr '\n' ' ')"
fi
after=$(ls -A python)
if [ "$before" = "$after" ]; then
  ok "the install left nothing beside the sources (python/: $(tr '\n' ' ' <<< "$after"))"
else
  fail "the install left files in python/: $(diff <(echo "$before") <(echo "$after") | tr '\n' ' ')"
fi

# --- pip install -e ./python ------------------------------------------------
edit=$work/editable
if "$py" -m venv --system-site-packages "$edit" > "$work/venv-e.log" 2>&1 &&
   "$edit/bin/pip" install -e ./python > "$work/pip-e.log" 2>&1; then
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
