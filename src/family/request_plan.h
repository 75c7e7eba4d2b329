// The interpreter of the per-request kinds (docs/state-and-block-ops.md):
// a state_index description gives one state index per request (what a
// metadata builder hands the state kernels: Mamba, SSM, GDN, linear
// attention), a block_op description a fixed number of block operations per
// request (copies, loads, stores, zeroing). Like the per-token interpreter
// (family_plan.h) it is the reference: bit-exact, int64-checked, and it says
// what it knows of every element, which the invariants judge by.
#ifndef SLOTGUARD_FAMILY_REQUEST_PLAN_H_
#define SLOTGUARD_FAMILY_REQUEST_PLAN_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "family/family_desc.h"
#include "family/family_plan.h"
#include "scenario/scenario.h"

namespace slotguard {

/// What the interpreter knows of one element of a per-request output (bits).
enum RequestFact : uint8_t {
  kFactNoState = 1,    // its request owns no state (a dummy, a request without a row): what it writes
                       // may land only in a sink
  kFactMarker = 2,     // the reference gives the marker (state_index) or no operation (block_op, PAD)
                       // here: an implementation must too
  kFactLiveIndex = 4,  // a live request through a real entry: its index (or destination) must be a
                       // live id of its own row, and no consumer may skip it
};

/// The elements of one output of a per-request group: num_reqs for a
/// state_index, num_reqs * ops for a block_op. False with *err when the ops
/// formula fails or is negative.
bool RequestOutputLength(const FamilyDesc& desc, const RequestDesc& request, const std::vector<int64_t>& params,
                         int64_t width, int32_t num_reqs, int64_t* length, std::string* err);

/// The operations per request of a block_op group (1 for a state_index).
bool OpsPerRequest(const FamilyDesc& desc, const RequestDesc& request, const std::vector<int64_t>& params,
                   int64_t width, int64_t* ops, std::string* err);

/// The outputs of a per-request kind, after the group's own: block_op copy
/// has "dst" (the group's own output holds the sources); the others none.
std::vector<std::string> RequestOutputSuffixes(const FamilyDesc& desc);

/// Runs a per-request description over the batch and `table`: out->slots
/// [outputs][length], out->facts likewise (when asked), out->owner [length]
/// (element e belongs to request e / ops). False with *err when a formula
/// fails ("request R: the description's 'column' (...): division by zero").
bool InterpretRequests(const FamilyDesc& desc, const RequestDesc& request, const std::vector<int64_t>& params,
                       const Batch& batch, const BlockTable& table, bool with_facts, Interpretation* out,
                       std::string* err);

/// Calls fn(r, column, source) for every column the description reads of
/// each request that is not a dummy, with every row `width` wide (the
/// state's column; each selected operation's source, then destination),
/// whatever the range rule then does with it. No table is read: what the
/// generator sizes rows by. A formula that fails on a request skips it.
void ForEachRequestColumn(const FamilyDesc& desc, const RequestDesc& request, const std::vector<int64_t>& params,
                          const Batch& batch, int64_t width,
                          const std::function<void(int32_t r, int64_t column, bool source)>& fn);

/// Whether `index` is a null id of the description (its null_index test;
/// a test that fails to evaluate says no).
bool IsNullIndex(const FamilyDesc& desc, const RequestDesc& request, const std::vector<int64_t>& params,
                 int64_t index);

/// Whether consumer `c` skips a row holding `index` (a test that fails to
/// evaluate says no: the kernel reads the row).
bool ConsumerSkips(const FamilyDesc& desc, const ConsumerDesc& c, const std::vector<int64_t>& params, int64_t index);

/// The state index's marker (state_index); 0 when the formula fails.
int64_t MarkerOf(const FamilyDesc& desc, const RequestDesc& request, const std::vector<int64_t>& params);

}  // namespace slotguard

#endif  // SLOTGUARD_FAMILY_REQUEST_PLAN_H_
