// state_writes: what the consumers write through the producer's indices.
// Each consumer that does not skip a row reads and writes state[index] (a
// negative index it does not skip indexes from the pool's end, as a tensor
// index does: SGLang #23353's pool[-1]). A live request's write must land
// in its own state, never in the null state; a row that owns no state may
// write only into a sink (null page "sink": vLLM's dummy runs, SGLang's
// slot 0), and never into a state a live request holds. The hazard of a
// wrong index becomes the write it causes, as null_bytes does for slots.
#include <map>

#include "invariants/invariants.h"
#include "family/request_plan.h"

namespace slotguard {

void CheckStateWrites(const GroupRun& run, FindingSink* sink) {
  if (run.outputs.empty()) return;
  const Group& group = *run.group;
  const GroupModel model(group);
  const OutputRun& out = run.outputs[0];
  const int64_t pool = run.scenario->num_blocks;
  // The states the live requests hold, as the reference says.
  std::map<int64_t, int32_t> live;
  for (size_t e = 0; e < out.reference->size(); ++e)
    if (HasFact(out, static_cast<int64_t>(e), kFactLiveIndex))
      live.emplace((*out.reference)[e], (*run.request_of_token)[e]);
  for (size_t e = 0; e < out.kernel->size(); ++e) {
    const int64_t t = static_cast<int64_t>(e);
    const int64_t index = (*out.kernel)[e];
    const int32_t r = (*run.request_of_token)[e];
    const bool owns_none = HasFact(out, t, kFactNoState);
    for (const ConsumerDesc& c : ConsumersOf(group)) {
      if (model.ConsumerSkips(c, index)) continue;
      const int64_t target = index < 0 ? pool + index : index;
      if (target < 0 || target >= pool) continue;  // past the pool: the engine's kernel faults there
      std::string why;
      if (model.IsNullIndex(target)) {
        if (owns_none && model.null_page() == NullPage::kSink) continue;  // the sink
        why = std::string(owns_none ? "the row owns no state, and the null page is no sink: " : "a live request: ") +
              c.name + " writes the null state " + std::to_string(target);
      } else if (auto it = live.find(target); it != live.end() && it->second != r) {
        why = c.name + " writes state " + std::to_string(target) + ", which live request " +
              std::to_string(it->second) + " holds";
      } else if (owns_none) {
        why = "the row owns no state: " + c.name + " writes state " + std::to_string(target) + " (no sink)";
      }
      if (!why.empty()) {
        sink->Add(TokenFinding(run, out, kInvariantStateWrites, t, why));
        break;  // one finding per row
      }
    }
  }
}

}  // namespace slotguard
