// Family facts the invariants need, derived from DESIGN sections 2 and 3
// (like the reference, independent of the kernels).
#include "invariants/group_run.h"
#include "registry/invariants.h"

#include <algorithm>

#include "scenario/table_extent.h"

namespace slotguard {

void SetAddressing(GroupRun* run) {
  run->slots_per_entry = SlotsPerEntry(*run->group);
  run->null_entries = NullEntries(*run->group);
  run->slot_limit = int64_t{run->scenario->num_blocks} * run->page();
  const Batch& b = run->scenario->batch;
  run->mapped_end = run->group->family == Family::kKpoolTail ? b.num_actual_tokens : b.num_tokens;
}

std::vector<int32_t> RequestOfToken(const Batch& batch, const Group& group) {
  std::vector<int32_t> request(batch.num_tokens, -1);
  const int32_t R = batch.num_reqs();
  for (int32_t r = 0; r < R; ++r)
    for (int64_t t = batch.query_start_loc[r]; t < batch.query_start_loc[r + 1]; ++t) request[t] = r;
  if (group.family == Family::kKpoolTail && R > 0)
    for (int64_t t = batch.num_real_tokens(); t < batch.num_actual_tokens; ++t) request[t] = R - 1;
  return request;
}

int64_t PaddingStart(const GroupRun& run) {
  const Batch& b = run.batch();
  switch (run.group->family) {
    case Family::kKpoolTail:
      return b.num_actual_tokens;
    case Family::kCompressorRing:
      return std::min(b.num_actual_tokens, b.num_real_tokens());
    default:
      return b.num_real_tokens();
  }
}

int64_t PaddingValue(const GroupRun& run, int64_t t) {
  return run.group->family == Family::kKpoolTail ? run.batch().slot_mapping_in[t] : kPadSlot;
}

namespace {

/// The table entry token t addresses, when it addresses one.
bool AddressedEntry(const GroupRun& run, int64_t t, int32_t r, int64_t* entry) {
  const Batch& b = run.batch();
  const Group& g = *run.group;
  const BlockTable& table = g.table;
  if (r < 0) return false;
  const int32_t row = b.row_of(r);
  if (row < 0 || row >= table.rows || table.width == 0) return false;
  switch (g.family) {
    case Family::kPaged:
      return false;  // paged owners are requests (idx_mapping), not entries
    case Family::kKpoolTail:
    case Family::kQsaRing:
      *entry = table.at(row, 0);
      return true;
    case Family::kQsaCompressed: {
      const int64_t begin = b.query_start_loc[r], end = b.query_start_loc[r + 1];
      const int64_t lp = b.seq_lens[r] - (end - begin) + (t - begin);
      if (lp < 0 || (lp + 1) % g.compress_ratio != 0) return false;
      const int64_t col = lp / g.compress_ratio / g.block_size;
      if (col >= table.width) return false;
      *entry = table.at(row, static_cast<int32_t>(col));
      return true;
    }
    case Family::kCompressorRing: {
      int64_t ring_row = b.positions[t] % g.capacity;  // floor modulo
      if (ring_row < 0) ring_row += g.capacity;
      *entry = table.at(row, static_cast<int32_t>(ring_row / g.ring_block_size));
      return true;
    }
  }
  return false;
}

}  // namespace

bool HasNullOwner(const GroupRun& run, int64_t t) {
  const int32_t r = (*run.request_of_token)[t];
  if (r < 0 || !KernelMaps(run, t)) return false;
  // A dummy request's tokens are PAD: in the paged family always, in every
  // family when it reads no row (a persistent table).
  const Batch& b = run.batch();
  if (run.group->family == Family::kPaged || b.table_rows == TableRows::kIdxMapping) {
    if (b.is_dummy(r)) return true;
    if (run.group->family == Family::kPaged) return false;
  }
  int64_t entry;
  return AddressedEntry(run, t, r, &entry) && entry < run.null_entries;
}

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
  if (f.kernel == f.reference && f.invariant != kInvariantDifferential && f.invariant != kInvariantGolden)
    f.detail += " (the reference agrees: the batch state routes this token here)";
  return f;
}

}  // namespace slotguard
