#!/usr/bin/env bash
# The acceptance campaign of fuzz --keep-going on the GPU: the campaign plugin
# (examples/plugins/rings_campaign.cu: two planted bugs, one known
# difference) for SECONDS, its suppressions file, JSON and SARIF into DIR;
# then checks that exactly the two bugs were reported, one reproducer each,
# and that the known difference was suppressed.
#   scripts/gpu-campaign.sh [SECONDS=600] [DIR=gpu-campaign]   (BUILD=build)
set -u
seconds=${1:-600}
dir=${2:-gpu-campaign}
build=${BUILD:-build}
mkdir -p "$dir"
"$build/slotguard" fuzz --backend gpu --kernel-lib "$build/examples/libsg_rings_campaign.so" --keep-going \
  --suppressions examples/plugins/rings_campaign.suppressions.json --time "$seconds" --seed 1 --jobs "$(nproc)" \
  --out "$dir/findings" --json "$dir/fuzz.json" --sarif "$dir/fuzz.sarif" > "$dir/log" 2>&1
rc=$?
grep -v '^fuzz: [0-9]* scenarios, ' "$dir/log" | grep -v '^/' 
echo "gpu-campaign: fuzz exit $rc"
/usr/bin/env python3 - "$dir" "$rc" <<'PY'
import json, os, sys
d, rc = sys.argv[1], int(sys.argv[2])
j = json.load(open(os.path.join(d, "fuzz.json")))
s = json.load(open(os.path.join(d, "fuzz.sarif")))
families = sorted(f["families"][0] for f in j["findings"] if f["suppressed_by"] is None)
results = s["runs"][0]["results"]
problems = []
if rc != 1: problems.append("exit %d, expected 1" % rc)
if j["distinct_findings"] != 2 or families != ["kpool_tail", "qsa_ring"]:
    problems.append("distinct findings %d %s, expected kpool_tail and qsa_ring" % (j["distinct_findings"], families))
if any(not os.path.exists(f["file"]) for f in j["findings"] if f["file"]):
    problems.append("a reproducer file is missing")
if not j["suppressions"] or j["suppressions"][0]["matched"] == 0:
    problems.append("the known difference was not suppressed")
if len(results) != 2: problems.append("%d SARIF results, expected 2" % len(results))
print("gpu-campaign: %d scenarios in %.0f s, %d with findings, %d distinct (%s), %d suppressed, SARIF results %d"
      % (j["scenarios"], j["seconds"], j["finding_scenarios"], j["distinct_findings"], ", ".join(families),
         j["suppressed_findings"], len(results)))
for p in problems: print("gpu-campaign: FAIL " + p)
sys.exit(1 if problems else 0)
PY
