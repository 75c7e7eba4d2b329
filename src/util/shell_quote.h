// A word as a POSIX shell reads it back: the commands that reports print
// for a user to copy (a reproducer's replay command).
#ifndef SLOTGUARD_UTIL_SHELL_QUOTE_H_
#define SLOTGUARD_UTIL_SHELL_QUOTE_H_

#include <string>

namespace slotguard {

/// `word` unchanged when the shell reads it as it is (letters, digits and
/// -_./:=+,@%), else in single quotes ('it'\''s'); '' for an empty word.
std::string ShellQuote(const std::string& word);

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_SHELL_QUOTE_H_
