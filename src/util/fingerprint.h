// A stable short fingerprint of a text: what SARIF's partialFingerprints and
// a finding's signature id are made of.
#ifndef SLOTGUARD_UTIL_FINGERPRINT_H_
#define SLOTGUARD_UTIL_FINGERPRINT_H_

#include <string>

namespace slotguard {

/// FNV-1a, 64 bits, as 16 lowercase hex digits.
std::string Fingerprint(const std::string& text);

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_FINGERPRINT_H_
