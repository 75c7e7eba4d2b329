// Matching a finding against the entries of a suppressions file.
#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "suppressions/suppressions.h"
#include "util/error_line.h"

namespace slotguard {
namespace {

/// `file` relative to the working directory, normalized ("./a/../b.json"
/// and "/abs/cwd/b.json" are "b.json"); absolute when it lies outside it.
std::string WorkingRelative(const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path absolute = fs::absolute(file, ec).lexically_normal();
  const fs::path cwd = fs::current_path(ec);
  if (ec) return file;
  const fs::path relative = absolute.lexically_relative(cwd);
  if (!relative.empty() && *relative.begin() != "..") return relative.string();
  return absolute.string();
}

/// Every one of `have` is in `allowed` (an empty `allowed` allows all).
bool AllIn(const std::vector<std::string>& have, const std::vector<std::string>& allowed) {
  if (allowed.empty()) return true;
  for (const std::string& h : have)
    if (std::find(allowed.begin(), allowed.end(), h) == allowed.end()) return false;
  return true;
}

bool Matches(const Suppression& e, const SuppressionSubject& s) {
  const FindingSignature& sig = *s.signature;
  if (!AllIn(sig.families, e.families) || !AllIn(sig.variants, e.variants) || !AllIn(sig.invariants, e.invariants))
    return false;
  if (!e.blame.empty() && e.blame != sig.Blame()) return false;
  if (!e.implementation.empty() && sig.implementation.find(e.implementation) == std::string::npos) return false;
  if (!e.files.empty() &&
      (s.file.empty() || (fnmatch(e.files.c_str(), WorkingRelative(s.file).c_str(), 0) != 0 &&
                          fnmatch(e.files.c_str(), s.file.c_str(), 0) != 0)))
    return false;
  if (!e.signature.empty() && (sig.shape.empty() || sig.Id() != e.signature)) return false;
  ScenarioMeasures m;
  if (s.scenario) {
    m = {s.scenario->batch.num_reqs(), s.scenario->batch.num_tokens, static_cast<int64_t>(s.scenario->groups.size())};
  } else if (s.measures) {
    m = *s.measures;
  } else {
    return true;
  }
  return e.num_reqs.Holds(m.num_reqs) && e.num_tokens.Holds(m.num_tokens) && e.num_groups.Holds(m.num_groups);
}

}  // namespace

int MatchSuppression(const Suppressions& suppressions, const SuppressionSubject& subject) {
  for (size_t i = 0; i < suppressions.entries.size(); ++i)
    if (Matches(suppressions.entries[i], subject)) return static_cast<int>(i);
  return -1;
}

std::string SuppressionLabel(const Suppression& entry) {
  return QuoteName(entry.id) + " (" + EscapeText(entry.reason, 200) + ")";
}

}  // namespace slotguard
