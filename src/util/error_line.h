// The one form of every error slotguard prints (docs/cli.md: one line
// each). The commands, the worker and the libFuzzer targets all build their
// error lines here, and every name or key a file gave that goes into one of
// them (or into a console line) goes through EscapeText / QuoteName first.
#ifndef SLOTGUARD_UTIL_ERROR_LINE_H_
#define SLOTGUARD_UTIL_ERROR_LINE_H_

#include <cstddef>
#include <string>

namespace slotguard {

/// "slotguard: error: PROBLEM\n": the whole line, newline included.
std::string ErrorLine(const std::string& problem);

/// Text from an input file made safe for one console line: control
/// characters (C0, DEL and C1), the line separators U+2028 and U+2029 and
/// the bidirectional controls (U+061C, U+200E, U+200F, U+202A..U+202E,
/// U+2066..U+2069: they reorder the rest of a line) shown as \n, \t, \r, \x1b, \u009b, \u202e, bytes that
/// are not UTF-8 as \xHH, a backslash as \\; valid UTF-8 kept. Past
/// `max_chars` characters of output (0: no limit) the rest is elided as
/// "...(N bytes)", N the length of `text`.
constexpr size_t kEscapeLimit = 80;
std::string EscapeText(const std::string& text, size_t max_chars = kEscapeLimit);

/// Text from another program (a kernel provider's name or message) as one
/// printable line of valid UTF-8, for reports whose JSON and XML writers
/// refuse invalid bytes: control characters (C0, DEL and C1), the line
/// and paragraph separators (U+2028, U+2029) and the bidirectional controls
/// (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) become spaces;
/// each byte that
/// does not start a valid UTF-8 sequence (overlong, surrogate, past
/// U+10FFFF, truncated) and the XML-forbidden U+FFFE and U+FFFF become '?'.
std::string PrintableText(const std::string& text);

/// Text another program chose (a plugin's or a provider's name, a
/// provider's error or skip message) as one line of bounded length:
/// PrintableText, then past `max_chars` characters elided as
/// "...(N bytes)", N the length of `text`. So a name cannot forge a console
/// line, nor make one of 64 KiB.
constexpr size_t kForeignTextLimit = 200;
std::string ForeignText(const std::string& text, size_t max_chars = kForeignTextLimit);

/// `text` cut after `max_chars` characters (UTF-8 sequences whole), the cut
/// marked "...(N bytes)", N the length of `text`; unchanged when shorter.
std::string ElideText(const std::string& text, size_t max_chars);

/// `text` as valid UTF-8 for a report (JSON, SARIF), whatever it holds: valid
/// UTF-8 kept as it is (control characters included: the report's own
/// escaping shows them), each byte that does not start a valid sequence as
/// the four characters \xHH. A path or name with bytes that are not UTF-8
/// reaches the report escaped instead of making it unwritable.
std::string Utf8Text(const std::string& text);

/// The characters of `text`: each valid UTF-8 sequence one, each other byte
/// one (as a length limit a user can count).
size_t CountChars(const std::string& text);

/// "WHAT: out of memory; expected ..." for a std::bad_alloc (exit 3):
/// what ran out and what to do about it (check's scenarios: fewer at once
/// with -j, or a lower --max-memory-mib). `what` is already escaped.
std::string OutOfMemoryText(const std::string& what);
/// The same with the command's own remedy: "WHAT: out of memory; expected
/// more free memory (ADVICE)", or without the parenthesis when `advice` is "".
std::string OutOfMemoryText(const std::string& what, const std::string& advice);

/// 'text', escaped and elided as EscapeText does; the quote inside shown as
/// \' (or \" with quote '"').
std::string QuoteName(const std::string& text, size_t max_chars = kEscapeLimit, char quote = '\'');

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_ERROR_LINE_H_
