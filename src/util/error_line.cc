#include "util/error_line.h"

#include <cstdint>

namespace slotguard {
namespace {

const char kHex[] = "0123456789abcdef";

std::string HexByte(unsigned char c) { return std::string("\\x") + kHex[c >> 4] + kHex[c & 15]; }

/// Length of the valid UTF-8 sequence at text[i] (2..4), or 0.
size_t Utf8Length(const std::string& text, size_t i) {
  const unsigned char c = static_cast<unsigned char>(text[i]);
  size_t n;
  uint32_t cp;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2, cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3, cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const unsigned char t = static_cast<unsigned char>(text[i + k]);
    if ((t & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (t & 0x3f);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

/// U+2028, U+2029 (line breaks to some viewers) and the bidirectional
/// controls: the marks U+061C, U+200E, U+200F, the embeddings and
/// overrides U+202A..U+202E and the isolates U+2066..U+2069 (they reorder
/// the rest of a console line: "Trojan Source"), at text[i], a valid
/// sequence of n bytes; else 0.
uint32_t LayoutControl(const std::string& text, size_t i, size_t n) {
  const unsigned char b0 = static_cast<unsigned char>(text[i]), b1 = static_cast<unsigned char>(text[i + 1]);
  if (n == 2) return b0 == 0xd8 && b1 == 0x9c ? 0x061c : 0;
  if (n != 3 || b0 != 0xe2) return 0;
  const unsigned char b2 = static_cast<unsigned char>(text[i + 2]);
  if (b1 == 0x80 && ((b2 >= 0xa8 && b2 <= 0xae) || b2 == 0x8e || b2 == 0x8f)) return 0x2000 + (b2 - 0x80);
  if (b1 == 0x81 && b2 >= 0xa6 && b2 <= 0xa9) return 0x2040 + (b2 - 0x80);
  return 0;
}

/// One character of `text` at i as it is shown; *len: the bytes it took.
std::string EscapeOne(const std::string& text, size_t i, char quote, size_t* len) {
  const unsigned char c = static_cast<unsigned char>(text[i]);
  *len = 1;
  switch (c) {
    case '\n':
      return "\\n";
    case '\t':
      return "\\t";
    case '\r':
      return "\\r";
    case '\\':
      return "\\\\";
    default:
      break;
  }
  if (quote && c == static_cast<unsigned char>(quote)) return std::string("\\") + quote;
  if (c < 0x20 || c == 0x7f) return HexByte(c);
  if (c < 0x80) return std::string(1, static_cast<char>(c));
  const size_t n = Utf8Length(text, i);
  if (n == 0) return HexByte(c);
  *len = n;
  if (n == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0) {  // C1 control (U+0080..U+009F)
    const unsigned char cp = static_cast<unsigned char>(text[i + 1]);
    return std::string("\\u00") + kHex[cp >> 4] + kHex[cp & 15];
  }
  if (const uint32_t cp = LayoutControl(text, i, n))
    return std::string("\\u") + kHex[cp >> 12] + kHex[(cp >> 8) & 15] + kHex[(cp >> 4) & 15] + kHex[cp & 15];
  return text.substr(i, n);
}

std::string Escape(const std::string& text, size_t max_chars, char quote) {
  std::string out;
  size_t shown = 0;
  for (size_t i = 0; i < text.size();) {
    size_t len;
    const std::string piece = EscapeOne(text, i, quote, &len);
    if (max_chars && shown + 1 > max_chars) {
      out += "...(" + std::to_string(text.size()) + " bytes)";
      return out;
    }
    out += piece;
    ++shown;
    i += len;
  }
  return out;
}

}  // namespace

std::string ErrorLine(const std::string& problem) { return "slotguard: error: " + problem + "\n"; }

std::string EscapeText(const std::string& text, size_t max_chars) { return Escape(text, max_chars, 0); }

std::string OutOfMemoryText(const std::string& what) {
  return OutOfMemoryText(what, "check fewer scenarios at once with -j, or lower --max-memory-mib so that such a "
                               "scenario is refused before it runs");
}

std::string OutOfMemoryText(const std::string& what, const std::string& advice) {
  return what + ": out of memory; expected more free memory" + (advice.empty() ? "" : " (" + advice + ")");
}

std::string PrintableText(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      out += c < 0x20 || c == 0x7f ? ' ' : static_cast<char>(c);
      ++i;
      continue;
    }
    const size_t n = Utf8Length(text, i);
    if (n == 0) {
      out += '?';
      ++i;
    } else if (n == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0) {  // C1 control
      out += ' ';
      i += n;
    } else if (LayoutControl(text, i, n) != 0) {  // line separators, bidirectional controls
      out += ' ';
      i += n;
    } else if (n == 3 && c == 0xef && static_cast<unsigned char>(text[i + 1]) == 0xbf &&
               static_cast<unsigned char>(text[i + 2]) >= 0xbe) {  // U+FFFE, U+FFFF: not allowed in XML
      out += '?';
      i += n;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  return out;
}

namespace {

/// `text` cut after `max_chars` characters, the cut marked with `bytes`.
std::string Elide(const std::string& text, size_t max_chars, size_t bytes) {
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++chars) {
    if (chars == max_chars) return text.substr(0, i) + "...(" + std::to_string(bytes) + " bytes)";
    const size_t n = static_cast<unsigned char>(text[i]) < 0x80 ? 0 : Utf8Length(text, i);
    i += n == 0 ? 1 : n;
  }
  return text;
}

}  // namespace

std::string ElideText(const std::string& text, size_t max_chars) { return Elide(text, max_chars, text.size()); }

std::string ForeignText(const std::string& text, size_t max_chars) {
  return Elide(PrintableText(text), max_chars, text.size());  // N: what the program sent
}

std::string Utf8Text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const size_t n = c < 0x80 ? 1 : Utf8Length(text, i);
    if (n == 0) {
      out += HexByte(c);
      ++i;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  return out;
}

size_t CountChars(const std::string& text) {
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++chars) {
    const size_t n = static_cast<unsigned char>(text[i]) < 0x80 ? 0 : Utf8Length(text, i);
    i += n == 0 ? 1 : n;
  }
  return chars;
}

std::string QuoteName(const std::string& text, size_t max_chars, char quote) {
  return quote + Escape(text, max_chars, quote) + quote;
}

}  // namespace slotguard
