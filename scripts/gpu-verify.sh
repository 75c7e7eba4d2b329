#!/usr/bin/env bash
# Runs every GPU check of slotguard (GPU tests, check and mutants on the GPU,
# bench, compute-sanitizer) on a machine with a CUDA device, from a
# build made elsewhere (build/ carried along). Logs go to $OUT (default ./gpu-logs).
#   scripts/gpu-verify.sh   # GPU tests, check (writers, graphs), mutants, bench, fuzz (and its
#                           # throughput by batch size), sanitizer, plugins, compiled kernels
#   QUICK=1 scripts/gpu-verify.sh   # the same without the fuzz throughput sweep, the sanitizer
#                                   # and the Triton recipe (a few minutes less)
#   SKIP_CPU=1 scripts/gpu-verify.sh  # without the CPU tests (a slim build/ that left their binaries behind)
# The build bakes absolute paths of the checkout it was configured in
# (ctest files, the scenario directory of the tests); SLOTGUARD_BUILT_IN
# names it so this script can link it to the current checkout.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-logs}
mkdir -p "$OUT"
built_in=${SLOTGUARD_BUILT_IN:-$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' build/CMakeCache.txt)}
if [ -n "$built_in" ] && [ "$built_in" != "$PWD" ] && [ ! -e "$built_in" ]; then
  mkdir -p "$(dirname "$built_in")" && ln -s "$PWD" "$built_in"
fi
status=0
step() {  # step NAME COMMAND...: runs, logs to $OUT/NAME.log, prints the tail
  echo "=== $1: ${*:2}"
  "${@:2}" >"$OUT/$1.log" 2>&1
  local rc=$?
  tail -n "${TAIL:-6}" "$OUT/$1.log"
  echo "=== $1: exit $rc"
  [ $rc -eq 0 ] || status=1
}
nvidia-smi -L
step gpu_tests ctest --test-dir "$built_in/build" -L gpu --output-on-failure
[ -n "${SKIP_CPU:-}" ] || TAIL=3 step cpu_tests ctest --test-dir "$built_in/build" -L cpu -j 8
TAIL=2 step check_gpu build/slotguard check --backend gpu --jobs 4 scenarios/
TAIL=2 step check_gpu_writers build/slotguard check --backend gpu --writers --jobs 4 scenarios/
TAIL=2 step check_gpu_writers_graph build/slotguard check --backend gpu --writers --cuda-graph --jobs 4 scenarios/
TAIL=2 step check_gpu_graph_variants sh -c 'build/slotguard check --backend gpu --cuda-graph --variant prefix --quiet scenarios/rings; test $? -eq 1' 
TAIL=4 step mutants_gpu build/slotguard mutants --backend gpu scenarios/
TAIL=40 step bench build/slotguard bench --backend gpu
TAIL=1 step fuzz_gpu build/slotguard fuzz --backend gpu --runs 400000 --seed 1 --jobs 16 --out "$OUT/fuzz-gpu"
TAIL=1 step fuzz_host build/slotguard fuzz --backend host --runs 400000 --seed 1 --jobs 16 --out "$OUT/fuzz-host"
[ -n "${QUICK:-}" ] || TAIL=12 step fuzz_throughput env SECONDS_EACH=8 scripts/fuzz-throughput.sh
# A historical variant must be found (fuzz exits 1 with a reproducer).
TAIL=2 step fuzz_gpu_variant sh -c 'build/slotguard fuzz --backend gpu --variant prefix --runs 100000 --seed 1 --out "$0"; test $? -eq 1' "$OUT/fuzz-gpu"
[ -n "${QUICK:-}" ] || TAIL=4 step sanitize env OUT="$OUT/sanitize" scripts/gpu-sanitize.sh
# Bring your own kernel: the example plugins and the compiled kernel.
ex=build/examples
TAIL=1 step plugin_rings_gpu build/slotguard check --backend gpu --writers --cuda-graph --quiet --kernel-lib $ex/libsg_rings.so scenarios/
TAIL=1 step plugin_rings_host build/slotguard check --backend host --quiet --kernel-lib $ex/libsg_rings.so scenarios/
TAIL=1 step plugin_rings_fuzz build/slotguard fuzz --backend gpu --runs 20000 --jobs 8 --kernel-lib $ex/libsg_rings.so --out "$OUT/fuzz-plugin"
TAIL=2 step plugin_buggy_fuzz sh -c 'build/slotguard fuzz --backend gpu --runs 20000 --jobs 8 --kernel-lib '$ex'/libsg_rings_buggy.so --out "$0"; test $? -eq 1' "$OUT/fuzz-plugin-buggy"
TAIL=3 step plugin_trap_gpu sh -c 'build/slotguard check --backend gpu --quiet --kernel-lib '$ex'/libsg_asserting_paged.so scenarios/; test $? -eq 1'
TAIL=1 step cubin_gpu build/slotguard check --backend gpu --writers --cuda-graph --quiet --kernel-cubin $ex/kpool_tail_kernel.fatbin --kernel-spec examples/cubin/kpool_tail_kernel.spec.json scenarios/
if [ -z "${QUICK:-}" ] && python3 -c "import triton, torch; assert torch.cuda.is_available()" 2>/dev/null; then
  TAIL=2 step triton_compile python3 examples/triton/kpool_tail_triton.py "$OUT/triton"
  TAIL=1 step triton_check build/slotguard check --backend gpu --writers --cuda-graph --quiet --kernel-cubin "$OUT/triton/kpool_tail_triton.cubin" --kernel-spec "$OUT/triton/kpool_tail_triton.spec.json" scenarios/
fi
exit $status
