// unique_slots: no two real tokens of different requests share a slot, and
// no two tokens of one request do unless the reference maps them to one slot
// too (a ring that overwrites its oldest tokens: compressor_ring's slot
// output, a kpool tail longer than kpool). Every output is checked, the
// compressor ring's tail output too.
//
// Across requests: two slots can only coincide inside one table entry's
// block, so the check first maps each written entry to the first request
// writing it (one lookup per run of tokens in the same block), then compares
// exact slots only in the entries that several requests write.
// Inside a request: where the kernel agrees with the reference on every
// token of a request, it shares exactly the slots the reference shares; so
// only requests with a token that differs from the reference are looked at.
// A sink's null block is shared by design: writes the sink allows are
// skipped; so are a request sink's dummy tokens (own_block judges them).
#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "invariants/invariants.h"

namespace slotguard {
namespace {

/// entry -> first request writing it: a dense array over the pool's entries
/// when that is small, a hash map for the rest (out-of-range slots too).
class EntryOwners {
 public:
  EntryOwners(int64_t pool_entries, int64_t tokens) {
    if (pool_entries <= std::max<int64_t>(int64_t{1} << 20, 4 * tokens)) dense_.assign(pool_entries, -1);
  }
  /// The first request recorded for `entry`, recording `request` if none.
  int32_t FirstOwner(int64_t entry, int32_t request) {
    if (entry >= 0 && entry < static_cast<int64_t>(dense_.size())) {
      int32_t& owner = dense_[entry];
      if (owner < 0) owner = request;
      return owner;
    }
    return sparse_.emplace(entry, request).first->second;
  }

 private:
  std::vector<int32_t> dense_;
  std::unordered_map<int64_t, int32_t> sparse_;
};

/// Two tokens of one request on one slot where the reference keeps them apart.
void CheckInsideRequests(const GroupRun& run, const OutputRun& out, FindingSink* sink) {
  const int64_t tokens = run.batch().num_tokens;
  const std::vector<int32_t>& request = *run.request_of_token;
  const std::vector<int64_t>& kernel = *out.kernel;
  const std::vector<int64_t>& reference = *out.reference;
  // Allocated only on the first difference: a correct kernel (the hot path
  // of every campaign) differs nowhere.
  std::vector<uint8_t> differs;
  for (int64_t t = 0; t < tokens; ++t)
    if (request[t] >= 0 && KernelMaps(run, t) && kernel[t] != reference[t]) {
      if (differs.empty()) differs.assign(run.batch().num_reqs(), 0);
      differs[request[t]] = 1;
    }
  if (differs.empty()) return;
  // (request, slot) -> its first token: a request's tokens need not be
  // contiguous (an owner input hands a token to any request).
  std::map<std::pair<int32_t, int64_t>, int64_t> first_token;
  for (int64_t t = 0; t < tokens; ++t) {
    if (request[t] < 0 || !differs[request[t]] || !KernelMaps(run, t) || kernel[t] < 0 ||
        SinkWrite(run, out, t, kernel[t]) || RequestSinkToken(run, out, t))
      continue;
    auto [it, inserted] = first_token.emplace(std::make_pair(request[t], kernel[t]), t);
    if (inserted || reference[it->second] == reference[t]) continue;
    // Name the token the kernel moved (it differs from the reference).
    const int64_t at = kernel[t] != reference[t] ? t : it->second, with = at == t ? it->second : t;
    sink->Add(TokenFinding(run, out, kInvariantUniqueSlots, at,
                           "slot " + std::to_string(kernel[t]) + " also written by token " + std::to_string(with) +
                               " of the same request (the reference keeps them apart)"));
  }
}

}  // namespace

void CheckUniqueSlots(const GroupRun& run, FindingSink* sink) {
  const int64_t tokens = run.batch().num_tokens;
  const std::vector<int32_t>& request = *run.request_of_token;
  for (const OutputRun& out : run.outputs) {
    CheckInsideRequests(run, out, sink);
    const std::vector<int64_t>& kernel = *out.kernel;
    EntryOwners owners(run.slot_limit / run.slots_per_entry, tokens);
    std::unordered_set<int64_t> shared;
    int64_t block_lo = 0, block_hi = 0;  // slots of the last entry looked up
    int32_t last_request = -1;
    for (int64_t t = 0; t < tokens; ++t) {
      const int64_t slot = kernel[t];
      if (slot < 0 || request[t] < 0 || !KernelMaps(run, t) || SinkWrite(run, out, t, slot) ||
          RequestSinkToken(run, out, t))
        continue;
      if (request[t] == last_request && slot >= block_lo && slot < block_hi) continue;
      const int64_t entry = slot / run.slots_per_entry;
      block_lo = entry * run.slots_per_entry;
      block_hi = block_lo + run.slots_per_entry;
      last_request = request[t];
      if (owners.FirstOwner(entry, request[t]) != request[t]) shared.insert(entry);
    }
    if (shared.empty()) continue;
    std::unordered_map<int64_t, int64_t> first_token;  // slot -> first token writing it
    for (int64_t t = 0; t < tokens; ++t) {
      if (kernel[t] < 0 || request[t] < 0 || !KernelMaps(run, t) || SinkWrite(run, out, t, kernel[t]) ||
          RequestSinkToken(run, out, t) || !shared.count(kernel[t] / run.slots_per_entry))
        continue;
      auto [it, inserted] = first_token.emplace(kernel[t], t);
      if (inserted) continue;
      const int64_t other = it->second;
      if (request[other] != request[t])
        sink->Add(TokenFinding(run, out, kInvariantUniqueSlots, t,
                               "slot " + std::to_string(kernel[t]) + " also written by token " +
                                   std::to_string(other) + " of request " +
                                   std::to_string(request[other])));
    }
  }
}

}  // namespace slotguard
