#include "util/json_pointer_line.h"

#include <algorithm>
#include <vector>

namespace slotguard {
namespace {

/// A cursor over JSON text; every method returns false on text that is not JSON.
class Scanner {
 public:
  explicit Scanner(const std::string& text) : text_(text) {}

  size_t pos() const { return pos_; }

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r'))
      ++pos_;
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool Take(char c) {
    if (!Peek(c)) return false;
    ++pos_;
    return true;
  }
  /// A string's raw characters (escapes decoded for \" \\ \/ only: enough
  /// to compare a key with a pointer token).
  bool String(std::string* out) {
    if (!Take('"')) return false;
    out->clear();
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) {
        const char e = text_[pos_ + 1];
        if (e == '"' || e == '\\' || e == '/') {
          out->push_back(e);
          pos_ += 2;
          continue;
        }
        out->append(text_, pos_, 2);
        pos_ += 2;
        continue;
      }
      out->push_back(text_[pos_++]);
    }
    if (pos_ >= text_.size()) return false;
    ++pos_;  // the closing quote
    return true;
  }
  /// Skips one value, nesting with an explicit stack (no recursion).
  bool SkipValue() {
    SkipSpace();
    std::vector<char> open;
    std::string ignored;
    do {
      SkipSpace();
      if (pos_ >= text_.size()) return false;
      const char c = text_[pos_];
      if (c == '"') {
        if (!String(&ignored)) return false;
      } else if (c == '{' || c == '[') {
        open.push_back(c == '{' ? '}' : ']');
        ++pos_;
        continue;
      } else if (c == '}' || c == ']') {
        if (open.empty() || open.back() != c) return false;
        open.pop_back();
        ++pos_;
      } else if (c == ',' || c == ':') {
        ++pos_;
        continue;
      } else {
        while (pos_ < text_.size() && std::string(",:]} \t\r\n").find(text_[pos_]) == std::string::npos) ++pos_;
      }
    } while (!open.empty());
    return true;
  }

 private:
  const std::string& text_;
  size_t pos_ = 0;
};

/// The pointer's reference tokens, unescaped (~1 is /, ~0 is ~).
std::vector<std::string> Tokens(const std::string& pointer) {
  std::vector<std::string> tokens;
  size_t start = 1;
  while (start <= pointer.size() && !pointer.empty()) {
    size_t end = pointer.find('/', start);
    if (end == std::string::npos) end = pointer.size();
    std::string token;
    for (size_t i = start; i < end; ++i) {
      if (pointer[i] == '~' && i + 1 < end) {
        token.push_back(pointer[i + 1] == '1' ? '/' : '~');
        ++i;
      } else {
        token.push_back(pointer[i]);
      }
    }
    tokens.push_back(token);
    start = end + 1;
  }
  return tokens;
}

}  // namespace

int JsonPointerLine(const std::string& text, const std::string& pointer) {
  if (!pointer.empty() && pointer[0] != '/') return 0;
  Scanner s(text);
  for (const std::string& token : Tokens(pointer)) {
    if (s.Take('{')) {
      std::string key;
      bool found = false;
      while (!s.Peek('}')) {
        if (!s.String(&key) || !s.Take(':')) return 0;
        if (key == token) {
          found = true;
          break;
        }
        if (!s.SkipValue()) return 0;
        if (!s.Take(',')) break;
      }
      if (!found) return 0;
    } else if (s.Take('[')) {
      if (token.empty() || token.find_first_not_of("0123456789") != std::string::npos) return 0;
      const size_t index = std::stoul(token.substr(0, 9));
      for (size_t i = 0; i < index; ++i)
        if (s.Peek(']') || !s.SkipValue() || !s.Take(',')) return 0;
      if (s.Peek(']')) return 0;
    } else {
      return 0;
    }
  }
  s.SkipSpace();
  if (s.pos() >= text.size()) return 0;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(s.pos()), '\n'));
}

}  // namespace slotguard
