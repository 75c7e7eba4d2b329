// SHA-1 of a buffer as 40 hex digits: libFuzzer names artifacts
// crash-<sha1 of the input>, and fuzz_mapping writes its scenario beside it.
#ifndef SLOTGUARD_FUZZ_SHA1_H_
#define SLOTGUARD_FUZZ_SHA1_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace slotguard {

std::string Sha1Hex(const uint8_t* data, size_t size);

}  // namespace slotguard

#endif  // SLOTGUARD_FUZZ_SHA1_H_
