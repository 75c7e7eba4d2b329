// row_bounds: no token's block-table read went past its row's width. The
// backend observes it: the host backend instruments every read, the GPU
// backend lays poison past each row and looks for it in the output.
#include "invariants/invariants.h"

namespace slotguard {

void CheckRowBounds(const GroupRun& run, FindingSink* sink) {
  if (!run.read_past_row || run.outputs.empty()) return;
  const std::vector<uint8_t>& read = *run.read_past_row;
  for (size_t t = 0; t < read.size(); ++t)
    if (read[t])
      sink->Add(TokenFinding(run, run.outputs.front(), kInvariantRowBounds, t,
                             "block-table read past the row's " +
                                 std::to_string(run.group->table.width) + " columns (seen by " +
                                 run.row_bounds_evidence + ")"));
}

}  // namespace slotguard
