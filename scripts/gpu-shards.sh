#!/usr/bin/env bash
# One campaign across the GPUs of a host: a shard per GPU, each process
# pinned to its own device with --device K, against a one-GPU run of the
# same scenario count in the same command; then a planted-bug plugin found
# by whichever shard owns the first failing scenario, with the reproducer a
# one-GPU run of the same seed writes; then ctest -L gpu on each GPU.
#   scripts/gpu-shards.sh [RUNS=2000000] [DIR=gpu-shards]   (BUILD=build)
#   SHARDS (default: the GPUs nvidia-smi lists); shard K runs on device K mod GPUs,
#   so on one GPU SHARDS=2 checks the flow with both shards on device 0.
#   SKIP_CTEST=1 leaves out the ctest runs.
set -u
runs=${1:-2000000}
dir=${2:-gpu-shards}
build=${BUILD:-build}
mkdir -p "$dir"
nvidia-smi -L
gpus=$(nvidia-smi -L | grep -c '^GPU ')
shards=${SHARDS:-$gpus}
jobs=$(( $(nproc) / shards )); [ "$jobs" -ge 1 ] || jobs=1
status=0
rate() { /usr/bin/env python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print("%d scenarios in %.2f s: %.0f scenarios/s" % (j["scenarios"], j["seconds"], j["scenarios_per_second"]))' "$1"; }

# 1. Throughput: N shards at once, one per GPU, then one GPU alone, same total.
for what in own plugin; do
  lib=(); [ $what = plugin ] && lib=(--kernel-lib "$build/examples/libsg_rings.so")
  per=$(( runs / shards ))
  start=$(date +%s.%N)
  pids=()
  for k in $(seq 0 $((shards - 1))); do
    "$build/slotguard" fuzz --backend gpu --device $((k % gpus)) --shard "$k/$shards" --runs "$per" --seed 11 \
      --jobs "$jobs" "${lib[@]}" --out "$dir/$what-findings-$k" --json "$dir/$what-shard-$k.json" \
      > "$dir/$what-shard-$k.log" 2>&1 &
    pids+=($!)
  done
  for k in "${!pids[@]}"; do wait "${pids[$k]}" || status=1; done
  together=$(/usr/bin/env python3 -c "import time; print(time.time() - $start)")
  for k in $(seq 0 $((shards - 1))); do
    echo "gpu-shards: $what shard $k/$shards on device $((k % gpus)): $(rate "$dir/$what-shard-$k.json")"
    echo "  $(tail -n 1 "$dir/$what-shard-$k.log")"
  done
  "$build/slotguard" fuzz --backend gpu --device 0 --runs "$(( per * shards ))" --seed 11 --jobs "$(nproc)" "${lib[@]}" \
    --out "$dir/$what-findings-one" --json "$dir/$what-one.json" > "$dir/$what-one.log" 2>&1 || status=1
  echo "gpu-shards: $what one GPU: $(rate "$dir/$what-one.json")"
  /usr/bin/env python3 - "$dir/$what-one.json" "$together" "$shards" "$what" $(for k in $(seq 0 $((shards - 1))); do echo "$dir/$what-shard-$k.json"; done) <<'PY'
import json, sys
one = json.load(open(sys.argv[1])); wall = float(sys.argv[2]); shards = int(sys.argv[3]); what = sys.argv[4]
total = sum(json.load(open(p))["scenarios"] for p in sys.argv[5:])
print("gpu-shards: %s: %d shards together %d scenarios in %.2f s wall: %.0f scenarios/s, %.2fx the one-GPU run (%.0f/s)"
      % (what, shards, total, wall, total / wall, total / wall / one["scenarios_per_second"], one["scenarios_per_second"]))
PY
done

# 2. A planted bug: the shard that owns the first failing scenario finds it,
# with the one-GPU run's reproducer.
buggy=(--kernel-lib "$build/examples/libsg_rings_buggy.so")
"$build/slotguard" fuzz --backend gpu --device 0 --runs 200000 --seed 3 "${buggy[@]}" --out "$dir/bug-one" \
  --json "$dir/bug-one.json" > "$dir/bug-one.log" 2>&1
for k in $(seq 0 $((shards - 1))); do
  "$build/slotguard" fuzz --backend gpu --device $((k % gpus)) --shard "$k/$shards" --runs 200000 --seed 3 "${buggy[@]}" \
    --out "$dir/bug-$k" --json "$dir/bug-$k.json" > "$dir/bug-$k.log" 2>&1 &
done
wait
/usr/bin/env python3 - "$dir" "$shards" <<'PY' || status=1
import json, os, sys
d, shards = sys.argv[1], int(sys.argv[2])
one = json.load(open(os.path.join(d, "bug-one.json")))
first = one["scenario_index"]
owner = first % shards
shard = json.load(open(os.path.join(d, "bug-%d.json" % owner)))
same = shard.get("scenario_index") == first and open(shard["file"]).read() == open(one["file"]).read()
print("gpu-shards: planted bug: one GPU found scenario %d (%s); shard %d/%d owns it and found scenario %s (%s): %s"
      % (first, one["file"], owner, shards, shard.get("scenario_index"), shard.get("file"),
         "the same reproducer" if same else "DIFFERENT"))
sys.exit(0 if same else 1)
PY

# 3. The GPU tests on each GPU in turn.
if [ -z "${SKIP_CTEST:-}" ]; then
  for k in $(seq 0 $((gpus - 1))); do
    CUDA_VISIBLE_DEVICES=$k ctest --test-dir "$build" -L gpu --output-on-failure > "$dir/ctest-gpu-$k.log" 2>&1 || status=1
    echo "gpu-shards: ctest -L gpu on GPU $k: $(grep -E 'tests passed|tests failed' "$dir/ctest-gpu-$k.log" | tail -n 1)"
  done
fi
exit $status
