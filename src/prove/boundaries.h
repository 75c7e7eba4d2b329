// The family-specific values of a scope, derived from each family's
// description, never from knowledge of a family: its parameters' boundary
// sets, the positions where its formulas change behaviour, and the block ids
// at its int32 boundary (docs/prove.md, "What a scope enumerates"). A
// --family-file family gets them the same way.
#ifndef SLOTGUARD_PROVE_BOUNDARIES_H_
#define SLOTGUARD_PROVE_BOUNDARIES_H_

#include <cstdint>
#include <vector>

#include "prove/scope.h"
#include "scenario/scenario.h"

namespace slotguard {

/// Every parameter tuple of `family` the scope's parameter classes give
/// (each class a source of the parameter's shape list, family/shape_lists.h)
/// (group parameters left empty: the links are the configurations'), in
/// order: each integer parameter's boundary set is taken given the earlier
/// ones (a max, a default or a divisor reads them), each bool both ways.
/// Only tuples that meet the description's constraints, with a page of at
/// least one slot, at most kMaxProveWidth columns per row and at most
/// kMaxProveWidth kernel blocks per manager block.
std::vector<std::vector<int64_t>> ParamTuples(Family family, const ScopePart& scope);

/// The widest row a proof lays out, and the most kernel blocks a manager
/// block may span.
constexpr int64_t kMaxProveWidth = 4096;

/// The first of `count` consecutive manager block ids of class `ids` for
/// the group: 1 (small); the last `count` blocks whose every slot fits
/// int32 (below_int32); the first `count` blocks whose first slot is 2^31
/// or more (past_int32), or, when the ids a table may hold (kernel ids
/// below INT32_MAX) end before those, the last `count` of them.
int64_t FirstBlockId(const Group& group, BlockIds ids, int64_t count);

}  // namespace slotguard

#endif  // SLOTGUARD_PROVE_BOUNDARIES_H_
