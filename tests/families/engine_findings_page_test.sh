#!/usr/bin/env bash
# docs/engine-findings.md must be what scripts/engine-findings.py writes now:
# the page is generated from the campaigns it cites, never edited by hand.
# The run count is the one the page names in its "Generated with" line.
# Usage: tests/families/engine_findings_page_test.sh SLOTGUARD_BINARY SCRATCH_DIR
set -uo pipefail
sg=$1 scratch=$2
cd "$(dirname "$0")/../.." || exit 2
rm -rf "$scratch" && mkdir -p "$scratch" || exit 2
runs=$(sed -n 's/.*scripts\/engine-findings.py --runs \([0-9]*\).*/\1/p' docs/engine-findings.md | head -n 1)
if [ -z "$runs" ]; then
  echo "engine_findings_page: docs/engine-findings.md names no 'scripts/engine-findings.py --runs N'" >&2
  exit 1
fi
/usr/bin/python3 scripts/engine-findings.py --slotguard "$sg" --runs "$runs" --scratch "$scratch/reports" \
  --out "$scratch/engine-findings.md" || exit 1
if ! diff -u docs/engine-findings.md "$scratch/engine-findings.md"; then
  echo "engine_findings_page: docs/engine-findings.md is stale; regenerate it with" \
       "scripts/engine-findings.py --runs $runs --out docs/engine-findings.md" >&2
  exit 1
fi
echo "engine_findings_page: docs/engine-findings.md is current"
