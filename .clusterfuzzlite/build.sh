#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build script: the libFuzzer targets of fuzz/
# with the environment's compiler and flags, each with its seed corpus.
# docs/ci-recipes.md#clusterfuzzlite.
#
# In:  $SRC/slotguard (this repository), $CC $CXX $CFLAGS $CXXFLAGS (the
#      sanitizer and coverage flags), $LIB_FUZZING_ENGINE (the link flag of
#      the engine, e.g. -fsanitize=fuzzer), $WORK (scratch).
# Out: $OUT/<target> for each folder of corpus/, $OUT/<target>_seed_corpus.zip
#      from corpus/<target>/, and fuzz/<target>.options / .dict when present.
#
# This is `make fuzz-build` without its apt-get step: CMakeLists.txt sees
# LIB_FUZZING_ENGINE in the environment and then takes the sanitizers from
# CXXFLAGS instead of adding its own. Installing packages is the
# Dockerfile's job.
: "${LIB_FUZZING_ENGINE:?LIB_FUZZING_ENGINE must be set (e.g. -fsanitize=fuzzer)}"
: "${OUT:?}" "${WORK:?}" "${SRC:?}" "${CXX:?}"
cd "$SRC/slotguard"

# The targets are the folders of corpus/, as for make fuzz-regress and make
# nightly (fuzz_empty, the exec/s baseline of make fuzz-bench, has none).
targets=$(cd corpus && echo */ | tr -d /)
build="$WORK/slotguard-fuzz"

# RelWithDebInfo as make fuzz-build, so ClusterFuzzLite runs the binaries
# make fuzz-regress and make nightly run (the project has no assert()).
# The project is C++ only: $CC and $CFLAGS go unused.
cmake -S . -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSLOTGUARD_FUZZERS=ON \
  -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_CXX_FLAGS="${CXXFLAGS:-}"
# CMAKE_BUILD_PARALLEL_LEVEL, when set, bounds the jobs; else every core.
# shellcheck disable=SC2086 # $targets: one word per target
cmake --build "$build" --parallel "${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" --target $targets

for target in $targets; do
  cp "$build/$target" "$OUT/"
  rm -f "$OUT/${target}_seed_corpus.zip"
  (cd "corpus/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
  for extra in options dict; do
    if [ -f "fuzz/$target.$extra" ]; then cp "fuzz/$target.$extra" "$OUT/"; fi
  done
  echo "build.sh: $target: $OUT/$target, $(ls "corpus/$target" | wc -l) seed inputs in ${target}_seed_corpus.zip"
done
