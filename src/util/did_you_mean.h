// Spelling suggestions for unknown names (cf. ninja's SpellcheckString).
#ifndef SLOTGUARD_UTIL_DID_YOU_MEAN_H_
#define SLOTGUARD_UTIL_DID_YOU_MEAN_H_

#include <string>
#include <vector>

namespace slotguard {

/// The candidate closest to `word` by edit distance, or "" when none is close
/// enough to be a plausible typo.
std::string ClosestMatch(const std::string& word, const std::vector<std::string>& candidates);

/// ", did you mean 'x'?" or "" (ready to append to a message).
std::string DidYouMean(const std::string& word, const std::vector<std::string>& candidates);

/// "a, b, c" for messages.
std::string JoinNames(const std::vector<std::string>& names);

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_DID_YOU_MEAN_H_
