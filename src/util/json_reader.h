// Strict JSON reading for slotguard's input files (scenarios, kernel specs):
// parsing with duplicate-key and line:column errors, and typed reads that
// report, in one shape, the file, the JSON pointer, what was expected and
// what was there:
//   FILE:/json/pointer: problem; expected X, got Y
#ifndef SLOTGUARD_UTIL_JSON_READER_H_
#define SLOTGUARD_UTIL_JSON_READER_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/did_you_mean.h"

namespace slotguard {

/// What parsing may allocate: the document nlohmann builds is many times
/// its text (10 MB of '[' took 2.1 GB), so the text is scanned first.
struct ParseBudget {
  int64_t max_bytes = std::numeric_limits<int64_t>::max();
  std::string flag;  // the flag that raises it, for the message ("--max-memory-mib")
  int64_t* estimate = nullptr;  // when set: the estimate, for a caller that builds more while it lives
};
/// Arrays and objects nested deeper than this are an error (a scenario
/// file nests 5 levels, a kernel spec 6).
constexpr int kMaxJsonDepth = 32;

/// Parses `text` (named `file` in messages). On malformed JSON or a key
/// given twice in one object, false with *err saying where and that
/// `expected` ("a scenario object") was expected; nesting past
/// kMaxJsonDepth and a document that would take more than budget.max_bytes
/// (its values and its longest token counted) name the limit instead.
/// Never throws.
bool ParseJsonText(const std::string& text, const std::string& file, const std::string& expected,
                   nlohmann::json* out, std::string* err, const ParseBudget& budget = {});

/// "4608 MiB" (rounded up).
std::string MiBText(int64_t bytes);

/// The default of --max-file-mib: the largest input file read.
constexpr int64_t kDefaultMaxFileMib = 256;

/// Reads a whole regular file of at most `max_bytes` bytes. Never blocks on
/// a FIFO nor reads a device: false with one line, "PATH: PROBLEM; expected
/// `what`", PROBLEM one of "no such file or directory", "too many levels of
/// symbolic links (a symlink loop)", "permission denied", "is a directory",
/// "not a regular file (a FIFO)" (a character device, ...), "file too large
/// (N bytes)" (then the expected part names `flag` when it is not empty).
bool ReadTextFile(const std::string& path, const std::string& what, std::string* text, std::string* err,
                  int64_t max_bytes = kDefaultMaxFileMib << 20, const std::string& flag = "");

/// What an errno from opening or stat'ing a path means, for messages
/// ("no such file or directory", "too many levels of symbolic links (a
/// symlink loop)", ...).
std::string PathErrorText(int errno_value);

/// "/a" + "b" -> "/a/b", with ~ and / escaped as RFC 6901 says.
std::string JsonChild(const std::string& pointer, const std::string& key);
std::string JsonChild(const std::string& pointer, size_t index);

/// A short description of a JSON value for "got ..." (never the whole value).
std::string DescribeJson(const nlohmann::json& v);

/// Typed reads over one file. Every method returns false after Fail().
class JsonReader {
 public:
  using json = nlohmann::json;
  static constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

  JsonReader(std::string file, std::string* err) : file_(std::move(file)), err_(err) {}

  /// The one place messages are built: "FILE:PTR: problem; expected E[, got G]".
  bool Fail(const std::string& ptr, const std::string& problem, const std::string& expected,
            const std::string& got = "") const;
  bool Fail(const std::string& ptr, const NameError& e) const { return Fail(ptr, e.problem, e.expected); }
  /// A message already in that shape (a formula's own error) at `ptr`.
  bool FailWith(const std::string& ptr, const std::string& message) const;

  static const json* Find(const json& obj, const std::string& key);
  /// obj[key], or "missing required key; expected `expected`" at ptr/key.
  bool Require(const json& obj, const std::string& ptr, const std::string& key, const std::string& expected,
               const json** out) const;
  /// Every key of `obj` is in `allowed`; a key in `elsewhere` gets "does not
  /// apply to `owner`", any other a did-you-mean.
  bool CheckKeys(const json& obj, const std::string& ptr, const std::vector<std::string>& allowed,
                 const std::vector<std::string>& elsewhere = {}, const std::string& owner = "") const;
  bool Object(const json& v, const std::string& ptr, const std::string& what) const;
  bool Array(const json& v, const std::string& ptr, const std::string& what) const;
  bool String(const json& v, const std::string& ptr, const std::string& what, std::string* out) const;
  /// An integer in [lo, hi]; `what` names the value ("block id").
  bool Int(const json& v, const std::string& ptr, int64_t lo, int64_t hi, const std::string& what,
           int64_t* out) const;
  /// `value` is one of `names`, else "unknown `what` 'value'[, did you mean]; expected one of ...".
  bool OneOf(const std::string& value, const std::vector<std::string>& names, const std::string& ptr,
             const std::string& what) const;

  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::string* err_;
};

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_JSON_READER_H_
