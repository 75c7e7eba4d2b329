// own_block: a token's slot lies in a real (non-null) block that its own
// request holds in its own row; a token of no request owns no block, nor
// does a request of a dummy run (batch.dummy_run), whose row is only read. A
// sink's null block is no one's: the tokens allowed to write it skip this
// check (null_block judges them); without a null page, block 0 is a block
// like any other.
#include <unordered_set>

#include "invariants/invariants.h"

namespace slotguard {

void CheckOwnBlock(const GroupRun& run, FindingSink* sink) {
  const BlockTable& table = run.group->table;
  const bool csr = FamilyModel(run.group->family).ragged_rows();
  const int64_t null_entries = HasNullBlock(run.null_page) ? run.null_entries : 0;
  // Under a request sink, the pages a dummy row holds are the sink's: a
  // live token never writes them (a dummy's own row is checked as any row).
  std::unordered_set<int64_t> sink_pages;
  if (run.null_page == NullPage::kRequest)
    for (int32_t r = 0; r < run.batch().num_reqs(); ++r) {
      const int32_t row = csr ? r : run.batch().row_of(r);
      if (!run.batch().is_dummy(r) || row < 0 || row >= table.rows) continue;
      for (int32_t c = 0; c < table.row_width(row); ++c) sink_pages.insert(table.at(row, c));
    }
  for (const OutputRun& out : run.outputs) {
    const std::vector<int64_t>& kernel = *out.kernel;
    // Consecutive tokens mostly share an entry: remember the last answer.
    int32_t last_request = -1;
    int64_t last_entry = -1, block_lo = 0, block_hi = 0;
    bool last_owned = false;
    int32_t last_col = 0;
    for (size_t t = 0; t < kernel.size(); ++t) {
      if (kernel[t] < 0 || !KernelMaps(run, t)) continue;
      if (SinkWrite(run, out, t, kernel[t])) continue;
      const int32_t r = (*run.request_of_token)[t];
      if (r >= 0 && r == last_request && last_owned && kernel[t] >= block_lo && kernel[t] < block_hi)
        continue;
      const int64_t entry = kernel[t] / run.slots_per_entry;
      block_lo = entry * run.slots_per_entry;
      block_hi = block_lo + run.slots_per_entry;
      if (r < 0) {
        sink->Add(TokenFinding(run, out, kInvariantOwnBlock, t,
                               "token of no request writes block entry " + std::to_string(entry)));
        continue;
      }
      if (r != last_request || entry != last_entry) {
        last_request = r;
        last_entry = entry;
        last_owned = false;
        // The row the request really owns: none in a dummy run, but under a
        // request sink, whose dummies own their pages (the sink).
        const bool owns = !run.batch().dummy_run || run.null_page == NullPage::kRequest;
        const int32_t row = !owns ? -1 : csr ? r : run.batch().row_of(r);
        if (entry >= null_entries && row >= 0 && row < table.rows) {
          const int32_t width = table.row_width(row);
          // A request walks its row in order: try the columns after the last hit first.
          for (int32_t c = last_col; c < last_col + 2 && c < width && !last_owned; ++c)
            if (table.at(row, c) == entry) last_owned = true, last_col = c;
          for (int32_t c = 0; c < width && !last_owned; ++c)
            if (table.at(row, c) == entry) last_owned = true, last_col = c;
        }
      }
      if (last_owned && !sink_pages.empty() && !run.batch().is_dummy(r) && sink_pages.count(entry)) {
        sink->Add(TokenFinding(run, out, kInvariantOwnBlock, t,
                               "block entry " + std::to_string(entry) +
                                   " is a page of the dummy request (the sink): a live token never writes it"));
        continue;
      }
      if (!last_owned)
        sink->Add(TokenFinding(run, out, kInvariantOwnBlock, t,
                               "block entry " + std::to_string(entry) +
                                   (entry < null_entries ? " is the null block"
                                    : run.batch().dummy_run && run.null_page != NullPage::kRequest
                                        ? " written by request " + std::to_string(r) +
                                              " of a dummy run, which owns no block"
                                        : " is not in the row request " + std::to_string(r) + " owns")));
    }
  }
}

}  // namespace slotguard
