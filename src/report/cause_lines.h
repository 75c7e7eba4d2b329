// One line per cause: a group's headline (what went wrong and by whom, from
// its GroupCause), and its findings folded to one line per token, without
// the file and scenario that the lines around them already name.
#ifndef SLOTGUARD_REPORT_CAUSE_LINES_H_
#define SLOTGUARD_REPORT_CAUSE_LINES_H_

#include <cstddef>
#include <string>
#include <vector>

#include "invariants/finding.h"
#include "invariants/group_cause.h"
#include "registry/invariants.h"
#include "runner/scenario_run.h"

namespace slotguard {

/// "3", "3-4", "0-1, 5, 9-12", then " and N more" past max_ranges ranges or
/// past the ids an IdSet kept; -1 is "PAD".
std::string IdRanges(const IdSet& ids, size_t max_ranges = 4);

/// What went wrong in one group, in one line, without its name:
///   "request 1 (dummy) wrote slots 0-1 of block 0 (tokens 3-4); reference PAD"
///   "the kernel differs from the reference: request 2 (tokens 5-7: kernel 40-42, reference PAD)"
///   "no_fault: the kernel crashed (signal 11)"  (neither: the most specific finding)
/// A per-request output (state_index, block_op) names requests and their
/// operations, not tokens:
///   "the kernel differs from the reference: request 0 (op 1: kernel 0, reference PAD)"
///   "request 2 (kernel 0) names the null block; reference 7"
/// "" when the group has no finding.
std::string CauseText(const GroupReport& group);

/// "group tail: " + CauseText(group).
std::string GroupHeadline(const GroupReport& group);

/// The group wrote the null block: its cause is null_block.
inline bool WroteNullBlock(const GroupReport& group) { return group.cause.invariant == kInvariantNullBlock; }

/// One folded line (TokenLines): the output and token it is about (token
/// -1: a finding about no token), or the request and operation of a
/// per-request output's element (state_index: op -1; block_op), its
/// invariants, the text.
struct TokenLine {
  std::string output;
  int64_t token = -1;
  int64_t request = -1;  // token -1 only: the element's request (-1: a finding about no element)
  int64_t op = -1;       // and its block operation (-1: a state index, or none)
  std::vector<std::string> invariants;  // from the most specific
  std::string text;
};

/// FoldFindings' lines as text.
std::vector<TokenLine> FoldFindings(const std::string& group, const std::vector<Finding>& findings);

/// The findings folded into one line per token (per output and token, in
/// token order), then one per element of a per-request output (per output,
/// request and operation), its invariants from the most specific, the
/// values once, the most specific detail; one line per finding about
/// neither:
///   "token 3 (request 1, pos 0): kernel 0, reference PAD: null_block, null_owner_pad, own_block, differential: slot 0 is in block 0 (slots 0..15)"
///   "output copy.dst: request 0 op 0: kernel 14, reference -1: differential, pad_marker"
/// An output that is not the group's own is named first ("output c128.tail: token 3 ...").
std::vector<std::string> TokenLines(const std::string& group, const std::vector<Finding>& findings);

/// A group's lines for a console: its headline, then with `tokens` its
/// token lines (at most max_tokens, 0: all; then "(N more tokens ...)"),
/// each line prefixed with `indent` (tokens with two more spaces).
std::vector<std::string> GroupLines(const GroupReport& group, bool tokens, size_t max_tokens, const std::string& indent);

}  // namespace slotguard

#endif  // SLOTGUARD_REPORT_CAUSE_LINES_H_
