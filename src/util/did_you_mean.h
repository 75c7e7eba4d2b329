// Spelling suggestions for unknown names (cf. ninja's SpellcheckString).
#ifndef SLOTGUARD_UTIL_DID_YOU_MEAN_H_
#define SLOTGUARD_UTIL_DID_YOU_MEAN_H_

#include <string>
#include <vector>

namespace slotguard {

/// The candidate closest to `word` by edit distance, or "" when none is close
/// enough to be a plausible typo.
std::string ClosestMatch(const std::string& word, const std::vector<std::string>& candidates);

/// ClosestMatch for what a user types on the command line (commands, flags,
/// flag values): a swap of two neighbouring letters counts as one edit
/// ("tigth" for tight), and failing a close name, the one candidate that
/// `word` (3 characters or more) begins ("kpool" for kpool_tail). File and
/// spec errors keep ClosestMatch.
std::string ClosestCommandLineName(const std::string& word, const std::vector<std::string>& candidates);

/// ", did you mean 'x'?" or "" (ready to append to a message).
std::string DidYouMean(const std::string& word, const std::vector<std::string>& candidates);

/// An unknown name, in the two parts every error line has:
/// problem "unknown variant 'x' of family paged, did you mean 'y'?" and
/// expected "one of a, b, c".
struct NameError {
  std::string problem;
  std::string expected;
  std::string Text() const { return problem + "; expected " + expected; }
};
/// `what` names the kind of name ("kernel family"); `qualifier` follows the
/// quoted name (" of family paged").
NameError UnknownName(const std::string& what, const std::string& name, const std::vector<std::string>& names,
                      const std::string& qualifier = "");

/// "a, b, c" for messages.
std::string JoinNames(const std::vector<std::string>& names);

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_DID_YOU_MEAN_H_
