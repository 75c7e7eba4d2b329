// An empty libFuzzer target: the exec/s ceiling that fuzz_mapping's exec/s is
// compared with in the same run (scripts/fuzz-bench.sh).
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }
