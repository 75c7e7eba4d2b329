// Text in XML and HTML (JUnit, the block map page): the one escaping both
// use.
#ifndef SLOTGUARD_REPORT_MARKUP_H_
#define SLOTGUARD_REPORT_MARKUP_H_

#include <string>

namespace slotguard {

/// & < > " ' as entities, for element text and quoted attributes; control
/// characters other than \n and \t (not allowed in XML 1.0) as spaces.
inline std::string EscapeMarkup(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' ? ' ' : c;
    }
  }
  return out;
}

}  // namespace slotguard

#endif  // SLOTGUARD_REPORT_MARKUP_H_
