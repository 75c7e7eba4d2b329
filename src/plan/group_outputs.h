// What a scenario's run leaves per group: the plan's output buffers
// (scenario_plan.h), which every executor fills (the host loop, the GPU
// packer, a graph replay) and every implementation writes into (a plugin,
// a compiled kernel, a provider process's answers), and the cache writers'
// options that decide which pools exist.
#ifndef SLOTGUARD_PLAN_GROUP_OUTPUTS_H_
#define SLOTGUARD_PLAN_GROUP_OUTPUTS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace slotguard {

/// What one group's kernel produced, in both geometries.
struct GroupOutputs {
  // [outputs][OutputLength]: a slot per token, or per request (a state
  // index, block operations).
  std::vector<std::vector<int64_t>> engine;
  std::vector<std::vector<int64_t>> flat;
  std::vector<uint8_t> read_past_row;        // [num_tokens], 1 = read past its row
  std::string row_bounds_evidence;           // how read_past_row was observed
  // With the writers on (Backend::set_writers): the group's KV pool after
  // its writer ran from engine[0] (writers/cache_pool.h); else empty.
  std::vector<uint8_t> cache;
  int32_t head_bytes = 0;
  // Non-empty when the run did not complete: the kernel faulted (illegal
  // address), the worker process crashed or timed out. The outputs are then
  // empty; the runner reports the fault as a `no_fault` finding.
  std::string fault;
  // With `fault`: this group's call is the one that faulted (when known; a
  // worker process that died mid-scenario cannot say which).
  bool culprit = false;
  // Non-empty when the implementation being checked does not take the
  // scenario (MappingProvider::SkipReason, a provider's skip reply): the
  // outputs are empty and the scenario is reported as skipped.
  std::string skipped;
  // With `skipped`: the run was not made because a campaign stopped (its
  // deadline, a signal) before the implementation was handed the scenario.
  // A campaign neither checks nor counts it; anywhere else it reads as a
  // skip, never as a finding.
  bool not_run = false;
};

/// A run that did not complete: `groups` outputs, each empty but for `fault`;
/// `culprit` is the group whose call faulted, when known.
inline void MarkFaulted(const std::string& fault, size_t groups, std::vector<GroupOutputs>* outputs,
                        size_t culprit = SIZE_MAX) {
  outputs->assign(groups, GroupOutputs());
  for (GroupOutputs& out : *outputs) out.fault = fault;
  if (culprit < groups) (*outputs)[culprit].culprit = true;
}

/// A run that was not made: each output empty but for `skipped`.
inline void MarkSkipped(const std::string& why, size_t groups, std::vector<GroupOutputs>* outputs) {
  outputs->assign(groups, GroupOutputs());
  for (GroupOutputs& out : *outputs) out.skipped = why;
}

/// A run a campaign's stop left unmade (GroupOutputs::not_run).
inline void MarkNotRun(const std::string& why, size_t groups, std::vector<GroupOutputs>* outputs) {
  MarkSkipped(why, groups, outputs);
  for (GroupOutputs& out : *outputs) out.not_run = true;
}

/// Whether a scenario's outputs are a run a campaign's stop left unmade.
inline bool NotRun(const std::vector<GroupOutputs>& outputs) { return !outputs.empty() && outputs[0].not_run; }

/// The cache writers (docs/memory-and-graphs.md): off while head_bytes is 0.
struct WriterOptions {
  int32_t head_bytes = 0;                      // bytes per slot, a multiple of 8, at most kMaxHeadBytes
  // Per group. A group whose pool would be bigger is skipped, not an
  // error: no pool, no writer, GroupOutputs::cache stays empty and its
  // memory invariants are not checked; the report says so (SkippedCaches,
  // runner/scenario_run.h).
  int64_t max_cache_bytes = int64_t{1} << 30;
};

}  // namespace slotguard

#endif  // SLOTGUARD_PLAN_GROUP_OUTPUTS_H_
