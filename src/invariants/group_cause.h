// The cause of a group's findings, in data: which tokens of which request
// the kernel sent into the null block (or, when none did, where it differs
// from the reference), so that a report says in one line what went wrong
// and by whom (report/cause_lines.h words it).
#ifndef SLOTGUARD_INVARIANTS_GROUP_CAUSE_H_
#define SLOTGUARD_INVARIANTS_GROUP_CAUSE_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "invariants/finding.h"
#include "invariants/group_run.h"

namespace slotguard {

/// At most this many distinct ids are kept per set (the rest counted):
/// enough for a line, bounded for a batch of millions of tokens.
constexpr size_t kCauseIds = 64;

/// A bounded set of ids (tokens, slots): the first kCauseIds distinct ones
/// in id order, and how many there were in all.
struct IdSet {
  std::set<int64_t> ids;
  int64_t count = 0;  // distinct ids added, kept or not
  void Add(int64_t id);
};

/// The tokens of one request (or of none) that share the cause, in one output.
struct CauseTokens {
  std::string output;    // the output's name (the group's, or e.g. "c128.tail")
  int32_t request = -1;  // -1: tokens of no request (past query_start_loc[R])
  bool dummy = false;    // the request is a dummy (idx_mapping -1)
  IdSet tokens;
  IdSet kernel;          // the slots the kernel gave them (PAD included)
  IdSet reference;       // the reference's (PAD included)
  bool reference_agrees = true;  // the reference gives every one of them the kernel's slot
};

/// A group's cause: the tokens the kernel sent into the null block (a
/// hazard: null_block's rule), else those where it differs from the
/// reference (differential's), per output and request in token order.
struct GroupCause {
  std::string invariant;            // kInvariantNullBlock, kInvariantDifferential, or "" (neither fired)
  std::vector<CauseTokens> tokens;  // empty when invariant is ""
  int64_t page = 0;                 // slots of the null block: [0, page)
  /// A per-request kind (state_index, block_op): the elements per request
  /// (GroupRun::ops_per_request), and `tokens` above hold element numbers,
  /// element e being operation e % ops_per_request of its request; 0 for a
  /// slot per token.
  int64_t ops_per_request = 0;
};

/// The cause of `run`'s findings in `sink` (every mapping invariant checked).
GroupCause FindCause(const GroupRun& run, const FindingSink& sink);

}  // namespace slotguard

#endif  // SLOTGUARD_INVARIANTS_GROUP_CAUSE_H_
