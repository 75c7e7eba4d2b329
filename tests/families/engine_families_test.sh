#!/usr/bin/env bash
# The engine families (families/{dsv4_compressed,eagle_step,dflash,
# sglang_out_cache_loc,flashinfer_append,flashinfer_batch_indices,lmcache_vllm_adapter,
# vllm_encoder_only,vllm_sliding_window,vllm_hisparse_compressed}.json, the state-index families
# vllm_mamba, vllm_gdn, vllm_lightning, sglang_mamba and the block-operation
# families vllm_mamba_copy, vllm_mamba_postcopy, vllm_offload_store) and the sliding-window
# worked example of docs/family-format.md, end to end through the binary and
# their numpy providers (examples/python/families/):
#   - each engine family: `check` of its curated scenarios
#     (scenarios/engines/NAME/) through its provider holds (exit 0); a short
#     fuzz campaign of the family through its provider finds nothing
#     (exit 0); `replay` of one curated scenario through it holds (exit 0);
#   - lmcache_vllm_adapter's provider computing LMCache PR #2984's order
#     (--pr2984) fails its fixed scenario with a -1 id (exit 1);
#   - the sliding window (a user family, --family-file): `check` of
#     examples/families/scenarios/ holds, without an implementation (the
#     description itself) and through its provider; fuzz with the planted provider
#     finds the bug (exit 1) and writes a reproducer under --out minimized to
#     at most 2 requests; replaying it fails with the planted provider
#     (exit 1) and holds with the correct one (exit 0);
#   - the lightning mismatch (producer pads 0, the engine's decode kernel
#     skips only -1): fuzz of variant engine_81be2e09 from nothing finds
#     skip_agrees with a reproducer of 1 request, which replays as a finding;
#   - a new state-index convention described in one file
#     (tests/families/minus_one/: pad -1, skip < 0), with no rebuild: its
#     scenario holds, fuzz finds nothing, and its mismatched variant is found.
# The providers need numpy: /usr/bin/python3 (or $PYTHON) without it skips (77).
# Usage: tests/families/engine_families_test.sh SLOTGUARD_BINARY SCRATCH_DIR
set -uo pipefail
# PART (providers-1, providers-2 or planted; all when absent) runs one third,
# so that ctest runs the thirds side by side, each under its own timeout.
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 SLOTGUARD_BINARY SCRATCH_DIR [providers-1|providers-2|planted]" >&2
  exit 2
fi
part=${3:-all}
case $part in all|providers-1|providers-2|planted) ;; *) echo "engine_families_test: unknown part '$part'" >&2; exit 2 ;; esac
sg=$1
case $sg in /*) ;; *) sg=$PWD/$sg ;; esac
scratch=$2
case $scratch in /*) ;; *) scratch=$PWD/$scratch ;; esac
py=${PYTHON:-/usr/bin/python3}
if ! "$sg" --version > /dev/null 2>&1; then
  echo "engine_families_test: $1 does not run ($1 --version failed)" >&2
  exit 2
fi
if ! "$py" -c 'import numpy' 2> /dev/null; then
  echo "engine_families_test skipped: $py has no numpy (apt-get install python3-numpy)"
  exit 77
fi
cd "$(dirname "$0")/../.." || exit 2
rm -rf "$scratch" && mkdir -p "$scratch" || exit 2

passed=0 failed=0
log=$scratch/last.log
# expect CODE WHAT COMMAND...: runs COMMAND, which must exit CODE.
expect() {
  local want=$1 what=$2
  shift 2
  "$@" > "$log" 2>&1
  local got=$?
  if [ "$got" -eq "$want" ]; then
    passed=$((passed + 1))
    echo "ok    $what"
  else
    failed=$((failed + 1))
    echo "FAIL  $what: exit $got, expected $want: $*"
    tail -n 30 "$log" | sed 's/^/      /'
  fi
}

first_half="dsv4_compressed eagle_step eagle_step_chain dflash vllm_extract_hidden_states sglang_out_cache_loc flashinfer_append trtllm_paged
  lmcache_vllm_adapter vllm_encoder_only vllm_mamba_postcopy"
second_half="vllm_sliding_window vllm_mamba vllm_gdn vllm_lightning sglang_mamba vllm_mamba_copy vllm_offload_store
  vllm_gather_block_tables vllm_hisparse_compressed vllm_parallel_drafting flashinfer_batch_indices"
case $part in
  all) families="$first_half $second_half" ;;
  providers-1) families=$first_half ;;
  providers-2) families=$second_half ;;
  planted) families="" ;;
esac
for family in $families; do
  provider="$py examples/python/families/${family}_provider.py"
  dir=scenarios/engines/$family
  expect 0 "$family: check $dir through its provider" \
    "$sg" check --backend host --writers --quiet --kernel-cmd "$provider" "$dir/"
  expect 0 "$family: fuzz 300 runs through its provider" \
    "$sg" fuzz --backend host --family "$family" --kernel-cmd "$provider" --runs 300 --seed 1 \
    --out "$scratch/fuzz-$family"
  first=$(ls "$dir"/*.json | head -n 1)
  expect 0 "$family: replay $first through its provider" \
    "$sg" replay --backend host --kernel-cmd "$provider" "$first"
done

if [ "$part" = providers-1 ] || [ "$part" = providers-2 ]; then
  echo "engine_families_test ($part): $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
fi

# LMCache's entry transform in PR #2984's order (the mask tests the raw id,
# so a -1 id is clamped into block 0): the fixed scenario with a -1 id
# catches the provider computing it.
expect 1 "lmcache_vllm_adapter: check of a -1 id through the PR #2984 order (--pr2984) fails" \
  "$sg" check --backend host --writers --quiet \
  --kernel-cmd "$py examples/python/families/lmcache_vllm_adapter_provider.py --pr2984" \
  scenarios/engines/lmcache_vllm_adapter/fixed-null-and-negative-ids-pad.json

# HiSparse's derive without its source test (--planted): a PAD source at a
# compression boundary maps to slot 0. The curated V2 dummy scenario
# catches it, and fuzz finds it from nothing.
hs_planted="$py examples/python/families/vllm_hisparse_compressed_provider.py --planted"
expect 1 "vllm_hisparse_compressed: check of the V2 dummy scenario with the planted bug fails" \
  "$sg" check --backend host --writers --quiet --kernel-cmd "$hs_planted" \
  scenarios/engines/vllm_hisparse_compressed/fixed-v2-dummy-pad-source-at-boundaries.json
expect 1 "vllm_hisparse_compressed: fuzz finds the planted bug" \
  "$sg" fuzz --backend host --family vllm_hisparse_compressed --kernel-cmd "$hs_planted" --runs 2000 --seed 1 \
  --out "$scratch/fuzz-hisparse-planted"
# Parallel drafting's rejected-token mask reads the per-request input
# num_rejected (docs/family-format.md, "Inputs"): a provider that drops the
# mask holds on a batch whose num_rejected is 0 (the default), and check of
# the curated scenarios and fuzz from nothing both find it.
drafting="$py examples/python/families/vllm_parallel_drafting_provider.py --no-reject-mask"
expect 0 "vllm_parallel_drafting: without the mask, a batch of no rejected token holds" \
  "$sg" check --backend host --writers --quiet --kernel-cmd "$drafting" \
  scenarios/engines/vllm_parallel_drafting/fixed-none-rejected-by-default.json
expect 1 "vllm_parallel_drafting: check through a provider without the rejected-token mask fails" \
  "$sg" check --backend host --writers --quiet --kernel-cmd "$drafting" scenarios/engines/vllm_parallel_drafting/
expect 1 "vllm_parallel_drafting: fuzz finds the provider without the rejected-token mask" \
  "$sg" fuzz --backend host --writers --family vllm_parallel_drafting --kernel-cmd "$drafting" --runs 300 --seed 1 \
  --out "$scratch/fuzz-drafting-planted"

# The Mamba post-copy reads the per-request input num_accepted: a provider
# that takes 1 for every request (a stale count) misses the copies that
# accepted drafts cause. Check of the curated scenarios and fuzz from nothing
# both find it, as a difference from the reference blamed on the kernel.
postcopy="$py examples/python/families/vllm_mamba_postcopy_provider.py --stale-accepted"
expect 1 "vllm_mamba_postcopy: check through a provider with a stale num_accepted fails" \
  "$sg" check --backend host --writers --quiet --kernel-cmd "$postcopy" scenarios/engines/vllm_mamba_postcopy/
expect 1 "vllm_mamba_postcopy: fuzz finds the provider with a stale num_accepted" \
  "$sg" fuzz --backend host --family vllm_mamba_postcopy --kernel-cmd "$postcopy" --runs 300 --seed 1 \
  --out "$scratch/fuzz-postcopy-planted"
if grep -q "signature .*vllm_mamba_postcopy/fixed: differential (kernel)" "$log"; then
  passed=$((passed + 1)); echo "ok    vllm_mamba_postcopy: the finding is differential, blamed on the kernel"
else
  failed=$((failed + 1)); echo "FAIL  vllm_mamba_postcopy: the fuzz finding is not the provider's differential"; tail -n 5 "$log"
fi
# The engine's post-copy (variant engine_81be2e09) tests no side for null:
# a campaign from nothing finds it writing a live request's state into
# block 0 (op_null_dst).
expect 1 "vllm_mamba_postcopy: fuzz of variant engine_81be2e09 finds the null destination" \
  "$sg" fuzz --backend host --family vllm_mamba_postcopy --variant engine_81be2e09 --keep-going --runs 2000 --seed 1 \
  --out "$scratch/fuzz-postcopy-engine"
if grep -q "signature .*vllm_mamba_postcopy/engine_81be2e09: op_null_dst" "$log"; then
  passed=$((passed + 1)); echo "ok    vllm_mamba_postcopy: the engine's finding is op_null_dst"
else
  failed=$((failed + 1)); echo "FAIL  vllm_mamba_postcopy: the engine's campaign does not name op_null_dst"; tail -n 5 "$log"
fi

# FlashInfer's batch_indices is the owner input of flashinfer_batch_indices
# (docs/family-format.md, "owner"): a provider that takes each token's
# request from query_start_loc instead holds where the two agree (the
# input's default), and check of the curated scenarios and fuzz from
# nothing both find it.
qsl_owner="$py examples/python/families/flashinfer_batch_indices_provider.py --qsl-owner"
expect 0 "flashinfer_batch_indices: query_start_loc's owner holds where batch_indices is its default" \
  "$sg" check --backend host --writers --quiet --kernel-cmd "$qsl_owner" \
  scenarios/engines/flashinfer_batch_indices/fixed-default-query-start-loc-owner.json
expect 1 "flashinfer_batch_indices: check through a provider that ignores batch_indices fails" \
  "$sg" check --backend host --writers --quiet --kernel-cmd "$qsl_owner" scenarios/engines/flashinfer_batch_indices/
expect 1 "flashinfer_batch_indices: fuzz finds the provider that ignores batch_indices" \
  "$sg" fuzz --backend host --writers --family flashinfer_batch_indices --kernel-cmd "$qsl_owner" --runs 300 --seed 1 \
  --out "$scratch/fuzz-batch-indices-planted"

# The table producer (a kind of its own, docs/table-producers.md): 2000 runs
# of the description from nothing find nothing and load every scenario the
# generator makes (the runs above went through its provider).
expect 0 "vllm_gather_block_tables: fuzz 2000 runs of the description" \
  "$sg" fuzz --backend host --family vllm_gather_block_tables --runs 2000 --seed 2 \
  --out "$scratch/fuzz-gather-fixed"

# The sliding window, a user family.
fam=(--family-file examples/families/sliding_window.json)
good="$py examples/python/families/sliding_window_provider.py"
planted="$good --planted"
expect 0 "sliding_window: check examples/families/scenarios/ (the description itself)" \
  "$sg" check --backend host "${fam[@]}" examples/families/scenarios/
expect 0 "sliding_window: check examples/families/scenarios/ through its provider" \
  "$sg" check --backend host --writers "${fam[@]}" --kernel-cmd "$good" examples/families/scenarios/
expect 1 "sliding_window: check with the planted bug fails" \
  "$sg" check --backend host "${fam[@]}" --kernel-cmd "$planted" examples/families/scenarios/
out=$scratch/fuzz-sliding-window
expect 1 "sliding_window: fuzz finds the planted bug" \
  "$sg" fuzz --backend host "${fam[@]}" --family sliding_window --kernel-cmd "$planted" --runs 2000 --seed 1 \
  --out "$out"
repro=$(ls "$out"/fuzz-*.json 2> /dev/null | head -n 1)
if [ -z "$repro" ]; then
  failed=$((failed + 1))
  echo "FAIL  sliding_window: no reproducer under $out"
else
  requests=$("$py" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["batch"]["query_start_loc"]) - 1)' "$repro")
  if [ "$requests" -le 2 ]; then
    passed=$((passed + 1))
    echo "ok    sliding_window: the reproducer is minimized ($requests requests)"
  else
    failed=$((failed + 1))
    echo "FAIL  sliding_window: the reproducer has $requests requests, expected at most 2: $repro"
  fi
  expect 1 "sliding_window: replay of the reproducer with the planted bug fails" \
    "$sg" replay --backend host "${fam[@]}" --kernel-cmd "$planted" "$repro"
  expect 0 "sliding_window: replay of the reproducer with the correct provider holds" \
    "$sg" replay --backend host "${fam[@]}" --kernel-cmd "$good" "$repro"
fi

# requests_of FILE: the number of requests of a scenario file.
requests_of() {
  "$py" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["batch"]["query_start_loc"]) - 1)' "$1"
}
# found_minimized WHAT DIR FAMILY_ARGS...: DIR holds one reproducer of 1
# request, and replaying it with FAMILY_ARGS fails (exit 1).
found_minimized() {
  local what=$1 dir=$2
  shift 2
  local repro
  repro=$(ls "$dir"/fuzz-*.json 2> /dev/null | head -n 1)
  if [ -z "$repro" ]; then
    failed=$((failed + 1))
    echo "FAIL  $what: no reproducer under $dir"
    return
  fi
  local requests
  requests=$(requests_of "$repro")
  if [ "$requests" -eq 1 ]; then
    passed=$((passed + 1))
    echo "ok    $what: the reproducer is minimized to 1 request"
  else
    failed=$((failed + 1))
    echo "FAIL  $what: the reproducer has $requests requests, expected 1: $repro"
  fi
  expect 1 "$what: replay of the reproducer fails" "$sg" replay --backend host "$@" "$repro"
}

# The lightning mismatch, from nothing.
expect 0 "vllm_lightning: check of the engine's padded decode reports skip_agrees (the padded row's write lands in the sink, so no state_writes), as it expects" \
  "$sg" check --backend host scenarios/engines/vllm_lightning/engine-c3-padded-row-writes-state-0.json
expect 1 "vllm_lightning: the padded decode under --variant engine_81be2e09 fails" \
  "$sg" check --backend host --variant engine_81be2e09 scenarios/engines/vllm_lightning/c3-padded-decode.json
out=$scratch/fuzz-lightning
expect 1 "vllm_lightning: fuzz of engine_81be2e09 finds the mismatch" \
  "$sg" fuzz --backend host --family vllm_lightning --variant engine_81be2e09 --runs 3000 --seed 1 --out "$out"
if grep -q "skip_agrees" "$log"; then
  passed=$((passed + 1)); echo "ok    vllm_lightning: the finding is skip_agrees"
else
  failed=$((failed + 1)); echo "FAIL  vllm_lightning: the fuzz finding does not name skip_agrees"; tail -n 5 "$log"
fi
found_minimized "vllm_lightning" "$out"

# A new convention, one file, no rebuild.
minus=(--family-file tests/families/minus_one/minus_one_state.json)
expect 0 "test_minus_one_state: its scenario holds (the description itself)" \
  "$sg" check --backend host "${minus[@]}" tests/families/minus_one/padded.json
expect 0 "test_minus_one_state: fuzz 3000 runs finds nothing" \
  "$sg" fuzz --backend host "${minus[@]}" --family test_minus_one_state --runs 3000 --seed 1 \
  --out "$scratch/fuzz-minus-one"
out=$scratch/fuzz-minus-one-skips-zero
expect 1 "test_minus_one_state: fuzz of variant skips_zero finds the mismatch" \
  "$sg" fuzz --backend host "${minus[@]}" --family test_minus_one_state --variant skips_zero --runs 3000 --seed 1 \
  --out "$out"
found_minimized "test_minus_one_state/skips_zero" "$out" "${minus[@]}"

echo "engine_families_test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
