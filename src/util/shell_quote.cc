#include "util/shell_quote.h"

#include <cctype>

namespace slotguard {

std::string ShellQuote(const std::string& word) {
  bool plain = !word.empty();
  for (unsigned char c : word)
    if (!(std::isalnum(c) || std::string("-_./:=+,@%").find(static_cast<char>(c)) != std::string::npos)) plain = false;
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace slotguard
