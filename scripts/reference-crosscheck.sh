#!/usr/bin/env bash
# The interpreter of family descriptions against the hand-written references
# of the five built-in families: N generated scenarios per family (every
# other one inconsistent), every output of every group compared bit for bit;
# and, on a sample, the host campaign's work (generate, run, reference,
# every invariant) with each reference. Exit 1 when any output differs.
# A benchmark and a cross-check, not a test (`make test` runs a sample of
# 3,000 per family: tests/reference/reference_crosscheck_test.cc).
#   BUILD (build), N (1000000), SEED (1)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${N:-1000000}
SEED=${SEED:-1}
echo "\$ $BUILD/slotguard bench --references $N --seed $SEED"
exec "$BUILD/slotguard" bench --references "$N" --seed "$SEED"
