# Thin wrapper over CMake: the two commands the README promises.
#   make gate   set up, build, then run the CI gate: scenarios/, then prove --scope small
#   make test   set up, build, then run every test (GPU tests skip without a device)
#   make gpu-sanitize   compute-sanitizer over scenarios/ and the corpus (GPU machine)
#   make fuzz-regress / nightly / fuzz-bench   the libFuzzer targets (clang)
BUILD        ?= build
BUILD_TYPE   ?= Release
# CUDA targets: sm_80 (A100) and sm_90 (H100/H200). Add more with e.g.
#   make CUDA_ARCHS="80;89;90;100"
CUDA_ARCHS   ?= 80;90
JOBS         ?= $(shell nproc)
# chromium: the headless-browser test of replay --html (tests/report/render_block_map.sh).
DEB_PACKAGES := cmake ninja-build g++ make libcli11-dev nlohmann-json3-dev librapidcheck-dev libgtest-dev python3-pytest python3-numpy chromium
# libFuzzer targets: clang and its runtime (libFuzzer, ASan, UBSan).
FUZZ_BUILD   ?= build-fuzz
# Sanitizers of the libFuzzer targets. "undefined" alone (with FUZZ_BUILD set
# to another folder) runs about 2.5x the executions per second: every
# invariant finding, no memory-error detection in slotguard itself.
FUZZ_SANITIZERS ?= address,undefined
FUZZ_PACKAGES := clang libclang-rt-14-dev

.PHONY: all deps configure build gate test gpu-sanitize clean fuzz-deps fuzz-build fuzz-regress nightly fuzz-bench

all: build

deps:
	@scripts/install-deps.sh $(DEB_PACKAGES)

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  "-DSLOTGUARD_CUDA_ARCHITECTURES=$(CUDA_ARCHS)"

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

gate: build
	$(BUILD)/slotguard check --writers scenarios/
	$(BUILD)/slotguard prove --scope small --backend host --out $(BUILD)/prove-findings

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# On a GPU machine: compute-sanitizer memcheck + initcheck over scenarios/ and
# the seed corpus (writers and CUDA-graph replays on). CI has no GPU.
gpu-sanitize: build
	BUILD=$(BUILD) scripts/gpu-sanitize.sh

fuzz-deps: deps
	@scripts/install-deps.sh $(FUZZ_PACKAGES)

# CC/CXX and CFLAGS/CXXFLAGS/LIB_FUZZING_ENGINE follow OSS-Fuzz conventions when set.
fuzz-build: fuzz-deps
	@CC=$${CC:-clang} CXX=$${CXX:-clang++} cmake -S . -B $(FUZZ_BUILD) -G Ninja \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLOTGUARD_FUZZERS=ON -DSLOTGUARD_FUZZ_SANITIZERS=$(FUZZ_SANITIZERS)
	@cmake --build $(FUZZ_BUILD) -j $(JOBS)

# Replays the seed corpus through every libFuzzer target, plus a short smoke run.
fuzz-regress: fuzz-build
	FUZZ_BUILD=$(FUZZ_BUILD) scripts/fuzz-regress.sh

# Each target with -fork for NIGHTLY_SECONDS (default 3600), corpus merged,
# crashes turned into scenario files under nightly/, then a summary.
nightly: fuzz-build build
	FUZZ_BUILD=$(FUZZ_BUILD) BUILD=$(BUILD) scripts/nightly-fuzz.sh

# Time to first finding per variant (10 seeds), exec/s and scenarios/s; the
# exec/s also of a UBSan-only build ($(FUZZ_BUILD)-ubsan).
fuzz-bench: fuzz-build build
	@$(MAKE) --no-print-directory fuzz-build FUZZ_BUILD=$(FUZZ_BUILD)-ubsan FUZZ_SANITIZERS=undefined
	FUZZ_BUILD=$(FUZZ_BUILD) UBSAN_BUILD=$(FUZZ_BUILD)-ubsan BUILD=$(BUILD) scripts/fuzz-bench.sh

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD) $(FUZZ_BUILD)-ubsan
