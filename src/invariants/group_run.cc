#include "invariants/group_run.h"

namespace slotguard {

void SetAddressing(GroupRun* run) {
  const Group& g = *run->group;
  switch (g.family) {
    case Family::kPaged:
      run->slots_per_entry = g.kernel_block_size;
      run->null_entries = g.blocks_per_manager_block();
      break;
  }
  run->slot_limit = int64_t{run->scenario->num_blocks} * run->page();
}

std::vector<int32_t> RequestOfToken(const Batch& batch) {
  std::vector<int32_t> request(batch.num_tokens, -1);
  for (int32_t r = 0; r < batch.num_reqs(); ++r)
    for (int64_t t = batch.query_start_loc[r]; t < batch.query_start_loc[r + 1]; ++t)
      request[t] = r;
  return request;
}

bool HasNullOwner(const GroupRun& run, int64_t t) {
  const int32_t r = (*run.request_of_token)[t];
  if (r < 0) return false;
  switch (run.group->family) {
    case Family::kPaged:
      return run.batch().idx_mapping[r] == -1;
  }
  return false;
}

bool IsPaddingToken(const GroupRun& run, int64_t t) { return (*run.request_of_token)[t] < 0; }

Finding TokenFinding(const GroupRun& run, const OutputRun& out, const char* invariant, int64_t t,
                     std::string detail) {
  Finding f;
  f.invariant = invariant;
  f.output = out.name;
  f.token = t;
  f.request = (*run.request_of_token)[t];
  f.position = run.batch().positions[t];
  f.has_values = true;
  f.kernel = (*out.kernel)[t];
  f.reference = (*out.reference)[t];
  f.detail = std::move(detail);
  if (f.kernel == f.reference && f.invariant != "differential" && f.invariant != "golden")
    f.detail += " (the reference agrees: the batch state routes this token here)";
  return f;
}

}  // namespace slotguard
