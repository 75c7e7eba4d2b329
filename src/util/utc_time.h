// The time stamps reports carry ("finished"): UTC, ISO 8601, to the second,
// one fixed spelling, so that two of them order as text.
#ifndef SLOTGUARD_UTIL_UTC_TIME_H_
#define SLOTGUARD_UTIL_UTC_TIME_H_

#include <string>

namespace slotguard {

/// Now, as "2026-12-05T03:14:07Z".
std::string UtcNow();

/// Whether `text` is such a stamp: "YYYY-MM-DDTHH:MM:SSZ", digits where
/// they go, month 01-12, day 01-31, hour 00-23, minute and second 00-59
/// (60 for a leap second).
bool IsUtcTimestamp(const std::string& text);

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_UTC_TIME_H_
