#include "util/utc_time.h"

#include <cctype>
#include <ctime>

namespace slotguard {

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

bool IsUtcTimestamp(const std::string& t) {
  static const char kPattern[] = "dddd-dd-ddTdd:dd:ddZ";
  if (t.size() != sizeof kPattern - 1) return false;
  for (size_t i = 0; i < t.size(); ++i) {
    const bool digit = std::isdigit(static_cast<unsigned char>(t[i])) != 0;
    if (kPattern[i] == 'd' ? !digit : t[i] != kPattern[i]) return false;
  }
  const auto two = [&](size_t at) { return (t[at] - '0') * 10 + (t[at + 1] - '0'); };
  const int month = two(5), day = two(8), hour = two(11), minute = two(14), second = two(17);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 60;
}

}  // namespace slotguard
