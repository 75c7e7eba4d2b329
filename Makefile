# Thin wrapper over CMake: the two commands the README promises.
#   make gate   set up, build, then run the CI gate over scenarios/
#   make test   set up, build, then run every test (GPU tests skip without a device)
BUILD        ?= build
BUILD_TYPE   ?= Release
# CUDA targets: sm_80 (A100) and sm_90 (H100/H200). Add more with e.g.
#   make CUDA_ARCHS="80;89;90;100"
CUDA_ARCHS   ?= 80;90
JOBS         ?= $(shell nproc)
DEB_PACKAGES := cmake ninja-build g++ make libcli11-dev nlohmann-json3-dev librapidcheck-dev libgtest-dev

.PHONY: all deps configure build gate test clean

all: build

deps:
	@scripts/install-deps.sh $(DEB_PACKAGES)

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  "-DSLOTGUARD_CUDA_ARCHITECTURES=$(CUDA_ARCHS)"

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

gate: build
	$(BUILD)/slotguard check scenarios/

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
