// What a kernel spec launches for some calls, worked out on the host (no
// device needed, so the decisions are unit-tested without a GPU):
//
//  - whether the spec takes them at all: every launch precondition holds,
//    a specialization fits (the first whose conditions hold on every call),
//    and, in a "launch": "scenario" spec, the values one launch takes once
//    are the same for every group. When not, the skip reason
//    (MappingProvider::SkipReason): the engine would launch something else.
//  - the launch: each argument's 8-byte cell, the scratch buffers' sizes and
//    the group arrays' contents, and the grid. cubin_kernel.cc allocates the
//    device memory and launches.
#ifndef SLOTGUARD_PLUGIN_SPEC_LAUNCH_H_
#define SLOTGUARD_PLUGIN_SPEC_LAUNCH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "plugin/kernel_spec.h"
#include "slotguard/plugin.h"

namespace slotguard {

struct SpecChoice {
  const SpecKernel* kernel = nullptr;  // what runs: the spec itself or one specialization; null when not
  int specialization = -1;             // its index in spec.specializations, -1 for the spec itself
  std::string skip;   // why the spec does not take the calls, one line naming the kernel and the spec
  std::string error;  // a formula that cannot be evaluated on them: the spec's fault, FILE:/pointer: problem
};

/// Which kernel of `spec` takes `calls`: one group's call, or in a "launch":
/// "scenario" spec every group of one launch (then num_groups is
/// calls.size()). `groups` names the calls in messages (may be empty).
SpecChoice ChooseSpecKernel(const KernelSpec& spec, const std::vector<sg_mapping_call>& calls,
                            const std::vector<std::string>& groups = {});

/// One kernel argument: an 8-byte cell, or a device buffer the launcher
/// allocates (stream-ordered) and points the cell at.
struct PlannedArg {
  enum class Kind { kCell, kScratch, kGroupArray };
  Kind kind = Kind::kCell;
  uint64_t cell = 0;           // kCell: the value (an i32 in the low 4 bytes, an i64, a pointer)
  int64_t bytes = 0;           // kScratch, kGroupArray: the buffer's size (0: a null pointer)
  std::vector<uint8_t> data;   // kGroupArray: its contents, one element per call
};

struct LaunchPlan {
  std::vector<PlannedArg> args;
  int64_t grid[3] = {1, 1, 1};
};

/// The launch of `kernel` (ChooseSpecKernel's) on `calls`: the batch's
/// buffers and scalars from calls[0], group arrays from every call. False
/// with one line *err "FILE:/pointer: problem" (a formula that cannot be
/// evaluated, a grid or i32 value out of range, a scratch too large).
bool PlanLaunch(const KernelSpec& spec, const SpecKernel& kernel, const std::vector<sg_mapping_call>& calls,
                LaunchPlan* plan, std::string* err);

/// A grid `kernel` of `spec` would launch: each dimension within CUDA's
/// limits (x <= 2^31-1, y and z <= 65535) and the block count's product
/// without overflow (2^30 x 2^30 x 16 wrapped to 0, and the kernel was
/// silently not launched). False with "FILE:/grid/D: 'FORMULA' is V`when`;
/// expected 0 <= grid y <= 65535 (CUDA's limit)".
bool CheckGrid(const KernelSpec& spec, const SpecKernel& kernel, const int64_t grid[3], const std::string& when,
               std::string* err);

/// At load: the grid dimensions of every kernel of `spec` (its own, or each
/// specialization's) that name no variable, checked by CheckGrid, and its
/// block within CUDA's limits (at most 1024 threads, 64 in z). A spec error
/// (exit 2) before anything runs.
bool CheckConstantGrids(const KernelSpec& spec, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_PLUGIN_SPEC_LAUNCH_H_
