// A finding: one invariant failing on one token (or on a whole group).
#ifndef SLOTGUARD_INVARIANTS_FINDING_H_
#define SLOTGUARD_INVARIANTS_FINDING_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace slotguard {

struct Finding {
  std::string invariant;
  std::string output;       // the output buffer (group name, or e.g. "c128.tail")
  int64_t token = -1;       // -1: not about one token
  int32_t request = -1;     // -1: the token belongs to no request (or, with no token, no request at all)
  int64_t op = -1;          // a block operation's number within its request; -1: none
  int64_t position = -1;
  bool has_values = false;  // kernel/reference below are meaningful
  int64_t kernel = 0;
  int64_t reference = 0;
  std::string detail;       // the problem, in words
};

/// Collects findings: counts them all, keeps the first few per invariant.
class FindingSink {
 public:
  explicit FindingSink(size_t keep_per_invariant = 8) : keep_(keep_per_invariant) {}

  void Add(Finding finding) {
    int64_t& count = counts_[finding.invariant];
    if (static_cast<size_t>(count++) < keep_) kept_.push_back(std::move(finding));
  }
  const std::map<std::string, int64_t>& counts() const { return counts_; }
  const std::vector<Finding>& kept() const { return kept_; }
  int64_t total() const {
    int64_t n = 0;
    for (const auto& [name, count] : counts_) n += count;
    return n;
  }

 private:
  size_t keep_;
  std::map<std::string, int64_t> counts_;
  std::vector<Finding> kept_;
};

}  // namespace slotguard

#endif  // SLOTGUARD_INVARIANTS_FINDING_H_
