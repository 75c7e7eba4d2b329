// skip_agrees: the producer's marker and its consumers' skip tests agree.
// Every state kernel that reads the index (the description's consumers, or
// the forced variant's: an engine's) skips every row the description gives
// the marker, and no live request's index. A consumer that writes a row
// that owns no state into a sink on purpose (writes_sink, under a sink
// null page) may process a null index. A convention mismatch, not a wrong
// index: vLLM's lightning decode kernel skips -1 while its builder pads
// with 0 (the runner's fill), so a padded row reads and writes state 0.
#include "invariants/invariants.h"
#include "family/request_plan.h"

namespace slotguard {

void CheckSkipAgrees(const GroupRun& run, FindingSink* sink) {
  if (run.outputs.empty()) return;
  const Group& group = *run.group;
  const GroupModel model(group);
  const std::vector<ConsumerDesc>& consumers = ConsumersOf(group);
  const OutputRun& out = run.outputs[0];
  for (size_t e = 0; e < out.kernel->size(); ++e) {
    const int64_t t = static_cast<int64_t>(e);
    const int64_t index = (*out.kernel)[e];
    if (HasFact(out, t, kFactMarker)) {
      std::string readers;
      for (const ConsumerDesc& c : consumers) {
        if (model.ConsumerSkips(c, index)) continue;
        if (c.writes_sink && model.null_page() == NullPage::kSink && model.IsNullIndex(index))
          continue;  // a sink write by design
        readers += (readers.empty() ? "" : ", ") + c.name;
      }
      if (!readers.empty())
        sink->Add(TokenFinding(run, out, kInvariantSkipAgrees, t,
                               "the row owns no state, but " + readers + " do" + (readers.find(',') == std::string::npos ? "es" : "") +
                                   " not skip index " + std::to_string(index) +
                                   ": the consumer reads and writes state " + std::to_string(index)));
    } else if (HasFact(out, t, kFactLiveIndex)) {
      std::string skippers;
      for (const ConsumerDesc& c : consumers)
        if (model.ConsumerSkips(c, index)) skippers += (skippers.empty() ? "" : ", ") + c.name;
      if (!skippers.empty())
        sink->Add(TokenFinding(run, out, kInvariantSkipAgrees, t,
                               skippers + " skip" + (skippers.find(',') == std::string::npos ? "s" : "") +
                                   " the live request's index " + std::to_string(index) +
                                   ": its state is never read or written"));
    }
  }
}

}  // namespace slotguard
