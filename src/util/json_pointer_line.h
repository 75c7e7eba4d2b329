// Where a JSON value starts in its file's text: the line that a report
// (SARIF's region) points a reader at, for a JSON pointer ("/groups/1").
#ifndef SLOTGUARD_UTIL_JSON_POINTER_LINE_H_
#define SLOTGUARD_UTIL_JSON_POINTER_LINE_H_

#include <string>

namespace slotguard {

/// The 1-based line on which the value at `pointer` (RFC 6901, "" the
/// whole document) starts in `text`; 0 when the text is not JSON up to
/// there or has no such value. Reads only as far as it needs.
int JsonPointerLine(const std::string& text, const std::string& pointer);

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_JSON_POINTER_LINE_H_
