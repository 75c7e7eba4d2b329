#include "invariants/group_cause.h"

#include <map>
#include <utility>

#include "registry/invariants.h"

namespace slotguard {

void IdSet::Add(int64_t id) {
  if (ids.count(id)) return;
  ++count;
  if (ids.size() < kCauseIds) {
    ids.insert(id);
  } else if (id < *ids.rbegin()) {  // keep the lowest: the null block's slots, the first tokens
    ids.erase(std::prev(ids.end()));
    ids.insert(id);
  }
}

GroupCause FindCause(const GroupRun& run, const FindingSink& sink) {
  GroupCause cause;
  cause.page = run.page();
  cause.ops_per_request = run.ops_per_request;
  const bool null_block = sink.counts().count(kInvariantNullBlock) > 0;
  if (null_block)
    cause.invariant = kInvariantNullBlock;
  else if (sink.counts().count(kInvariantDifferential))
    cause.invariant = kInvariantDifferential;
  else
    return cause;
  const Batch& b = run.batch();
  for (const OutputRun& out : run.outputs) {
    const std::vector<int64_t>& kernel = *out.kernel;
    const std::vector<int64_t>& reference = *out.reference;
    std::map<int32_t, size_t> of_request;  // request -> cause.tokens
    for (size_t t = 0; t < kernel.size(); ++t) {
      const bool hit = null_block ? NullBlockHazard(run, out, static_cast<int64_t>(t))
                                  : t < reference.size() && kernel[t] != reference[t];
      if (!hit) continue;
      const int32_t r = (*run.request_of_token)[t];
      auto [it, fresh] = of_request.emplace(r, cause.tokens.size());
      if (fresh) {
        CauseTokens c;
        c.output = out.name;
        c.request = r;
        c.dummy = r >= 0 && r < b.num_reqs() && b.is_dummy(r);
        cause.tokens.push_back(std::move(c));
      }
      CauseTokens& c = cause.tokens[it->second];
      const int64_t ref = t < reference.size() ? reference[t] : kPadSlot;
      c.tokens.Add(static_cast<int64_t>(t));
      c.kernel.Add(kernel[t]);
      c.reference.Add(ref);
      c.reference_agrees &= ref == kernel[t];
    }
  }
  return cause;
}

}  // namespace slotguard
