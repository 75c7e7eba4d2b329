#include "util/json_reader.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "util/did_you_mean.h"

namespace slotguard {
namespace {

using nlohmann::json;
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kInt64Max = JsonReader::kInt64Max;
constexpr int64_t kInt64Min = JsonReader::kInt64Min;

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
class DuplicateKeyFinder {
 public:
  bool OnEvent(int depth, json::parse_event_t event, const json& parsed) {
    (void)depth;
    switch (event) {
      case json::parse_event_t::object_start:
        BeginValue();
        frames_.push_back({true, {}, "", 0});
        break;
      case json::parse_event_t::array_start:
        BeginValue();
        frames_.push_back({false, {}, "", 0});
        break;
      case json::parse_event_t::key: {
        Frame& f = frames_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second && duplicate_.empty()) duplicate_ = Path() + "/" + EscapePointerToken(f.key);
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        break;
      case json::parse_event_t::value:
        BeginValue();
        break;
    }
    return true;
  }
  const std::string& duplicate() const { return duplicate_; }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;
    size_t next_index;
  };
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
  std::string duplicate_;
};

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
      std::string s = v.get<std::string>();
      if (s.size() > 40) s = s.substr(0, 37) + "...";
      return "the string " + json(s).dump();
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

bool ParseJsonText(const std::string& text, const std::string& file, const std::string& expected, json* out,
                   std::string* err) {
  DuplicateKeyFinder duplicates;
  try {
    *out = json::parse(text, [&duplicates](int depth, json::parse_event_t event, json& parsed) {
      return duplicates.OnEvent(depth, event, parsed);
    });
  } catch (const json::parse_error& e) {
    // Turn the byte offset into line:column and keep nlohmann's reason.
    size_t line = 1, column = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    const size_t colon = what.find(": ", what.find("parse error"));
    if (colon != std::string::npos) what = what.substr(colon + 2);
    *err = file + ": invalid JSON at line " + std::to_string(line) + ", column " +
           std::to_string(column) + ": " + what + "; expected " + expected;
    return false;
  } catch (const std::exception& e) {
    *err = file + ": invalid JSON: " + e.what() + "; expected " + expected;
    return false;
  }
  if (!duplicates.duplicate().empty()) {
    const std::string& d = duplicates.duplicate();
    *err = file + ":" + d + ": duplicate key '" + d.substr(d.rfind('/') + 1) +
           "'; expected each key once per object";
    return false;
  }
  return true;
}

bool ReadTextFile(const std::string& path, const std::string& what, std::string* text, std::string* err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *err = path + ": cannot open file; expected " + what;
    return false;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    *err = path + ": read error; expected " + what;
    return false;
  }
  *text = buffer.str();
  return true;
}

bool JsonReader::Fail(const std::string& ptr, const std::string& problem, const std::string& expected,
                      const std::string& got) const {
  return FailWith(ptr, problem + "; expected " + expected + (got.empty() ? "" : ", got " + got));
}

bool JsonReader::FailWith(const std::string& ptr, const std::string& message) const {
  *err_ = file_ + ":" + (ptr.empty() ? "/" : ptr) + ": " + message;
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
      return Fail(JsonChild(ptr, key), "key '" + key + "' does not apply to " + owner,
                  "one of " + JoinNames(allowed));
    return Fail(JsonChild(ptr, key), "unknown key '" + key + "'" + DidYouMean(key, allowed),
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
