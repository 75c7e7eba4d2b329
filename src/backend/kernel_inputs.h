// Turns scenario data into what slotguard's own kernels take: each family's
// parameter block (the batch arrays and the tables are the plan's:
// plan/batch_arrays.h, plan/table_memory.h). Shared by both backends.
#ifndef SLOTGUARD_BACKEND_KERNEL_INPUTS_H_
#define SLOTGUARD_BACKEND_KERNEL_INPUTS_H_

#include <cstdint>

#include "kernels/family_slots.h"  // generated from registry/families.def
#include "kernels/mapping_batch.h"
#include "family/group_model.h"  // ParamOf
#include "scenario/scenario.h"

namespace slotguard {

/// The parameter block of a built-in kernel family's group: its kernel's
/// maker (<Id>Family::MakeParams) reading the group's parameters by name.
/// `linked` is the gate's linked output (qsa_compressed's common mapping).
template <class F>
typename F::Params MakeKernelParams(const Group& group, const int64_t* linked) {
  return F::MakeParams([&](const char* name) { return ParamOf(group, name); }, group.variant, linked);
}

/// Calls visit(<Id>Family{}, params) with the kernel trait and parameter
/// block of `group`, a group of a built-in kernel family (generated from
/// registry/families.def); a family without a kernel of slotguard's is
/// never visited (HasOwnKernel).
template <class Visitor>
void VisitFamily(const Group& group, const int64_t* linked, Visitor&& visit) {
  switch (group.family) {
#define SG_FAMILY(id, name) \
  case Family::k##id:       \
    return visit(id##Family{}, MakeKernelParams<id##Family>(group, linked));
#include "registry/families.def"
#undef SG_FAMILY
    default:
      return;
  }
}

/// Whether slotguard's own kernel runs the group: its variant is one the
/// built-in kernels implement (registry/families.def).
inline bool HasOwnKernel(const Group& group) { return GetVariant(group.variant).kernel; }

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_KERNEL_INPUTS_H_
