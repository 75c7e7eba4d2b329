// window_reads: every column a live token's attention reads unmasked (the
// description's `reads` window, [from, to] of its own row) holds a real
// block. A sliding-window engine frees the blocks behind the window and puts
// the null block in their place; its attention kernel reads those columns
// and masks them. A manager that frees one block too many leaves a column
// the token still needs holding block 0: the kernel then reads the null
// block's bytes as keys of its window, and no write anywhere shows it. The
// table is the batch's, so this names the batch (a runner's table), not
// the kernel. Columns past the row are row_bounds' and live_maps' to judge.
#include "invariants/invariants.h"

#include "family/family_plan.h"
#include "family/group_model.h"

namespace slotguard {

void CheckWindowReads(const GroupRun& run, FindingSink* sink) {
  if (run.outputs.empty()) return;
  const GroupModel model(*run.group);
  if (model.mapping().reads_from.empty()) return;
  const Batch& b = run.batch();
  GroupPlan plan;
  std::string unused;  // a formula the plan cannot bind: the reference reports it
  if (!model.MakePlan(model.mapping(), b, &plan, &unused)) return;
  const BlockTable& table = run.group->table;
  const OutputRun& out = run.outputs[0];
  for (const ReadWindow& w : ReadWindows(plan, b)) {
    if (!w.ok || !w.selected || w.t >= static_cast<int64_t>(out.kernel->size())) continue;
    if (b.is_dummy(w.r)) continue;  // a dummy's window is nobody's state
    const int32_t row = model.RowOf(b, w.r);
    if (row < 0 || row >= table.rows) continue;
    const int64_t width = table.row_width(row);
    for (int64_t c = std::max<int64_t>(w.from, 0); c <= w.to && c < width; ++c) {
      const int64_t entry = table.at(row, static_cast<int32_t>(c));
      if (entry >= run.null_entries) continue;
      sink->Add(TokenFinding(run, out, kInvariantWindowReads, w.t,
                             "its attention reads columns " + std::to_string(w.from) + ".." + std::to_string(w.to) +
                                 " of row " + std::to_string(row) + ", and column " + std::to_string(c) + " holds " +
                                 (entry < 0 ? "no block (" + std::to_string(entry) + ")"
                                            : "the null block (entry " + std::to_string(entry) + ")") +
                                 "; expected a real block in every column of the window"));
      break;  // one finding per token: its first null column
    }
  }
}

}  // namespace slotguard
