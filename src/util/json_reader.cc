#include "util/json_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "util/did_you_mean.h"
#include "util/error_line.h"

namespace slotguard {
namespace {

using nlohmann::json;
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

std::string EscapePointerToken(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}



/// Tracks where the parser is, so duplicate keys can be named by pointer
/// (nlohmann keeps the last duplicate silently).
/// Finds the first key given twice in one object, as a SAX pass over the
/// text (nlohmann's callback parser, which could do it while parsing,
/// rescans the enclosing array at each object's end: 300k small objects
/// took 40 s). Stops at the first duplicate.
class DuplicateKeyFinder : public nlohmann::json_sax<json> {
 public:
  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool string(string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t) override {
    BeginValue();
    frames_.push_back({true, {}, "", 0});
    return true;
  }
  bool key(string_t& key) override {
    Frame& f = frames_.back();
    f.key = key;
    if (f.keys.insert(f.key).second) return true;
    duplicate_ = Path() + "/" + EscapePointerToken(f.key);
    duplicate_key_ = f.key;
    return false;  // the first one is the one reported
  }
  bool end_object() override { return End(); }
  bool start_array(std::size_t) override {
    BeginValue();
    frames_.push_back({false, {}, "", 0});
    return true;
  }
  bool end_array() override { return End(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

  const std::string& duplicate() const { return duplicate_; }
  const std::string& duplicate_key() const { return duplicate_key_; }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;
    size_t next_index;
  };
  bool Value() {
    BeginValue();
    return true;
  }
  bool End() {
    frames_.pop_back();
    return true;
  }
  void BeginValue() {
    if (!frames_.empty() && !frames_.back().object) {
      frames_.back().key = std::to_string(frames_.back().next_index++);
    }
  }
  std::string Path() const {
    std::string out;
    for (size_t i = 0; i + 1 < frames_.size(); ++i) out += "/" + EscapePointerToken(frames_[i].key);
    return out;
  }
  std::vector<Frame> frames_;
  std::string duplicate_, duplicate_key_;
};

constexpr size_t kPointerLimit = 160;  // characters of a JSON pointer shown in a message

/// What one linear pass over the text sees, before anything is built from it.
struct JsonShape {
  int64_t values = 1;        // at most: one, plus one per ',' and per container
  int64_t containers = 0;    // '[' and '{'
  int64_t members = 0;       // ':' (an object member: its map node, its key, the duplicate check's copy)
  int64_t string_bytes = 0;  // inside quotes
  int64_t longest_string = 0;  // bytes of the longest string (an unterminated one included)
  int64_t longest_bare = 0;    // bytes of the longest number or literal
  size_t too_deep = std::string::npos;  // the offset of the first container past kMaxJsonDepth
  /// Just past the closing bracket of the object or array the text starts
  /// with (after whitespace); npos when it starts with anything else.
  size_t first_end = std::string::npos;
};

JsonShape ScanJson(const std::string& text) {
  JsonShape shape;
  int depth = 0;
  bool in_string = false;
  const size_t start = text.find_first_not_of(" \t\r\n");
  const bool container = start != std::string::npos && (text[start] == '{' || text[start] == '[');
  size_t token_start = 0;  // of the string or bare token being scanned
  bool in_bare = false;     // a number or literal: bytes up to whitespace or punctuation
  auto end_token = [&](size_t end) {
    int64_t& longest = in_string ? shape.longest_string : shape.longest_bare;
    longest = std::max<int64_t>(longest, static_cast<int64_t>(end - token_start));
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        end_token(i);
        in_string = false;
      } else {
        ++shape.string_bytes;
      }
      continue;
    }
    const bool bare = c != '"' && c != '[' && c != ']' && c != '{' && c != '}' && c != ',' && c != ':' &&
                      c != ' ' && c != '\t' && c != '\r' && c != '\n';
    if (bare != in_bare) {
      if (bare) token_start = i;
      else end_token(i);
      in_bare = bare;
    }
    switch (c) {
      case '"':
        in_string = true;
        token_start = i + 1;
        break;
      case '[':
      case '{':
        ++shape.containers;
        ++shape.values;
        if (++depth > kMaxJsonDepth) {
          shape.too_deep = i;
          return shape;
        }
        break;
      case ']':
      case '}':
        if (--depth == 0 && container && shape.first_end == std::string::npos) shape.first_end = i + 1;
        break;
      case ',':
        ++shape.values;
        break;
      case ':':
        ++shape.members;
        break;
      default:
        break;
    }
  }
  if (in_string || in_bare) end_token(text.size());  // a token the text ends in
  return shape;
}

/// The offset of the first byte after the document that is not whitespace,
/// or npos (nlohmann stops at a NUL byte as at the end of input). Only
/// called on text whose first value the parser accepted.
size_t TrailingOffset(const std::string& text, const JsonShape& shape) {
  if (shape.first_end == std::string::npos) return text.find('\0');
  return text.find_first_not_of(" \t\r\n", shape.first_end);
}

std::string TrailingError(const std::string& text, size_t at, const std::string& file, const std::string& expected) {
  return EscapeText(file, 0) + ": trailing bytes after the JSON document at byte offset " + std::to_string(at) +
         " (" + QuoteName(text.substr(at, 8), 8) + (text.size() - at > 8 ? " ..." : "") + ", " +
         std::to_string(text.size() - at) + (text.size() - at == 1 ? " byte" : " bytes") + "); expected " + expected +
         " and nothing after it but whitespace";
}

/// "line L, column C" of byte `at`.
std::string LineColumn(const std::string& text, size_t at) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

/// nlohmann::json: a 16-byte value per element in its parent's vector, a
/// ~100-byte map node per object member with its key and the duplicate-key
/// check's copy of it, a heap vector or map per container, a heap string
/// per string; the text itself. Measured: 10 MB of '[' (10M nested arrays)
/// took 2.1 GB, about 210 bytes per container. And the lexer's buffers for
/// the token it reads (its decoded bytes and its raw bytes, each a vector
/// grown by doubling, and the copies while they grow): measured, a 50 MB
/// number took 6.8 times its bytes, an unterminated 50 MB string 6 times
/// (twice of it already counted as string bytes).
constexpr int64_t kBareTokenCopies = 8, kStringTokenCopies = 5;
int64_t TokenBytes(const JsonShape& shape) {
  return std::max(kBareTokenCopies * shape.longest_bare, kStringTokenCopies * shape.longest_string);
}
int64_t ParseBytes(const std::string& text, const JsonShape& shape) {
  return static_cast<int64_t>(text.size()) + 48 * shape.values + 200 * shape.members + 256 * shape.containers +
         2 * shape.string_bytes + TokenBytes(shape);
}

}  // namespace

std::string JsonChild(const std::string& ptr, const std::string& key) {
  return ptr + "/" + EscapePointerToken(key);
}
std::string JsonChild(const std::string& ptr, size_t index) { return ptr + "/" + std::to_string(index); }

/// A short description of a JSON value for "got ..." (never the whole value).
std::string DescribeJson(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case json::value_t::string: {
      return "the string " + QuoteName(v.get<std::string>(), 40, '"');
    }
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return v.dump();
    case json::value_t::array:
      return "an array of " + std::to_string(v.size()) + (v.size() == 1 ? " element" : " elements");
    case json::value_t::object:
      return "an object";
    default:
      return "an unsupported value";
  }
}

std::string MiBText(int64_t bytes) {
  const int64_t mib = bytes / (1 << 20) + (bytes % (1 << 20) != 0);
  return std::to_string(mib) + " MiB";
}

bool ParseJsonText(const std::string& text, const std::string& file, const std::string& expected, json* out,
                   std::string* err, const ParseBudget& budget) {
  const JsonShape shape = ScanJson(text);
  if (shape.too_deep != std::string::npos) {
    *err = EscapeText(file, 0) + ": " + LineColumn(text, shape.too_deep) + ": arrays and objects nested deeper than " +
           std::to_string(kMaxJsonDepth) + " levels; expected nesting at most " + std::to_string(kMaxJsonDepth) +
           " deep";
    return false;
  }
  const int64_t parse_bytes = ParseBytes(text, shape);
  if (budget.estimate) *budget.estimate = parse_bytes;
  if (parse_bytes > budget.max_bytes) {
    // The longest token is named when it drives the estimate (one huge number or string).
    const bool token = TokenBytes(shape) > parse_bytes / 3;
    const int64_t longest = std::max(shape.longest_bare, shape.longest_string);
    *err = EscapeText(file, 0) + ": parsing it would take about " + MiBText(parse_bytes) + " (" +
           std::to_string(text.size()) + " bytes, " + std::to_string(shape.values) + " JSON values" +
           (token ? ", one token of " + std::to_string(longest) + " bytes" : "") +
           "); expected at most " + MiBText(budget.max_bytes) +
           (budget.flag.empty() ? "" : " (raise with " + budget.flag + ")");
    return false;
  }
  DuplicateKeyFinder duplicates;
  try {
    *out = json::parse(text);
    json::sax_parse(text, &duplicates);  // valid JSON by now: only a duplicate stops it
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    if (what.find("expected end of input") != std::string::npos) {
      const size_t at = TrailingOffset(text, shape);
      if (at != std::string::npos) {
        *err = TrailingError(text, at, file, expected);
        return false;
      }
    }
    // Turn the byte offset into line:column and keep nlohmann's reason.
    const size_t colon = what.find(": ", what.find("parse error"));
    if (colon != std::string::npos) what = what.substr(colon + 2);
    // nlohmann quotes the token it last read: a long or odd one is elided.
    *err = EscapeText(file, 0) + ": invalid JSON at " + LineColumn(text, e.byte == 0 ? 0 : e.byte - 1) + ": " +
           EscapeText(what, 200) + "; expected " + expected;
    return false;
  } catch (const std::bad_alloc&) {
    throw;  // the machine's problem (exit 3), not the file's
  } catch (const std::exception& e) {
    *err = EscapeText(file, 0) + ": invalid JSON: " + EscapeText(e.what(), 200) + "; expected " + expected;
    return false;
  }
  if (!duplicates.duplicate().empty()) {
    *err = EscapeText(file, 0) + ":" + EscapeText(duplicates.duplicate(), kPointerLimit) + ": duplicate key " +
           QuoteName(duplicates.duplicate_key()) + "; expected each key once per object";
    return false;
  }
  const size_t at = text.find('\0') == std::string::npos ? std::string::npos : TrailingOffset(text, shape);
  if (at != std::string::npos) {
    *err = TrailingError(text, at, file, expected);
    return false;
  }
  return true;
}

std::string PathErrorText(int errno_value) {
  switch (errno_value) {
    case ENOENT:
      return "no such file or directory";
    case ELOOP:
      return "too many levels of symbolic links (a symlink loop)";
    case EACCES:
      return "permission denied";
    case EISDIR:
      return "is a directory";
    case ENOTDIR:
      return "a component of the path is not a directory";
    default:
      return std::strerror(errno_value);
  }
}

bool ReadTextFile(const std::string& path, const std::string& what, std::string* text, std::string* err,
                  int64_t max_bytes, const std::string& flag) {
  const std::string shown = EscapeText(path, 0);
  auto fail = [&](const std::string& problem) {
    *err = shown + ": " + problem + "; expected " + what;
    return false;
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then says
  // what the path is before anything is read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return fail(PathErrorText(errno));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) return fail(PathErrorText(errno));
  if (S_ISDIR(st.st_mode)) return fail(PathErrorText(EISDIR));
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode)  ? "a FIFO"
                       : S_ISCHR(st.st_mode) ? "a character device"
                       : S_ISBLK(st.st_mode) ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                             : "not a file";
    return fail(std::string("not a regular file (") + kind + ")");
  }
  auto too_large = [&](const std::string& size) {
    const int64_t mib = max_bytes >> 20;
    const std::string cap = mib << 20 == max_bytes ? std::to_string(mib) + " MiB" : std::to_string(max_bytes) + " bytes";
    *err = shown + ": file too large (" + size + "); expected at most " + cap +
           (flag.empty() ? "" : " (raise with " + flag + ")");
    return false;
  };
  if (st.st_size > max_bytes) return too_large(std::to_string(st.st_size) + " bytes");
  // A regular file may still grow while it is read: read at most one byte
  // past the cap.
  std::string buffer(static_cast<size_t>(st.st_size) + 1, '\0');
  size_t got = 0;
  for (;;) {
    if (got == buffer.size()) {
      if (static_cast<int64_t>(got) > max_bytes) return too_large("more than " + std::to_string(max_bytes) + " bytes");
      buffer.resize(std::min<size_t>(buffer.size() * 2, static_cast<size_t>(max_bytes) + 1));
    }
    const ssize_t n = ::read(fd, &buffer[got], buffer.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("read error: " + PathErrorText(errno));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  if (static_cast<int64_t>(got) > max_bytes) return too_large("more than " + std::to_string(max_bytes) + " bytes");
  buffer.resize(got);
  *text = std::move(buffer);
  return true;
}

bool JsonReader::Fail(const std::string& ptr, const std::string& problem, const std::string& expected,
                      const std::string& got) const {
  return FailWith(ptr, problem + "; expected " + expected + (got.empty() ? "" : ", got " + got));
}

bool JsonReader::FailWith(const std::string& ptr, const std::string& message) const {
  *err_ = EscapeText(file_, 0) + ":" + (ptr.empty() ? "/" : EscapeText(ptr, kPointerLimit)) + ": " + message;
  return false;
}

const json* JsonReader::Find(const json& obj, const std::string& key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

bool JsonReader::Require(const json& obj, const std::string& ptr, const std::string& key, const std::string& expected,
                         const json** out) const {
  *out = Find(obj, key);
  if (*out == nullptr) return Fail(JsonChild(ptr, key), "missing required key", expected);
  return true;
}

bool JsonReader::Object(const json& v, const std::string& ptr, const std::string& what) const {
  return v.is_object() || Fail(ptr, "wrong type", what, DescribeJson(v));
}

bool JsonReader::Array(const json& v, const std::string& ptr, const std::string& what) const {
  return v.is_array() || Fail(ptr, "wrong type", what, DescribeJson(v));
}

bool JsonReader::String(const json& v, const std::string& ptr, const std::string& what, std::string* out) const {
  if (!v.is_string()) return Fail(ptr, "wrong type", what, DescribeJson(v));
  *out = v.get<std::string>();
  return true;
}

bool JsonReader::OneOf(const std::string& value, const std::vector<std::string>& names, const std::string& ptr,
                       const std::string& what) const {
  for (const std::string& n : names)
    if (n == value) return true;
  return Fail(ptr, UnknownName(what, value, names));
}

bool JsonReader::CheckKeys(const json& obj, const std::string& ptr,
                       const std::vector<std::string>& allowed,
                       const std::vector<std::string>& elsewhere, const std::string& owner) const {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string& key = it.key();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    if (std::find(elsewhere.begin(), elsewhere.end(), key) != elsewhere.end())
      return Fail(JsonChild(ptr, key), "key " + QuoteName(key) + " does not apply to " + owner,
                  "one of " + JoinNames(allowed));
    return Fail(JsonChild(ptr, key), "unknown key " + QuoteName(key) + DidYouMean(key, allowed),
                "one of " + JoinNames(allowed));
  }
  return true;
}

bool JsonReader::Int(const json& v, const std::string& ptr, int64_t lo, int64_t hi,
                     const std::string& what, int64_t* out) const {
  std::string range;
  if (lo == kInt64Min && hi == kInt64Max) {
    range = "a 64-bit integer";
  } else if (hi == kInt64Max) {
    range = what + " >= " + std::to_string(lo);
  } else {
    range = std::to_string(lo) + " <= " + what + " <= " + std::to_string(hi);
  }
  int64_t value;
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(kInt64Max))
      return Fail(ptr, what + " out of range", range, v.dump());
    value = static_cast<int64_t>(u);
  } else if (v.is_number_integer()) {
    value = v.get<int64_t>();
  } else {
    return Fail(ptr, "wrong type", what + " as an integer", DescribeJson(v));
  }
  if (value < lo || value > hi) {
    const bool past_int32 = hi == kInt32Max && value > kInt32Max;
    return Fail(ptr, what + (past_int32 ? " past int32" : " out of range"), range,
                std::to_string(value));
  }
  *out = value;
  return true;
}

}  // namespace slotguard
