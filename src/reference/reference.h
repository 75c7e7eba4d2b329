// The CPU reference: the oracle. For every family it is the family's
// description, interpreted (family/family_plan.h): one interpreter, no
// kernel header, so a bug of a kernel and its host twin cannot cancel out.
// It always computes the family's own behaviour (its `fixed` variant),
// whatever variant the group runs.
//
// The families slotguard has kernels of its own for (registry/families.def)
// also keep a reference written by hand from docs/families.md, as plain
// loops: an independent cross-check of the interpreter and of their
// descriptions (tests/reference/, scripts/reference-crosscheck.sh).
#ifndef SLOTGUARD_REFERENCE_REFERENCE_H_
#define SLOTGUARD_REFERENCE_REFERENCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "family/family_plan.h"
#include "family/group_model.h"
#include "scenario/scenario.h"

namespace slotguard {

/// One group's reference: its description interpreted over the scenario's
/// batch, its gate reading `linked` (the linked group's reference output 0,
/// or nullptr when the scenario names none). False with *err ("group G:
/// token T (request R): the description's 'column' (...): division by zero").
bool GroupReference(const Scenario& scenario, const Group& group, const int64_t* linked, bool facts,
                    Interpretation* out, std::string* err);
/// Every group's reference, in group order (a gate reads its linked group's).
bool ScenarioReference(const Scenario& scenario, bool facts, std::vector<Interpretation>* out, std::string* err);

/// One group's reference outputs (its linked group's computed as needed);
/// empty outputs when the interpreter fails.
std::vector<std::vector<int64_t>> ReferenceOutputs(const Scenario& scenario, const Group& group);

/// The hand-written reference of a built-in kernel family's group, every
/// output; false for a family without one.
bool HandReference(const Scenario& scenario, const Group& group, std::vector<std::vector<int64_t>>* out);

// The hand references, written from docs/families.md.
std::vector<int64_t> ReferencePaged(const Batch& batch, const Group& group);
std::vector<int64_t> ReferenceKpoolTail(const Batch& batch, const Group& group);
std::vector<int64_t> ReferenceQsaRing(const Batch& batch, const Group& group);
/// Over a common mapping [num_tokens].
std::vector<int64_t> ReferenceQsaCompressed(const Batch& batch, const Group& group,
                                            const std::vector<int64_t>& common);
/// {slot_mapping, tail_slot_mapping}.
std::vector<std::vector<int64_t>> ReferenceCompressorRing(const Batch& batch, const Group& group);

#define SG_FAMILY(id, name) \
  std::vector<std::vector<int64_t>> HandReference##id(const Scenario& scenario, const Group& group);
#include "registry/families.def"
#undef SG_FAMILY

}  // namespace slotguard

#endif  // SLOTGUARD_REFERENCE_REFERENCE_H_
