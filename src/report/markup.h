// Text in XML and HTML (JUnit, the block map page): the one escaping both
// use.
#ifndef SLOTGUARD_REPORT_MARKUP_H_
#define SLOTGUARD_REPORT_MARKUP_H_

#include <string>

#include "util/error_line.h"

namespace slotguard {

/// Text that XML 1.0 and HTML take: each line made printable valid UTF-8
/// (PrintableText: other control characters as spaces, invalid bytes and
/// U+FFFE, U+FFFF as '?'), \n and \t kept, & < > " ' as entities, for
/// element text and quoted attributes.
inline std::string EscapeMarkup(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = text.find_first_of("\n\t", start);
    const std::string piece = PrintableText(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    for (char c : piece) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
      }
    }
    if (end == std::string::npos) break;
    out += text[end];
    start = end + 1;
  }
  return out;
}

}  // namespace slotguard

#endif  // SLOTGUARD_REPORT_MARKUP_H_
