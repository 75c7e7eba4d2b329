// The interpreter: a family description bound to one group's parameters,
// run over a batch. It computes every output of the group, token by token,
// bit-exact and int64-checked over the whole buffer, padding included, and
// says what it knows of each token (its owner, whether it owns state,
// whether it must land in a live block): the reference outputs and the
// addressing the invariants judge by.
//
// It lives in the model library, whose include root has no kernel header:
// like every reference, it never sees the implementations it judges.
#ifndef SLOTGUARD_FAMILY_FAMILY_PLAN_H_
#define SLOTGUARD_FAMILY_FAMILY_PLAN_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "family/family_desc.h"
#include "scenario/scenario.h"

namespace slotguard {

/// What the interpreter knows of one token of one output (bits).
enum TokenFact : uint8_t {
  kFactMustPad = 1,     // owns no state: a dummy (dummy "pad"), a request without a row, or a null
                        // entry under a pad_entry test: must be PAD (null_owner_pad)
  kFactLiveTarget = 2,  // selected, of a live request, through a real entry past every test: the
                        // slot must lie in that entry's block (live_maps)
  kFactSinkOk = 4,      // null_page sink: owns no state, so it may write the null block
};

/// One group's mapping, bound to its parameters (built once per group run).
struct GroupPlan {
  const FamilyDesc* desc = nullptr;
  const MappingDesc* mapping = nullptr;  // the family's, or a described variant's
  std::vector<int64_t> vars;             // the formula variables; the parameters filled in
  int64_t page = 1;                      // slots one entry names
  int64_t manager_page = 1;              // slots of the null block
  int64_t null_entries = 1;              // entries below this id name the null block
  int64_t min_width = 0;
  int64_t mapped_end = 0;                // tokens from here hold the tail value
  /// The description's inputs over the batch (InputValues), and which of
  /// them a request or a token sets (its variable, its index in `inputs`).
  std::vector<std::vector<int64_t>> inputs;
  struct Input {
    int32_t var = 0;
    size_t k = 0;
  };
  std::vector<Input> request_inputs, token_inputs;

  int outputs() const { return static_cast<int>(mapping->outputs.size()); }
  bool has_gate() const { return mapping->gate.present(); }
};

/// Binds `mapping` (of `desc`) to the parameter values `params` (one per
/// description parameter, in order) for a run over `batch`. False with *err
/// when a group-level formula fails (page 0, an overflow) or page does not
/// divide manager_page.
bool MakeGroupPlan(const FamilyDesc& desc, const MappingDesc& mapping, const std::vector<int64_t>& params,
                   const Batch& batch, GroupPlan* plan, std::string* err);

/// What one run of the interpreter gives.
struct Interpretation {
  std::vector<std::vector<int64_t>> slots;  // [outputs][num_tokens]
  std::vector<std::vector<uint8_t>> facts;  // [outputs][num_tokens] TokenFact bits (when asked)
  std::vector<int32_t> owner;               // [num_tokens]: the owning request, -1 for none
};

/// Sets request r's variables in `v` (a description's variables, indexed
/// by FamilyDesc::kR ...): r, q, qsl_begin, qsl_end, seq_len. Both
/// interpreters and the generator's walks read a request through it.
void SetRequestVars(const Batch& batch, int32_t r, int64_t* v);

/// Sets token t's variables in `v` (t, i, pos, lp), a token of request r
/// whose variables SetRequestVars set. False when lp overflows int64 (lp is
/// then left as it was). Every walk over a request's tokens sets them
/// through it.
bool SetTokenVars(const Batch& batch, int32_t r, int64_t t, int64_t* v);

/// Each of the description's inputs over `batch` ([num_reqs] or
/// [num_tokens]): the batch's array of that name, else the input's default
/// per element. False with *err when a default fails on an element.
bool InputValues(const FamilyDesc& desc, const std::vector<int64_t>& params, const Batch& batch,
                 std::vector<std::vector<int64_t>>* values, std::string* err);
/// Sets request r's inputs (token t's) in `v`, after SetRequestVars
/// (SetTokenVars): every walk that evaluates a plan's formulas sets them.
void SetRequestInputs(const GroupPlan& plan, int32_t r, int64_t* v);
void SetTokenInputs(const GroupPlan& plan, int64_t t, int64_t* v);

/// Runs the plan over the batch and `table`. `linked` is the gate's linked
/// group's output 0 ([num_tokens]), or nullptr when the scenario gives none.
/// False with *err when a per-token formula fails (an int64 overflow, a
/// division by zero): "token T (request R): 'column': division by zero".
bool Interpret(const GroupPlan& plan, const Batch& batch, const BlockTable& table, const int64_t* linked,
               bool with_facts, Interpretation* out, std::string* err);

/// The tokens output `output`'s writer skips whatever their slot: those a
/// writer gate skips by another group's output 0 (`linked`, nullptr when
/// the scenario gives none), and, when the writer is not run for dummies
/// (writer.dummies "skip"), a dummy request's tokens. 1 for a skipped token,
/// [num_tokens]; empty when it skips none that way.
std::vector<uint8_t> WriterSkipMask(const GroupPlan& plan, int output, const Batch& batch, const int64_t* linked);

/// Where an output's writer puts a token's slot (docs/family-format.md,
/// "Where a write lands"): skipped, into the pool (`slot`, a negative slot
/// moved where the writer's `negative` rule puts it), past it, or before it.
struct WriteLanding {
  enum Where : uint8_t { kSkipped, kInPool, kPastPool, kBeforePool };
  Where where = kSkipped;
  int64_t slot = -1;
  bool negative = false;  // the mapping's slot was negative and the writer did not skip it
};
WriteLanding LandingOf(const WriterDesc& writer, int64_t slot, int64_t pool_slots);

/// The request of every token under the description's owner rule (the
/// tokens of no request: -1), without running the mapping.
std::vector<int32_t> OwnersOf(const MappingDesc& mapping, const Batch& batch, int64_t mapped_end);

/// The first token of the tail: num_real_tokens, num_actual_tokens or the
/// smaller of the two.
int64_t MappedEnd(const MappingDesc& mapping, const Batch& batch);

/// Calls fn(t, r, selected, column) for every token before the plan's mapped
/// end that has an owner: whether the description's selects (and every
/// output's first) hold for it, and the column its formula gives whatever
/// they say (INT64_MIN when a formula fails on it). No table is read: what
/// the generator sizes rows by.
void ForEachAddress(const GroupPlan& plan, const Batch& batch,
                    const std::function<void(int64_t t, int32_t r, bool selected, int64_t column)>& fn);

/// One token's `reads` window: the columns [from, to] of its row its
/// attention reads unmasked (`ok` false when a formula failed on it).
struct ReadWindow {
  int64_t t = 0;
  int32_t r = -1;
  bool selected = false;  // the description's selects hold for it
  bool ok = false;
  int64_t from = 0, to = -1;
};

/// The `reads` window of every token with an owner before the plan's
/// mapped end (empty when the description has no `reads`). No table is read.
std::vector<ReadWindow> ReadWindows(const GroupPlan& plan, const Batch& batch);

/// The farthest table column any token of a live or dummy request addresses
/// before its range rule applies (-1 when none): how far a kernel that
/// ignores the row's width would read.
int64_t FarthestColumn(const GroupPlan& plan, const Batch& batch);

}  // namespace slotguard

#endif  // SLOTGUARD_FAMILY_FAMILY_PLAN_H_
