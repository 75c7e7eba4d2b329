#include "util/did_you_mean.h"

#include <algorithm>

#include "util/error_line.h"

namespace slotguard {
namespace {

// Optimal string alignment: insertions, deletions, substitutions and
// transpositions of neighbours ("tigth" is one edit from "tight").
size_t SwapEditDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string ClosestMatch(const std::string& word, const std::vector<std::string>& candidates) {
  // Allow about one typo per three characters, at least one.
  const size_t max_distance = std::max<size_t>(1, word.size() / 3);
  std::string best;
  size_t best_distance = max_distance + 1;
  for (const std::string& candidate : candidates) {
    // The distance is at least the difference in length: skip the far ones
    // (a megabyte-long word costs nothing then).
    const size_t gap = word.size() > candidate.size() ? word.size() - candidate.size() : candidate.size() - word.size();
    if (gap >= best_distance) continue;
    const size_t d = EditDistance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

std::string ClosestCommandLineName(const std::string& word, const std::vector<std::string>& candidates) {
  const size_t max_distance = std::max<size_t>(1, word.size() / 3);
  std::string best;
  size_t best_distance = max_distance + 1;
  for (const std::string& candidate : candidates) {
    const size_t d = SwapEditDistance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  if (!best.empty() || word.size() < 3) return best;
  // A shortened name ("kpool" for kpool_tail): the one candidate it begins.
  for (const std::string& candidate : candidates)
    if (candidate.compare(0, word.size(), word) == 0) {
      if (!best.empty()) return "";
      best = candidate;
    }
  return best;
}

std::string DidYouMean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string match = ClosestMatch(word, candidates);
  return match.empty() ? "" : ", did you mean " + QuoteName(match) + "?";
}

NameError UnknownName(const std::string& what, const std::string& name, const std::vector<std::string>& names,
                      const std::string& qualifier) {
  return {"unknown " + what + " " + QuoteName(name) + qualifier + DidYouMean(name, names), "one of " + JoinNames(names)};
}

std::string JoinNames(const std::vector<std::string>& names) {
  // Names may come from the file (group names): escaped, and at most
  // kShown of them, so that a file with many groups makes no long line.
  constexpr size_t kShown = 32;
  std::string out;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) {
    if (!out.empty()) out += ", ";
    out += EscapeText(names[i]);
  }
  if (names.size() > kShown) out += ", and " + std::to_string(names.size() - kShown) + " more";
  return out;
}

}  // namespace slotguard
